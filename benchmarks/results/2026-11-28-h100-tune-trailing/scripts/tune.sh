#!/bin/bash
# flashcore tune on the cells where a peer still leads or a target is missed (kernel log
# v60-v61): one dtype and mask set a call. Usage: tune.sh <name> <dtype> <causal> <shape>...
# Peers: cuDNN only (FA4 is not installed on a fresh machine); a bucket's proposal needs
# the confirming rounds' paired gain over the heuristic, which does not depend on the peer.
set -u
NAME=$1; DT=$2; CAUSAL=$3; shift 3
R=$OUT/$NAME; mkdir -p $R
SHAPES=(); for s in "$@"; do SHAPES+=(--shape "$s"); done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
python -m flashcore.tune.cli tune "${SHAPES[@]}" --dtype $DT --causal $CAUSAL --peer sdpa-cudnn \
  --time ${TUNE_TIME:-300} --budget 24 --population 8 --elites 3 --patience 2 --timeout 60 \
  --warmup-ms 10 --rep-ms 40 --confirm-rounds 6 --confirm-ms 600 --out $R > $R/tune.log 2>&1
echo "tune rc=$?"; tail -40 $R/tune.log
cd $OUT && tar czf $NAME.tgz $NAME && rm -rf $NAME
