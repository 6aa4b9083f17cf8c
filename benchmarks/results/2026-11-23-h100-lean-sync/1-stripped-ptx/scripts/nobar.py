"""Experiment: drop the warpgroup/CTA barriers that Triton puts in front of single-thread
mbarrier arrives, TMA issues and mbarrier waits inside the innermost KV loops, for kernels
whose name ends in _nobar. (wgmma completion observed by one thread's wait covers the whole
warpgroup's operation, as CUTLASS's consumer_release assumes.)"""
import re
from triton import knobs

SYNC = re.compile(r"^\s*(bar\.sync|barrier\.sync)\b[^;]*;\s*$")
NEXT_OK = re.compile(r"mbarrier\.arrive|mbarrier\.try_wait|cp\.async\.bulk\.tensor")
HEADER = re.compile(r"^(\$L__BB\d+_\d+):")


def innermost_loops(lines):
    spans = []
    for i, l in enumerate(lines):
        m = HEADER.match(l)
        if not m or i + 2 >= len(lines) or "Loop Header" not in "".join(lines[i:i + 4]):
            continue
        label = m.group(1)
        end = None
        for j in range(i + 1, len(lines)):
            if re.search(r"\bbra(\.uni)?\s+" + re.escape(label) + ";", lines[j]):
                end = j
        if end is not None:
            spans.append((i, end))
    return [s for s in spans if not any(o != s and s[0] < o[0] and o[1] <= s[1] for o in spans)]


def strip(ptx, stats=None):
    lines = ptx.split("\n")
    drop = set()
    for a, b in innermost_loops(lines):
        for i in range(a, b):
            if not SYNC.match(lines[i]):
                continue
            k = i + 1
            while k < b and (not lines[k].strip() or lines[k].strip().startswith(("//", ".loc", "{", ".reg", "waitLoop"))):
                k += 1
            if k < b and NEXT_OK.search(lines[k]):
                drop.add(i)
    if stats is not None:
        stats.append(len(drop))
    return "\n".join(l for i, l in enumerate(lines) if i not in drop)


STATS = []


def hook(backend, stages, options, language, capability):
    make_ptx = stages["ptx"]

    def ptx(src, metadata):
        out = make_ptx(src, metadata)
        if metadata.get("name", "").endswith("_nobar"):
            out = strip(out, STATS)
        return out
    stages["ptx"] = ptx


def install():
    knobs.runtime.add_stages_inspection_hook = hook
