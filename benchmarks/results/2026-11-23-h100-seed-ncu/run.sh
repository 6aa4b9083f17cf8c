export PYTHONPATH=$PWD/src
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" > $OUT/seed-ncu.txt
$NCU --version >> $OUT/seed-ncu.txt 2>&1
# 5th launch of each mask (warm): full, then causal
timeout 400 $NCU --kernel-name regex:gluon --launch-skip 4 --launch-count 1 --set full --page details --print-units base python3 .scratch/seedncu/seed.py >> $OUT/seed-ncu.txt 2>&1
timeout 300 $NCU --kernel-name regex:gluon --launch-skip 10 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --page details python3 .scratch/seedncu/seed.py > $OUT/seed-ncu-causal.txt 2>&1
grep -E "Duration|Elapsed Cycles|SM Active Cycles|Registers Per|Achieved Occupancy|Theoretical Occupancy|Stall|Warp Cycles Per Issued|Issue Slots Busy|Compute \(SM\) Throughput|Memory Throughput|Block Size|Grid Size|Waves Per SM" $OUT/seed-ncu.txt | head -60
