#!/bin/bash
# Call 5: flashcore tune (the evolutionary search, its correctness gate, and the confirming
# turns of --confirm-ms added in v48, first run on a GPU here) on the two standard cells
# furthest from a target: D=128 S=512 causal (0.97 of cuDNN) and D=128 S=4k causal (593 of 610 TF).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/5-tune; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout 560 python -m flashcore.cli tune --shape 32,16,512,128 --shape 4,16,4096,128 --causal on --dtype bf16 \
  --time 330 --budget 16 --population 6 --elites 3 --patience 2 --timeout 60 --peer sdpa-cudnn \
  --confirm-rounds 4 --confirm-ms 800 --out $R > $R/console.log 2>&1
echo rc=$? >> $R/console.log
tail -40 $R/console.log
cd $OUT && tar czf 5-tune.tgz 5-tune && rm -rf 5-tune
