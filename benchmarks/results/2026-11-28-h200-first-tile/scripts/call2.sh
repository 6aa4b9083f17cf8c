#!/bin/bash
# Session 59, call 2: patches/causal_first_tile.patch makes every three-warpgroup build mask the
# peeled first tile only where n_full == 0 on causal rows (the D=64 build's 192x128, D=128's
# 192x64 s3), and always on full rows (as before call 1, which read the D=32 build's full rows
# 0.994 with the condition; D=128's full 192x64 spills 36 B without the always-mask). Spill-free
# offline at D=16-128, both dtypes (the default gate). 1. This tree (base) against the patched
# one, A B B A in separate processes, bf16. 2. GPU tests of the patched causal three-warpgroup
# configs, the pairs and the causal plan pieces at D=40-128.
set -u
rm -rf /tmp/base_src && mkdir -p /tmp/base_src && cp -r src /tmp/base_src/
git apply benchmarks/results/2026-11-28-h200-first-tile/patches/causal_first_tile.patch || exit 1
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
CELLS="2,8,8,3000,48,1 2,8,8,3000,64,1 1,32,8,8192,64,1 1,16,16,8192,64,1 2,16,16,4096,128,1 4,16,16,2048,128,1 2,8,8,3000,32,0"
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
mkdir -p $OUT/tests
timeout ${KT_TESTS:-200} python -m pytest -q -n 12 tests/kernels/test_gluon_fwd.py -m gpu \
  -k "(causal and (192x128 or 192x64) or pairs or causal_plan_pieces) and not D16 and not D24 and not D32" > $OUT/tests/tests.log 2>&1
echo "tests rc=$?"; tail -n 2 $OUT/tests/tests.log
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
