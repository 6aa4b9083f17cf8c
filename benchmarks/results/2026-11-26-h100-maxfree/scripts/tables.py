"""README rows (standard, gqa) from one graph-mode bench.json, beside an older run's cells.
argv: this run's folder [, an older run's folder for the 'before' column]."""
import json
import math
import pathlib
import sys

from flashcore.bench import report

PEERS = ("sdpa-cudnn", "fa4", "sdpa-flash")


def load(folder):
    return json.load(open(pathlib.Path(folder) / "bench.json"))["records"]


def get(recs, pre, prov, **kw):
    for r in recs:
        same = r["preset"] == pre and r["mode"] == "graph" and r["provider"] == prov
        if same and all(r[k] == v for k, v in kw.items()):
            return r


def ratio(recs, pre, **kw):
    t = {p: get(recs, pre, p, **kw) for p in ("flashcore",) + PEERS}
    best = min(t[p]["median_us"] for p in PEERS if t[p] and t[p]["correct"])
    return t, best / t["flashcore"]["median_us"]


D = pathlib.Path(sys.argv[1])
recs = load(D)
old = load(sys.argv[2]) if len(sys.argv) > 2 else None
print(len(recs), "records", sum(r["correct"] for r in recs), "correct")
report.plot_tflops(recs, D)
for pre, dims, seqs in (("standard", (64, 128), (512, 1024, 2048, 4096, 8192, 16384)),
                        ("gqa", (128,), (1024, 2048, 4096, 8192, 16384))):
    rs, olds = [], []
    for dd in dims:
        for s in seqs:
            row, before = {}, {}
            for c in (False, True):
                row[c] = ratio(recs, pre, D=dd, Sq=s, causal=c)
                rs.append(row[c][1])
                if old:
                    before[c] = ratio(old, pre, D=dd, Sq=s, causal=c)
                    olds.append(before[c][1])
            f = lambda p, r=row: f"{r[False][0][p]['tflops']:.0f} / {r[True][0][p]['tflops']:.0f}"
            lab = f"{s // 1024}k" if s >= 1024 else str(s)
            was = f" | {f('flashcore', before)}" if old else ""
            print(f"| D={dd} S={lab} | {f('flashcore')} | {f('sdpa-cudnn')} | {f('fa4')} | "
                  f"{row[False][1]:.2f} / {row[True][1]:.2f}{was} |")
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    print(pre, "geomean", round(geo(rs), 3), "cells >= 1:", sum(r >= 1 for r in rs), "of", len(rs),
          *(("before", round(geo(olds), 3)) if old else ()))
