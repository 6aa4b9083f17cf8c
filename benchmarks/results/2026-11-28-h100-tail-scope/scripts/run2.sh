#!/bin/bash
# Call 2 (after the calls that carried the CuTe DSL / FA4 wheels and chunks into /tmp/peers): the
# install; confirm.py (bf16, fp16) on the GQA cells the tail now caps; the tail's GPU tests; then
# the seed preset against every peer (fp16, graph and eager).
set -u
cp .peers/c_cu13.d07/* /tmp/peers/
[ -d /tmp/site/flash_attn ] || source .peers/p/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
python -c "import flash_attn.cute, torch, cutlass; print('fa4 ok', torch.__version__, torch.backends.cudnn.version())" >> $OUT/install.log 2>&1
S=benchmarks/results/2026-11-28-h100-tail-scope/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
for dt in bf16 fp16; do
  OUT=$OUT DTYPE=$dt PEERS=cudnn LONG_MS=600 CONFIRM_CELLS="16,32,8,1024,128 8,32,8,2048,128" \
    timeout 150 python -u $S/confirm.py > $OUT/console-$dt.log 2>&1
  echo "$dt rc=$?"; grep -E "causal \(|   [aohc]" $OUT/console-$dt.log | cut -c1-190
done
timeout 150 python -m pytest -q -n 8 -p no:cacheprovider tests/kernels/test_gluon_fwd.py -m gpu \
  -k "persistent_causal_order or one_wave_tail or plan_in_a_cuda_graph or plan_runs_read" > $OUT/gpu-tests.log 2>&1
tail -2 $OUT/gpu-tests.log
timeout 150 python -m flashcore.cli bench --preset seed --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 --mode both \
  --no-plots --out $OUT/seed > $OUT/seed.log 2>&1
echo "seed rc=$?"
cd $OUT && tar czf seed.tgz seed && rm -rf seed
tail -2 install.log; grep -E "│ B" seed.log
