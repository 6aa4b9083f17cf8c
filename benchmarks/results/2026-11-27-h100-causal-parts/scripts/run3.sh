#!/bin/bash
# Call 3: hang.py, each config in its own process with a time limit, fp16 then bf16.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/3-hang; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-causal-parts/scripts
for dt in fp16; do
  for c in ${CONFIGS:-auto s3 s2 wide0}; do
    DTYPE=$dt timeout ${LIMIT:-45} python -u $S/hang.py $c ${SECS:-12} > $R/$c-$dt.log 2>&1
    echo "$c $dt rc=$? $(tail -1 $R/$c-$dt.log)"
  done
done
