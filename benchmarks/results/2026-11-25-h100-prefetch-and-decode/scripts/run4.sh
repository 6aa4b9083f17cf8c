#!/usr/bin/env bash
# Device call 4, the shipped form (16-row packed blocks, int32 per-row heads): decode A/B on four
# cells, then the portable kernel's, API, plans and ops tests on the GPU.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/src
D=benchmarks/results/2026-11-25-h100-prefetch-and-decode/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv | tee $OUT/env.txt
CASES="[(1, 32, 8, 1, 8192, 128, False), (8, 32, 8, 1, 4096, 128, False), (1, 32, 4, 1, 8192, 64, False), (1, 32, 8, 4, 8192, 128, True), (1, 8, 8, 1, 8192, 128, False)]" \
  python $D/decode_ab.py 2>&1 | grep -v "Warning\|return F\." | tee $OUT/decode.log
timeout 300 python -m pytest -q -n 8 tests/kernels/test_triton_fwd.py tests/test_api.py tests/test_plans.py tests/test_ops.py -p no:cacheprovider 2>&1 | tail -4 | tee $OUT/gpu-tier.log
