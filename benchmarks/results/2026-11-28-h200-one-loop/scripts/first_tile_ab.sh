#!/bin/bash
# Session 58, call 13 (the budget's last 221 s): first_tile.sh's A B B A read alone, without its
# GPU tests (variants.py still checks every run against the fp64 reference), on five cells.
set -u
rm -rf /tmp/base_src && mkdir -p /tmp/base_src && cp -r src /tmp/base_src/
git apply benchmarks/results/2026-11-28-h200-one-loop/patches/first_tile_mask.patch || exit 1
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
CELLS="2,8,8,3000,16,1 2,8,8,3000,24,1 2,8,8,3000,32,1 1,32,8,8192,32,1 2,8,8,3000,64,1"
R=$OUT/ab; mkdir -p $R
i=0
for tree in base patched patched base; do
  i=$((i+1))
  if [ $tree = base ]; then src=/tmp/base_src/src; else src=$PWD/src; fi
  PYTHONPATH=$src OUT=$R DTYPE=bf16 PEERS= LONG_MS=150 NAME=$i-$tree BASE=auto VARIANTS="" D16_CELLS="$CELLS" \
    timeout ${KT:-38} python $V > $R/$i-$tree.log 2>&1
  echo "$i $tree rc=$?"
done
sed -n '/^python - \$R <<.PY./,/^PY$/p' benchmarks/results/2026-11-28-h200-one-loop/scripts/call4.sh | sed '1d;$d' \
  | sed 's/endswith("old")/endswith("base")/; s/endswith("new")/endswith("patched")/' > /tmp/ab.py
python /tmp/ab.py $R | tee $R/summary.txt
grep -h "FAIL\|wrong\|not ok" $R/*.log | head
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
