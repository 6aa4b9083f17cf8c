#!/bin/bash
# Call 5: tail.py. ncu (DRAM bytes and time of one D=128 S=4k causal launch at ncu's clocks) for
# the tree and the tail orders with chunks of 2 and 4, then the long windows in bf16 (three
# cells) and fp16 (S=4k).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/5-tail; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-q-split/scripts
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
for c in 0 2 4; do
  MODE=ncu CHUNK=$c timeout 100 $NCU --metrics $M -k regex:gluon --launch-skip 3 --launch-count 1 --csv \
    python $S/tail.py > $R/ncu-$c.csv 2> $R/ncu-$c.err
  echo "chunk $c: $(grep -E 'gpu__time|dram__bytes' $R/ncu-$c.csv | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}')"
done
OUT=$R DTYPE=bf16 LONG_MS=800 timeout 300 python -u $S/tail.py > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|short" $R/console-bf16.log | cut -c1-200
OUT=$R DTYPE=fp16 LONG_MS=800 timeout 120 python -u $S/tail.py 4,16,16,4096,128 > $R/console-fp16.log 2>&1
echo "fp16 rc=$?"; grep -E "causal \(|short" $R/console-fp16.log | cut -c1-200
rm -f $R/*.err
cd $OUT && tar czf 5-tail.tgz 5-tail
