#!/bin/bash
# Call 2 (call 1: the lead's first build faulted, an illegal instruction, on its negative TMA
# coordinates; now Q loads from row 0 for a lead's rows and their O is not stored): the first
# test that faulted, under compute-sanitizer if it fails again; then call 1's plan.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/2-lead; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-causal-lead/scripts
T="tests/kernels/test_gluon_fwd.py::test_against_reference[B2-Hq3-Hkv3-Sq7-Sk7-D64-causal-fp16-bhsd-192x128s3-ws-pp-persistent-maxfree]"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout 90 python -m pytest -m gpu -q -p no:cacheprovider "$T" > $R/first.log 2>&1
rc=$?; echo "first test rc=$rc: $(tail -1 $R/first.log)"
if [ $rc -ne 0 ]; then
  timeout 200 compute-sanitizer --print-limit 5 python -m pytest -m gpu -q -p no:cacheprovider "$T" > $R/sanitizer.log 2>&1
  grep -m12 -E "Invalid|Error|at 0x|by thread" $R/sanitizer.log
  cd $OUT && tar czf 2-lead.tgz 2-lead; exit 1
fi
OUT=$R DTYPE=bf16 LONG_MS=600 timeout 320 python -u $S/lead.py > $R/console-bf16.log 2>&1
echo "lead bf16 rc=$?"; grep -E "causal \(|short" $R/console-bf16.log | cut -c1-200
timeout 170 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py -k "$(cat $S/tests.k)" \
  > $R/tests.log 2>&1
echo "tests rc=$?: $(tail -1 $R/tests.log)"; grep FAILED $R/tests.log | head -5
cd $OUT && tar czf 2-lead.tgz 2-lead
