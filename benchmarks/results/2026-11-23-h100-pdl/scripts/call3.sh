export PYTHONPATH=$PWD/src
python3 .scratch/pdl/trig.py 2>&1 | grep -v Warn > $OUT/trig.log
python3 -m pytest -q -m gpu tests/test_api.py tests/test_plans.py tests/bench -p no:cacheprovider > $OUT/gpu_tests_api_plans_bench.log 2>&1
python3 -m pytest -q -m gpu tests/kernels/test_triton_fwd_gpu.py tests/kernels/test_hopper_fwd.py -p no:cacheprovider > $OUT/gpu_tests_triton.log 2>&1
cat $OUT/trig.log; tail -2 $OUT/gpu_tests_api_plans_bench.log $OUT/gpu_tests_triton.log
