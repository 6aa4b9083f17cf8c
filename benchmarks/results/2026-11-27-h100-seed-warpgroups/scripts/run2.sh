#!/bin/bash
# Call 24: install as call 12 did, then the cute GPU tests (new KNOBS and offline builds), the
# causal rule's cells, and the seed preset against every peer (fp16, graph and eager).
set -u
mkdir -p /tmp/peers && cp .peers/h05/* /tmp/peers/
[ -d /tmp/site/flash_attn ] || source .peers/p/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
S=benchmarks/results/2026-11-27-h100-seed-warpgroups/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
python -c "import flash_attn.cute, torch, cutlass; print('fa4 ok', torch.__version__, torch.backends.cudnn.version())" >> $OUT/install.log 2>&1
timeout 240 python -m pytest -q -n 8 -p no:cacheprovider tests/kernels/test_cute_fwd.py > $OUT/gpu-cute.log 2>&1
timeout 150 python $S/rule.py > $OUT/rule.out 2>&1
timeout 200 python -m flashcore.cli bench --preset seed --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 --mode both \
  --no-plots --out $OUT/seed > $OUT/seed.log 2>&1
cd $OUT && tar czf seed.tgz seed && rm -rf seed
tail -2 install.log; tail -3 gpu-cute.log; grep -v "^check.*: ok" rule.log; tail -3 rule.out; tail -25 seed.log
