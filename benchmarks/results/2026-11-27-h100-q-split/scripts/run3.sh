#!/bin/bash
# Call 3: DRAM and L2 bytes of one launch (ncu, caches flushed before it, as the bench's rotation
# keeps inputs out of L2) for the two cells of call 2, flashcore and cuDNN.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/3-bytes; mkdir -p $R
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
for spec in "4,16,4096,128 --causal" "2,32,8192,64" "2,16,8192,128"; do
  tag=$(echo $spec | tr ', -' '___')
  timeout 170 python -m flashcore.cli profile --shape $spec --dtype bf16 --provider flashcore,sdpa-cudnn \
    --extra-metrics $M --out $R/$tag.json > $R/$tag.log 2>&1
  echo "$spec rc=$?"; grep -iE "dram__bytes|lts__t_sectors|duration" $R/$tag.log | head -20
done
cd $OUT && tar czf 3-bytes.tgz 3-bytes
