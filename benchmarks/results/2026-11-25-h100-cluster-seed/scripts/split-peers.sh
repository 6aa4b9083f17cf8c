#!/usr/bin/env bash
# Re-split the CuTe DSL wheels that ../shared/peers/fetch-fa4.sh downloads (.peers/a, .peers/b)
# into parts that each fit beside the working tree in one device call (64 MiB carry; the tree
# is ~36 MiB since session 26): .peers/w (small wheels), .peers/p1 ... p4 (16 MiB each) and
# .peers/p5 (the last part, the FA4 and quack wheels, and install.sh, so the bench's fa4 peer
# installs with CuTe DSL). On the device, four calls in a row (the machine goes back 30 s after
# a call):
#   1. carry [".peers/w", ".peers/p1"]:  rm -rf /tmp/peers && mkdir -p /tmp/peers && cp .peers/w/* .peers/p1/* /tmp/peers/
#   2. carry [".peers/p2"]:              cp .peers/p2/* /tmp/peers/
#   3. carry [".peers/p3"]:              cp .peers/p3/* /tmp/peers/
#   4. carry [".peers/p4", ".peers/p5"]: cp .peers/p4/* /tmp/peers/; source .peers/p5/install.sh > /tmp/inst.log 2>&1; <command>
# (source it, do not pipe it: a pipe runs it in a subshell and its exports are lost)
# Session 25 and earlier used 22 MiB parts in three calls (w + p1, p2, p3); the tree outgrew it.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)/.peers"
rm -rf w p1 p2 p3 p4 p5 px.* && mkdir -p w p1 p2 p3 p4 p5
cp a/*.whl w/ && rm -f w/flash_attn_4-*.whl w/quack_kernels-*.whl
cat a/cu13.part.aa b/cu13.part.ab | split -b 16M - px.
parts=(px.*)
[ ${#parts[@]} -le 5 ] || { echo "more than five 16 MiB parts: add a folder" >&2; exit 1; }
for i in "${!parts[@]}"; do mv "${parts[$i]}" "p$((i + 1))/"; done
cp a/flash_attn_4-*.whl a/quack_kernels-*.whl p5/
cat > p5/install.sh <<'INNER'
# source me on the GPU machine after /tmp/peers holds .peers/w and p1-p4 (see split-peers.sh)
if [ ! -d /tmp/site/nvidia_cutlass_dsl/cu13 ]; then
  mkdir -p /tmp/site
  here="$(dirname "${BASH_SOURCE[0]}")"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    /tmp/peers/*.whl "$here"/*.whl
  cat /tmp/peers/px.* "$here"/px.* 2>/dev/null | xz -d | tar -C /tmp/site -xf -
fi
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages${PYTHONPATH:+:$PYTHONPATH}
python3 -c "import cutlass.cute" && echo "cutlass.cute importable"
python3 -c "import flash_attn.cute" && echo "flash_attn.cute (FA4) importable"
INNER
du -sh w p1 p2 p3 p4 p5
