#!/usr/bin/env bash
# Device call 7: the split merge loading its partials four at a time (and every LSE in one round
# trip) against the one-load-per-split merge (scripts/triton_fwd_base.py = 918846f's, not
# committed), on decode cells; then the portable kernel's GPU tests.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/src
D=benchmarks/results/2026-11-25-h100-prefetch-and-decode/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv | tee $OUT/env.txt
BASE=$D/triton_fwd_base.py ROUNDS=21 CASES="[(1, 8, 8, 1, 8192, 128, False), (1, 32, 8, 1, 8192, 128, False),
(1, 32, 4, 1, 8192, 64, False), (1, 32, 8, 1, 32768, 128, False), (4, 32, 8, 1, 8192, 128, False),
(1, 32, 32, 1, 8192, 128, False), (1, 32, 8, 4, 8192, 128, True), (1, 8, 8, 16, 4096, 64, False), (1, 8, 8, 32, 8192, 128, True)]" \
  python $D/decode_ab.py 2>&1 | grep -v "Warning\|return F\." | tee $OUT/merge.log
timeout 300 python -m pytest -q -n 8 tests/kernels/test_triton_fwd.py tests/test_api.py -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/gpu-tests.log
