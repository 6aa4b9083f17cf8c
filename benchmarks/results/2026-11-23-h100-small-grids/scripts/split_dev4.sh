export PYTHONPATH=$PWD/src FLASHCORE_GIT_SHA=$SHA
python3 .scratch/hostprof.py 2>&1 | grep -v Warning | head -3 > $OUT/hostprof.log; cat $OUT/hostprof.log
timeout 300 python3 -m pytest -q -m gpu tests/kernels/test_gluon_fwd.py tests/test_plans.py tests/test_api.py -k "plan or split or small or graph or api" -p no:cacheprovider > $OUT/gpu_tests.log 2>&1; tail -3 $OUT/gpu_tests.log
timeout 150 python3 -m flashcore.cli bench --preset seed --providers "flashcore,flashcore-triton,sdpa-cudnn,sdpa-flash" --mode both --out $OUT/seed --no-plots > $OUT/seed.log 2>&1
python3 .scratch/cells.py $OUT/seed/bench.json | grep -v "^ *$" | sed 's/ok=True ok//'
