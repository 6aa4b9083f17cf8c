#!/bin/bash
# Session 59, call 1 (first_tile.sh of session 58 with the D=48 masked-tiles test added). patches/first_tile_mask.patch: on the D=32
# build's three-warpgroup blocks the peeled first tile is masked only where the loop would mask
# it (n_full == 0), as every other build does; v25 kept the mask unconditional for three
# warpgroups after D=64's 192x128 read 0.97 without it, on a code layout that v67 showed can
# turn such reads. Most items' first tile is whole, so ~130 instructions a consumer leave each
# item's serial path (spill-free offline at D=16 / 24 / 32, pairs, drawn and full, both dtypes).
# 1. GPU tests of the D=16-32 builds with the patch. 2. This tree against the patched one,
#    A B B A in separate processes (as call 4), bf16.
set -u
rm -rf /tmp/base_src && mkdir -p /tmp/base_src && cp -r src /tmp/base_src/
git apply benchmarks/results/2026-11-28-h200-one-loop/patches/first_tile_mask.patch || exit 1
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
mkdir -p $OUT/tests
timeout ${KT_TESTS:-170} python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py -m gpu \
  -k "D16 or D24 or D32 or d16 or d24 or d32 or pairs or causal_plan_pieces or masked_tiles" > $OUT/tests/tests.log 2>&1
echo "tests rc=$?"; tail -n 2 $OUT/tests/tests.log
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
CELLS="2,8,8,3000,16,1 2,8,8,3000,24,1 2,8,8,3000,32,1 1,32,8,8192,32,1 2,8,8,3000,32,0 2,8,8,3000,64,1"
R=$OUT/ab; mkdir -p $R
i=0
for tree in base patched patched base; do
  i=$((i+1))
  if [ $tree = base ]; then src=/tmp/base_src/src; else src=$PWD/src; fi
  PYTHONPATH=$src OUT=$R DTYPE=${DT:-bf16} PEERS= LONG_MS=200 NAME=$i-$tree BASE=auto VARIANTS="" D16_CELLS="$CELLS" \
    timeout ${KT:-100} python $V > $R/$i-$tree.log 2>&1
  echo "$i $tree rc=$?"
done
sed -n '/^python - \$R <<.PY./,/^PY$/p' benchmarks/results/2026-11-28-h200-one-loop/scripts/call4.sh | sed '1d;$d' \
  | sed 's/"old"/"base"/; s/endswith("old")/endswith("base")/; s/endswith("new")/endswith("patched")/' > /tmp/ab.py
python /tmp/ab.py $R | tee $R/summary.txt
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
