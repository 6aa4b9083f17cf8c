#!/bin/bash
# Call 1: the 192x64 rule's GPU test; D=128 S=512 causal tiles against cuDNN; the 192x64
# rule on the GQA preset's full D=128 cells against the config it replaced.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/1; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
python -c "import torch,triton;print(torch.__version__,triton.__version__,torch.backends.cudnn.version())" >> $R/gpu.txt
pytest -q -n 6 -m gpu tests/kernels/test_gluon_fwd.py -k "192x64_on_full or from_2k_keys" > $R/tests.log 2>&1
tail -3 $R/tests.log
G='flashcore-gluon'
S512="flashcore,$G[block_m=64,block_n=32,num_warps=4,num_stages=3],$G[block_m=64,block_n=64,num_warps=4,num_stages=2],$G[block_m=128,block_n=32,num_warps=8,num_stages=2],$G[block_m=128,block_n=64,num_warps=8,num_stages=2],$G[block_m=128,block_n=64,num_warps=8,num_stages=2,warp_specialize=1,pingpong=1,persistent=1],$G[block_m=128,block_n=64,num_warps=8,num_stages=3,warp_specialize=1,pingpong=1,persistent=1],$G[block_m=128,block_n=64,num_warps=8,num_stages=2,warp_specialize=1],sdpa-cudnn"
OLD="flashcore,$G[block_m=128,block_n=128,num_warps=8,num_stages=2,warp_specialize=1,persistent=1,stream_k=1]"
for dt in bf16 fp16; do
  python -m flashcore.cli bench --shape 32,16,512,128 --causal on --dtype $dt --providers "$S512" \
    --mode graph --no-plots --out $R/s512-$dt > $R/s512-$dt.log 2>&1
  python -m flashcore.cli bench --preset gqa --causal off --dtype $dt --providers "$OLD" \
    --mode graph --no-plots --out $R/gqa-$dt > $R/gqa-$dt.log 2>&1
done
for f in $R/*.log; do echo "== $f"; grep -E "correct|✓|✗|FAIL" $f | head -40; done
