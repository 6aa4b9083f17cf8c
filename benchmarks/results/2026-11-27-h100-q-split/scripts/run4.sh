#!/bin/bash
# Call 4: DRAM bytes of one D=128 S=4k causal launch against the chunk of heads (ncu).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/4-chunk-bytes; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-q-split/scripts
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum
for c in 0 12 8 6 4 2 64; do
  CHUNK=$c timeout 100 $NCU --metrics $M -k regex:gluon --launch-skip 3 --launch-count 1 --csv \
    python $S/ncu_chunk.py > $R/chunk-$c.csv 2> $R/chunk-$c.err
  echo "chunk $c: $(grep -E 'gpu__time|dram__bytes|lts__' $R/chunk-$c.csv | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}')"
done
cd $OUT && tar czf 4-chunk-bytes.tgz 4-chunk-bytes
