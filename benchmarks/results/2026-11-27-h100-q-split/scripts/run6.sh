#!/bin/bash
# Call 6: the causal order of one KV group at a time with a longest-first tail. GPU tests of the
# persistent causal configs and orders (../../2026-11-27-h100-causal-lead/scripts/tests.k); DRAM
# bytes of one launch (ncu) for the tree and the earlier chunks; order.py in bf16.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/6-order; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-q-split/scripts
timeout 150 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py \
  -k "$(cat benchmarks/results/2026-11-27-h100-causal-lead/scripts/tests.k)" > $R/tests.log 2>&1
echo "tests rc=$?: $(tail -1 $R/tests.log)"; grep -E "FAILED|passed|failed" $R/tests.log | head -5
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,dram__bytes_read.sum
for cell in 4,16,16,4096,128 2,16,16,8192,128; do for var in tree chunks; do
  MODE=ncu VARIANT=$var CELL=$cell timeout 100 $NCU --metrics $M -k regex:gluon --launch-skip 3 --launch-count 1 \
    --csv python $S/order.py > $R/ncu-$cell-$var.csv 2> /dev/null
  echo "$cell $var: $(grep -E 'gpu__time|dram__bytes' $R/ncu-$cell-$var.csv | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}')"
done; done
OUT=$R DTYPE=bf16 LONG_MS=800 timeout 250 python -u $S/order.py 4,16,16,4096,128 2,16,16,8192,128 4,32,8,4096,128 \
  2,32,32,8192,64 > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|short" $R/console-bf16.log | cut -c1-200
cd $OUT && tar czf 6-order.tgz 6-order
