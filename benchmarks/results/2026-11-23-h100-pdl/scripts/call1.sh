set -x
export PYTHONPATH=$PWD/src
nvidia-smi --query-gpu=name,driver_version,clocks.current.sm,temperature.gpu --format=csv > $OUT/gpu.txt
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.backends.cudnn.version())" >> $OUT/gpu.txt
python3 -m pytest -q -m gpu tests/test_plans.py -p no:cacheprovider > $OUT/gpu_tests_plans.log 2>&1
tail -3 $OUT/gpu_tests_plans.log
python3 -m flashcore.cli bench --preset seed --providers flashcore,flashcore-nopdl,sdpa-cudnn,sdpa-flash --mode both --out $OUT/seed --no-plots > $OUT/seed.log 2>&1
python3 -m flashcore.cli bench --shape 1,8,2048,64 --shape 1,8,2048,128 --shape 1,8,256,64,8,4096 --shape 32,16,512,128 --shape 16,16,1024,128 --dtype bf16 --providers flashcore,flashcore-nopdl,sdpa-cudnn --mode graph --out $OUT/small --no-plots > $OUT/small.log 2>&1
python3 -m flashcore.cli bench --preset odd --providers flashcore,flashcore-nopdl --mode graph --out $OUT/odd --no-plots --rep-ms 60 > $OUT/odd.log 2>&1
for d in seed small odd; do python3 .scratch/cells.py $OUT/$d/bench.json > $OUT/${d}_cells.txt; done
cat $OUT/seed_cells.txt $OUT/small_cells.txt
grep -c "ok=True" $OUT/odd_cells.txt; grep "ok=False\|error" $OUT/odd_cells.txt | head
