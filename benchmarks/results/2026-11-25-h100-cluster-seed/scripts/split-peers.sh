#!/usr/bin/env bash
# Re-split the CuTe DSL wheels that ../shared/peers/fetch-fa4.sh downloads (.peers/a, .peers/b)
# into parts that each fit beside the working tree in one device call (64 MiB carry; the tree
# is ~28 MiB): .peers/w (small wheels) + .peers/p1, then .peers/p2, then .peers/p3 (with the
# FA4 and quack wheels, so the bench's fa4 peer installs with CuTe DSL).
# On the device, three calls in a row (the machine goes back 30 s after a call):
#   1. carry [".peers/w", ".peers/p1"]: rm -rf /tmp/peers && mkdir -p /tmp/peers && cp .peers/w/* .peers/p1/* /tmp/peers/
#   2. carry [".peers/p2"]:             cp .peers/p2/* /tmp/peers/
#   3. carry [".peers/p3"]:             source .peers/p3/install.sh > /tmp/inst.log 2>&1; <command>
# (source it, do not pipe it: a pipe runs it in a subshell and its exports are lost)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)/.peers"
rm -rf w p1 p2 p3 && mkdir -p w p1 p2 p3
cp a/*.whl w/ && rm -f w/flash_attn_4-*.whl w/quack_kernels-*.whl
cat a/cu13.part.aa b/cu13.part.ab | split -b 22M - px.
mv px.aa p1/ && mv px.ab p2/ && mv px.ac p3/
cp a/flash_attn_4-*.whl a/quack_kernels-*.whl p3/
cat > p3/install.sh <<'INNER'
# source me on the GPU machine after /tmp/peers holds .peers/w, p1 and p2 (see split-peers.sh)
if [ ! -d /tmp/site/nvidia_cutlass_dsl/cu13 ]; then
  mkdir -p /tmp/site
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    /tmp/peers/*.whl "$(dirname "${BASH_SOURCE[0]}")"/*.whl
  cat /tmp/peers/px.aa /tmp/peers/px.ab "$(dirname "${BASH_SOURCE[0]}")/px.ac" | xz -d | tar -C /tmp/site -xf -
fi
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages${PYTHONPATH:+:$PYTHONPATH}
python3 -c "import cutlass.cute" && echo "cutlass.cute importable"
python3 -c "import flash_attn.cute" && echo "flash_attn.cute (FA4) importable"
INNER
du -sh w p1 p2 p3
