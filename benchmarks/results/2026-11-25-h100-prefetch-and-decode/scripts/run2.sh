#!/usr/bin/env bash
# Device call 2: packed GQA decode (portable kernel) against the unpacked config, Gluon and SDPA;
# then the GPU tier of the portable kernel, dispatch and API tests.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/src
D=benchmarks/results/2026-11-25-h100-prefetch-and-decode/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv | tee $OUT/env.txt
python -c "import torch, triton; print(torch.__version__, triton.__version__, torch.version.cuda, torch.backends.cudnn.version())" | tee -a $OUT/env.txt
python $D/decode_ab.py 2>&1 | tee $OUT/decode.log
timeout 300 python -m pytest -q -n 8 tests/kernels/test_triton_fwd.py tests/test_api.py tests/test_plans.py tests/test_ops.py -p no:cacheprovider 2>&1 | tail -8 | tee $OUT/gpu-tier.log
