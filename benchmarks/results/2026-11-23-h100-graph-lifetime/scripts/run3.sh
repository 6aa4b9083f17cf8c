export PYTHONPATH=$PWD/src FLASHCORE_GIT_SHA=$SHA
timeout 200 python3 -m pytest -q -m gpu tests/test_plans.py tests/test_api.py tests/kernels/test_launch.py tests/bench -p no:cacheprovider > $OUT/gpu_tests_api_plans_bench-$SHA.log 2>&1; echo "rc=$?" >> $OUT/gpu_tests_api_plans_bench-$SHA.log
timeout 150 python3 -m pytest -q -m gpu tests/kernels/test_triton_fwd_gpu.py tests/kernels/test_hopper_fwd.py -p no:cacheprovider > $OUT/gpu_tests_triton-$SHA.log 2>&1; echo "rc=$?" >> $OUT/gpu_tests_triton-$SHA.log
ONLY=0,4,10,11 python3 .scratch/pdlgate/pair.py > $OUT/pair-gate.log 2>&1
for b in 1 2; do TAG=$SHA python3 .scratch/pdlgate/host_plan.py $b > $OUT/host-$SHA-b$b.log 2>&1; done
timeout 150 python3 -m flashcore.cli bench --preset seed --providers flashcore,flashcore-triton,sdpa-cudnn,sdpa-flash --mode both --out $OUT/seed --no-plots > $OUT/seed-console.log 2>&1
tail -n 2 $OUT/gpu_tests_*.log; cat $OUT/pair-gate.log; grep -h "attention\|run()\|empty_like" $OUT/host-*.log
