export PYTHONPATH=$PWD/src:$PYTHONPATH
export FLASHCORE_GIT_SHA=$1
G='flashcore-gluon'
NP="$G[block_m=192,block_n=128,num_warps=12,num_stages=2,warp_specialize=true,pingpong=true]"
PP="$G[block_m=192,block_n=128,num_warps=12,num_stages=2,warp_specialize=true,pingpong=true,persistent=true]"
PP3="$G[block_m=192,block_n=128,num_warps=12,num_stages=3,warp_specialize=true,pingpong=true,persistent=true]"
S1="$G[block_m=64,block_n=128,num_warps=4,num_stages=2]"
COMMON="--causal on --mode graph --rounds 8 --rep-ms 2400 --sets 3 --no-plots"
python3 -m flashcore.cli bench --shape 2,32,8192,64 --shape 1,32,16384,64 --shape 4,32,4096,64 --shape 8,32,2048,64 \
  --providers "flashcore,$NP,$PP,$PP3,$S1" $COMMON --out $OUT/d64 > $OUT/d64.log 2>&1
S64="$G[block_m=64,block_n=64,num_warps=4,num_stages=2]"
P128="$G[block_m=128,block_n=128,num_warps=8,num_stages=2,warp_specialize=true,persistent=true]"
P12864="$G[block_m=128,block_n=64,num_warps=8,num_stages=2,warp_specialize=true,persistent=true]"
python3 -m flashcore.cli bench --shape 32,16,512,128 --shape 16,16,1024,128 \
  --providers "flashcore,$S64,$P128,$P12864,sdpa-cudnn" $COMMON --out $OUT/d128 > $OUT/d128.log 2>&1
grep -v Warn $OUT/d64.log | tail -40; grep -v Warn $OUT/d128.log | tail -25
