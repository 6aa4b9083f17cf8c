export PYTHONPATH=$PWD/src
cd .scratch/pdl
for rep in 1 2; do
for shape in "2 512 64 F" "1 512 64 F" "2 512 64 C" "1 2048 64 F"; do
  for v in late early none; do timeout 60 python3 stress.py $v $shape 2>&1 | grep -v Warn | tail -1; done
done; done | tee $OUT/stress.log
