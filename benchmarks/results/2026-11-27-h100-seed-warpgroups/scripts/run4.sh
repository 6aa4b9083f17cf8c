#!/bin/bash
# Call 48 (wheels carried by calls 37-47 and this one, as for run2.sh): the seed preset at the
# bench's graph span and a 20x longer one.
set -u
mkdir -p /tmp/peers && cp .peers/h05/* /tmp/peers/
[ -d /tmp/site/flash_attn ] || source .peers/p/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
S=benchmarks/results/2026-11-27-h100-seed-warpgroups/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
timeout 400 python $S/graph_span.py > $OUT/span.log 2>&1
cd $OUT; python - <<'PY'
import glob, json
for f in sorted(glob.glob("span-*/bench.json")):
    d = json.load(open(f))
    print(f.split("/")[0], " ".join(f"{r['provider'][:9]}:B{r['B']}{'c' if r['causal'] else 'f'}={r['median_us']:.2f}({r['calls_per_sample']})"
                                    for r in d["records"] if r["mode"] == "graph"))
PY
tar czf span.tgz span-* && rm -rf span-*; tail -3 span.log
