#!/bin/bash
# call B: FA4 installed from .peers/b (call A copied .peers/a to /tmp/peers)
source .peers/b/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:$PYTHONPATH FLASHCORE_GIT_SHA=$1
NCU=/usr/local/cuda/bin/ncu
$NCU --version > $OUT/ncu_version.txt 2>&1
$NCU --query-metrics --chip gh100 > $OUT/query.txt 2>&1
EXTRA=""
for m in smsp__issue_active.avg.pct_of_peak_sustained_active smsp__inst_executed.sum sm__cycles_elapsed.avg \
  smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_wait_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_membar_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_selected_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_misc_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio \
  smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio; do
  grep -q "^${m%%.*} " $OUT/query.txt && EXTRA="$EXTRA,$m" || echo "not on gh100: $m" >> $OUT/skipped_metrics.txt
done
EXTRA=${EXTRA#,}
run() {  # name shape [--causal]
  timeout 200 python3 -m flashcore.cli profile --shape $2 $3 --dtype bf16 --provider flashcore,sdpa-cudnn,fa4 \
    --extra-metrics "$EXTRA" --out $OUT/$1.json > $OUT/$1.txt 2>&1
  echo "== $1 rc=$?"; grep -E "duration|tensor pipe|kernel " $OUT/$1.txt
}
run d128_full_s16k 1,16,16384,128
run d64_causal_s8k 2,32,8192,64 --causal
run d128_causal_s512 32,16,512,128 --causal
