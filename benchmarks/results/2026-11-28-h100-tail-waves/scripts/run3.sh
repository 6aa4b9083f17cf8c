#!/bin/bash
# Call 3 (after the calls that carried the CuTe DSL / FA4 wheels and chunks into /tmp/peers): the
# install; the GPU tests of the causal order and tails (the heuristic's two waves at D=80 / 96,
# causal_tail 1-4, the one-wave tail, O in parts, plans in graphs); auto through the API against
# its config with causal_tail 0 (the rule) on the dims preset's D=80 / 96 S=1k causal cells, bf16.
set -u
cp .peers/c_cu13.d07/* /tmp/peers/
[ -d /tmp/site/flash_attn ] || source .peers/p/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
python -c "import flash_attn.cute, torch, cutlass; print('fa4 ok', torch.__version__, torch.backends.cudnn.version())" >> $OUT/install.log 2>&1
S=benchmarks/results/2026-11-28-h100-tail-waves/scripts
R=$OUT/3; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout 200 python -m pytest -q -n 8 -p no:cacheprovider tests/kernels/test_gluon_fwd.py -m gpu \
  -k "tail or persistent_causal_order or o_runs_in_parts or plan_in_a_cuda_graph or plan_runs_read" > $R/gpu-tests.log 2>&1
tail -2 $R/gpu-tests.log
OUT=$R DTYPE=bf16 PEERS=cudnn LONG_MS=500 API=1 WAVES_CELLS="16,16,16,1024,96 16,24,24,1024,80" WAVES_LIST="2;2" \
  timeout 150 python -u $S/waves.py > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|   [ar0-9c]" $R/console-bf16.log | cut -c1-200
cp $OUT/install.log $R/; tail -1 $R/install.log
tar czf $OUT/run3.tgz -C $OUT 3
