#!/bin/bash
# Call 96 (wheels carried by calls 85-95 and this one, as for run2.sh): the final tree's GPU tests
# for the CuTe kernel and auto's dispatch, then a second seed run with every peer.
set -u
mkdir -p /tmp/peers && cp .peers/h05/* /tmp/peers/
[ -d /tmp/site/flash_attn ] || source .peers/p/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
timeout 280 python -m pytest -q -n 8 -p no:cacheprovider tests/kernels/test_cute_fwd.py tests/test_api.py tests/test_plans.py > $OUT/gpu-tests.log 2>&1
timeout 200 python -m flashcore.cli bench --preset seed --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 --mode both \
  --no-plots --out $OUT/seed > $OUT/seed.log 2>&1
cd $OUT && tar czf seed.tgz seed && rm -rf seed
tail -2 gpu-tests.log; grep -E "│ B" seed.log
