"""ncu raw CSVs (one kernel each) side by side: the metrics that say where a loop's time goes."""
import csv
import glob
import os
import sys

R = sys.argv[1]
vals, tags = {}, []
for p in sorted(glob.glob(os.path.join(R, "*.csv"))):
    rows = list(csv.reader([line for line in open(p) if line.startswith('"')]))
    if len(rows) < 3:
        continue
    tag = os.path.basename(p)[:-4]
    tags.append(tag)
    for h, d in zip(rows[0], rows[2]):
        vals.setdefault(h, {})[tag] = d
keep = ("issue_stalled", "gpu__time_duration.sum", "pipe_", "issue_active", "sm__cycles_active", "warps_eligible",
        "inst_executed", "registers_per_thread", "Kernel Name", "launch__grid_size", "launch__block_size",
        "shared_mem_per_block", "sass__inst_executed_per_opcode", "sm__throughput")
print(" " * 60, " ".join(f"{t[-24:]:>24}" for t in tags))
for h, v in vals.items():
    if any(k in h for k in keep) and any(v.get(t) not in ("", None, "0") for t in tags):
        name = h.replace("smsp__average_warps_issue_stalled_", "stall_")[:60]
        print(f"{name:60}", " ".join(f"{v.get(t, '')[:24]:>24}" for t in tags))
