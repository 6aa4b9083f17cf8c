#!/bin/bash
# Call 6: the turn passes behind the partition barrier (this tree). First the two cells that
# hung (hang.py, 20 s each), then GPU tests of the ping-pong configs on causal cases, then
# turns.py: old against new in alternating processes (bf16, where the old kernel ran).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/6-synced; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-causal-parts/scripts
one() {  # dtype cell config
  DTYPE=$1 CELL=$2 timeout 50 python -u $S/hang.py $3 20 > $R/$3-$1-${2//,/-}.log 2>&1
  echo "$3 $1 $2 rc=$? $(tail -1 $R/$3-$1-${2//,/-}.log | cut -c1-90)"
}
one fp16 8,16,2048,128 s3
one fp16 2,16,8192,64 auto
mapfile -t IDS < $S/pp_causal_ids.txt
timeout 70 python -m pytest -m gpu -q -p no:cacheprovider "${IDS[@]}" > $R/tests.log 2>&1
tail -1 $R/tests.log; grep FAILED $R/tests.log | head -5
for cell in 4,16,4096,128 2,16,8192,64; do
  for v in new old new old; do
    DTYPE=bf16 CELL=$cell timeout 40 python -u $S/turns.py $v 40 2>&1 | tail -1 | tee -a $R/turns.log
  done
done
