set -x
rm -rf /tmp/peers && cp -r .peers/a /tmp/peers
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
T="tests/test_plans.py -p no:cacheprovider -q -m gpu"
# 1. the new test against HEAD's src: must fail where a plan owned the scratch
PYTHONPATH=$PWD/.scratch/head/src timeout 200 python3 -m pytest $T -k outlives > $OUT/1-head-test.log 2>&1; echo "rc=$?" >> $OUT/1-head-test.log
# 2. the fix
PYTHONPATH=$PWD/src timeout 250 python3 -m pytest $T tests/test_api.py tests/kernels/test_launch.py > $OUT/2-fix-tests.log 2>&1; echo "rc=$?" >> $OUT/2-fix-tests.log
# 3. the harness flow that faulted: HEAD, then the fix (PDL off, both variants nopdl)
for src in .scratch/head/src src; do
  n=$(echo $src | tr / _)
  FLASHCORE_PDL=0 VARIANTS=nopdl,nopdl FIRST=1 NCASES=3 ROUND_MS=30 ROUNDS=3 OUT=$OUT PYTHONPATH=$PWD/$src timeout 100 python3 -X faulthandler .scratch/graphlife/trig.py > $OUT/3-trig-$n.log 2>&1; echo "rc=$?" >> $OUT/3-trig-$n.log
done
FLASHCORE_PDL=1 NCASES=3 FIRST=1 ROUND_MS=30 ROUNDS=3 OUT=$OUT PYTHONPATH=$PWD/src timeout 100 python3 -X faulthandler .scratch/graphlife/trig.py > $OUT/4-trig-pdl-fix.log 2>&1; echo "rc=$?" >> $OUT/4-trig-pdl-fix.log
tail -n 3 $OUT/*.log
