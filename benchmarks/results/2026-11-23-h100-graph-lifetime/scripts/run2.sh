export PYTHONPATH=$PWD/src FLASHCORE_GIT_SHA=$SHA
python3 .scratch/pdlgate/pair.py > $OUT/pair.log 2>&1; echo "pair rc=$?" >> $OUT/pair.log
for tag in head fix; do
  src=src; [ $tag = head ] && src=.scratch/head/src
  for b in 1 2; do TAG=$tag PYTHONPATH=$PWD/$src python3 .scratch/pdlgate/host_plan.py $b > $OUT/host-$tag-b$b.log 2>&1; done
done
cat $OUT/pair.log; grep -h "attention\|scratch\|capturing\|run()" $OUT/host-*.log
