#!/bin/bash
# Call 84 (wheels carried by calls 73-83 and this one, as for run2.sh): keys_first on the causal
# rule's cells, auto's tests on the GPU, then the seed preset against every peer (fp16, both modes).
set -u
mkdir -p /tmp/peers && cp .peers/h05/* /tmp/peers/
[ -d /tmp/site/flash_attn ] || source .peers/p/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
S=benchmarks/results/2026-11-27-h100-seed-warpgroups/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
RULE=keys_first timeout 150 python $S/rule.py > $OUT/rule.out 2>&1
timeout 150 python -m pytest -q -n 8 -p no:cacheprovider tests/test_api.py tests/test_plans.py > $OUT/gpu-api.log 2>&1
timeout 200 python -m flashcore.cli bench --preset seed --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 --mode both \
  --no-plots --out $OUT/seed > $OUT/seed.log 2>&1
cd $OUT && tar czf seed.tgz seed && rm -rf seed
grep -v "^check.*: ok" rulekeys_first.log; tail -2 gpu-api.log; grep -E "│ B" seed.log
