#!/bin/bash
# Not run (session 59's device time was spent). patches/d16_o_width.patch: D=16 on the D=32
# build accumulates O on its own 16 columns (P V on m64n16k16, not the padded m64n32k16), as
# ``o_parts``' docstring already describes for a D of half its build; the heuristic keeps its
# configs (``_parts_config`` only where O runs in two parts; 1408 cells checked offline, none
# differ). Offline: spill-free at D=16 pairs / drawn / full / stage 1, both dtypes; the loops
# 4-14 instructions shorter, the binaries 150-240. v68: D=16 runs as slowly as D=32 (37.0
# against 37.7 us) where FA4 gains 2 us; prediction +1-3% at D=16.
# 1. GPU tests of D=16 with the patch. 2. This tree against the patched one, A B B A, bf16.
set -u
rm -rf /tmp/base_src && mkdir -p /tmp/base_src && cp -r src /tmp/base_src/
git apply benchmarks/results/2026-11-28-h200-first-tile/patches/d16_o_width.patch || exit 1
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
mkdir -p $OUT/tests
timeout ${KT_TESTS:-150} python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py -m gpu -k "D16 or d16" \
  > $OUT/tests/tests.log 2>&1
echo "tests rc=$?"; tail -n 2 $OUT/tests/tests.log
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
CELLS="2,8,8,3000,16,1 1,16,16,3000,16,1 1,32,8,8192,16,1 2,8,8,3000,16,0 8,64,64,2048,16,1 16,128,128,1024,16,0"
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
