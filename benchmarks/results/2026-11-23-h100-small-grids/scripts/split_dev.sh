export PYTHONPATH=$PWD/src FLASHCORE_GIT_SHA=$SHA
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/gpu.txt
python3 -c "import torch, triton; print(torch.__version__, triton.__version__)" >> $OUT/gpu.txt
timeout 200 python3 -m pytest -q -m gpu tests/kernels/test_gluon_fwd.py -k "split" -p no:cacheprovider -x > $OUT/gpu_tests_split.log 2>&1; tail -3 $OUT/gpu_tests_split.log
G1='flashcore-gluon[block_m=64,block_n=128,num_warps=4,num_stages=2]'
S2A='flashcore-gluon[block_m=64,block_n=128,num_warps=8,num_stages=1,warp_specialize=1,split_kv=2]'
S2B='flashcore-gluon[block_m=64,block_n=64,num_warps=8,num_stages=2,warp_specialize=1,split_kv=2]'
S3='flashcore-gluon[block_m=64,block_n=64,num_warps=12,num_stages=1,warp_specialize=1,split_kv=3]'
S4A='flashcore-gluon[block_m=64,block_n=64,num_warps=16,num_stages=1,warp_specialize=1,split_kv=4]'
S4B='flashcore-gluon[block_m=64,block_n=64,num_warps=16,num_stages=2,warp_specialize=1,split_kv=4]'
timeout 150 python3 -m flashcore.cli bench --preset seed --providers "flashcore,sdpa-cudnn,$G1,$S2A,$S2B,$S3,$S4A,$S4B" --mode graph --out $OUT/seed --no-plots > $OUT/seed.log 2>&1
python3 .scratch/cells.py $OUT/seed/bench.json
timeout 200 python3 -m flashcore.cli bench --shape 1,8,1024,64 --shape 1,8,2048,64 --shape 1,8,512,128 --shape 1,16,1024,128 --shape 1,8,128,64,8,4096 --dtype fp16 --providers "flashcore,sdpa-cudnn,$S2A,$S2B,$S3,$S4A,$S4B" --mode graph --out $OUT/small --no-plots > $OUT/small.log 2>&1
python3 .scratch/cells.py $OUT/small/bench.json > $OUT/small_cells.txt; cat $OUT/small_cells.txt
