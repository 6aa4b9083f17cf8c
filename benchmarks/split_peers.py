"""Split the FA4 / CuTe DSL wheels for the device machine into carry folders that fit beside
the working tree, and print the device calls that install them.

The device machine has no package index, and one call carries the working tree plus the
folders it names, 64 MiB in all. ``../shared/peers/fetch-fa4.sh`` downloads the wheels into
``.peers/a`` and ``.peers/b`` (git-ignored); the CUDA 13 library is one xz stream cut in two
(``cu13.part.aa``, ``cu13.part.ab``). As the committed evidence grows, fixed-size parts stop
fitting (session 51: a 53 MiB tree plus a 9 MiB part was refused), so this sizes the parts
from the tree as it is now:

    python benchmarks/split_peers.py            # writes .peers/carry/NN and .peers/carry/install
    python benchmarks/split_peers.py --plan     # only prints the calls for what is there

Each part is copied into /tmp/peers on the device, one call each, back to back (the machine
goes back after 30 s idle); the last call sources ``install.sh`` and runs the bench. The
stream's pieces are named ``cu13.NNN`` so that ``cat /tmp/peers/cu13.*`` joins them in order.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys

MIB = 1 << 20
CARRY_LIMIT = 64 * MIB
# The device tool counts the tree somewhat above the sum of file sizes (a 53.06 MiB tree plus
# a 9.0 MiB folder was refused), so each part leaves this much room.
MARGIN = 4 * MIB
MAX_PART = 16 * MIB

INSTALL = """# source me on the GPU machine once /tmp/peers holds every part (benchmarks/split_peers.py)
if [ ! -d /tmp/site/nvidia_cutlass_dsl/cu13 ]; then
  rm -rf /tmp/site && mkdir -p /tmp/site
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /tmp/peers/*.whl
  cat /tmp/peers/cu13.* | xz -d | tar -C /tmp/site -xf -
fi
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages${PYTHONPATH:+:$PYTHONPATH}
python3 -c "import cutlass.cute, flash_attn.cute" && echo "CuTe DSL and FA4 importable"
"""


def tree_bytes(root: str) -> int:
    """Bytes of the files a device call carries: tracked, and untracked but not ignored."""
    names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                           check=True, capture_output=True).stdout.split(b"\0")
    paths = (os.path.join(root, n.decode()) for n in names if n)
    return sum(os.path.getsize(p) for p in paths if os.path.isfile(p))


def part_budget(tree: int) -> int:
    """The largest part that fits beside ``tree`` bytes, capped at MAX_PART."""
    budget = min(MAX_PART, CARRY_LIMIT - tree - MARGIN)
    if budget < MIB:
        raise SystemExit(f"the carried tree is {tree / MIB:.1f} MiB: less than 1 MiB is left per part under the "
                         f"{CARRY_LIMIT // MIB} MiB carry limit; move large evidence out of the tree first")
    return budget


def pack(sizes: dict[str, int], budget: int) -> list[list[str]]:
    """Files into as few parts of at most ``budget`` bytes as first-fit-decreasing finds."""
    parts: list[tuple[int, list[str]]] = []
    for name in sorted(sizes, key=lambda n: -sizes[n]):
        if sizes[name] > budget:
            raise SystemExit(f"{name} ({sizes[name] / MIB:.1f} MiB) is larger than a part ({budget / MIB:.1f} MiB)")
        for i, (used, names) in enumerate(parts):
            if used + sizes[name] <= budget:
                parts[i] = (used + sizes[name], names + [name])
                break
        else:
            parts.append((sizes[name], [name]))
    return [names for _, names in parts]


def split(peers: str, budget: int) -> list[str]:
    """Write .peers/carry/NN (wheels, then the cu13 stream's pieces) and carry/install."""
    wheels = {os.path.join(d, f): os.path.getsize(os.path.join(peers, d, f))
              for d in ("a", "b") for f in os.listdir(os.path.join(peers, d)) if f.endswith(".whl")}
    stream = b"".join(open(os.path.join(peers, d, f), "rb").read()
                      for d, f in (("a", "cu13.part.aa"), ("b", "cu13.part.ab")))
    carry = os.path.join(peers, "carry")
    shutil.rmtree(carry, ignore_errors=True)
    folders = []
    for names in pack(wheels, budget):
        folder = os.path.join(carry, f"{len(folders):02d}")
        os.makedirs(folder)
        for name in names:
            shutil.copy(os.path.join(peers, name), folder)
        folders.append(folder)
    for i in range(0, len(stream), budget):
        folder = os.path.join(carry, f"{len(folders):02d}")
        os.makedirs(folder)
        with open(os.path.join(folder, f"cu13.{i // budget:03d}"), "wb") as f:
            f.write(stream[i:i + budget])
        folders.append(folder)
    joined = b"".join(open(os.path.join(d, f), "rb").read() for d in folders for f in sorted(os.listdir(d))
                      if f.startswith("cu13."))
    assert hashlib.sha256(joined).digest() == hashlib.sha256(stream).digest(), "the pieces do not join back"
    os.makedirs(os.path.join(carry, "install"))
    with open(os.path.join(carry, "install", "install.sh"), "w") as f:
        f.write(INSTALL)
    return folders


def plan(root: str, folders: list[str]) -> str:
    """The device calls, in order."""
    rel = [os.path.relpath(f, root) for f in folders]
    lines = [f'1. carry ["{rel[0]}"]: rm -rf /tmp/peers /tmp/site && mkdir -p /tmp/peers && cp {rel[0]}/* /tmp/peers/']
    lines += [f'{i + 2}. carry ["{r}"]: cp {r}/* /tmp/peers/' for i, r in enumerate(rel[1:])]
    lines.append(f'{len(rel) + 1}. carry [".peers/carry/install"]: source .peers/carry/install/install.sh > '
                 "$OUT/install.log 2>&1; <the bench>   (source it: a pipe would lose its PYTHONPATH)")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plan", action="store_true", help="print the calls for the parts already written")
    args = parser.parse_args(argv)
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True, capture_output=True,
                          text=True).stdout.strip()
    peers = os.path.join(root, ".peers")
    if args.plan:
        carry = os.path.join(peers, "carry")
        folders = sorted(os.path.join(carry, d) for d in os.listdir(carry) if d != "install")
    else:
        tree = tree_bytes(root)
        budget = part_budget(tree)
        folders = split(peers, budget)
        print(f"tree {tree / MIB:.1f} MiB: {len(folders)} parts of at most {budget / MIB:.1f} MiB", file=sys.stderr)
    print(plan(root, folders))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
