#!/bin/bash
# The shipped stream-K rule for D=80 / 96 full 192x64 items (D=96's merge now a part at a time,
# spill-free offline): GPU tests of the stream-K merges, the parts builds and auto's picks; then
# knobs.py, auto (now stream-K where stream_k_pays) against whole items, both dtypes, no peers.
set -u
R=$OUT/shipped; mkdir -p $R
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout ${KT_TESTS:-240} python -m pytest -q -m gpu tests/kernels/test_gluon_fwd.py -n ${NPROC:-6} -rfE -p no:cacheprovider \
  -k "${TESTS_K:-stream_k or auto_cuts or 192x64_on_full}" --junitxml=$R/tests.xml > $R/tests.log 2>&1
echo "tests rc=$? $(tail -n 1 $R/tests.log)"
K=benchmarks/results/2026-11-28-h100-tune-trailing/scripts/knobs.py
export OUT=$R PEERS= LONG_MS=${LONG_MS:-400}
CELLS=${CELLS:-"2,16,16,4096,96,0 4,16,16,2048,96,0 1,16,16,8192,80,0 16,16,16,2048,96,0 2,8,8,3000,96,0"}
for dt in ${DTS:-bf16 fp16}; do
  DTYPE=$dt KNOB_NAME=shipped KNOB_CELLS="$CELLS" KNOB_VARIANTS="whole:stream_k=0" API=1 timeout ${KT:-150} python $K > $R/knobs-$dt.out 2>&1
  echo "$dt rc=$?"
done
grep -h "^B\|^   \|FAILED\|Error" $R/knobs-*.out | cut -c1-200 | tail -40
cd $OUT && tar czf shipped.tgz shipped
