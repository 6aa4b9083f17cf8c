#!/bin/bash
# The GPU tier at this tree, on the device: `pytest -m gpu` over FILES (default: every test
# file), NPROC workers, each file's log and junit XML in $OUT, a summary line per file last.
# The Triton cache sits under build/ (git-ignored), so a second call on the same warm machine
# reuses the first one's compiles.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
export TRITON_CACHE_DIR=$PWD/build/tcache
mkdir -p $TRITON_CACHE_DIR
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,memory.total --format=csv > $OUT/gpu.csv
python -c "import torch, triton; print(torch.__version__, triton.__version__, torch.backends.cudnn.version())" > $OUT/versions.txt 2>&1
python -c "from flashcore.bench.runner import source_digest; print(source_digest())" >> $OUT/versions.txt 2>&1
for f in ${FILES:-tests}; do
  name=$(echo $f | tr '/:' '__')
  timeout ${KT:-570} python -m pytest -q -m gpu $f -n ${NPROC:-14} -rfE -p no:cacheprovider \
    --junitxml=$OUT/$name.xml ${EXTRA:-} > $OUT/$name.log 2>&1
  echo "$f rc=$? $(tail -n 1 $OUT/$name.log)" | tee -a $OUT/summary.txt
done
# IDS=file: one more run over the node ids listed in it (call 2: the last 40% of
# test_gluon_fwd.py in collection order, which call 1's time limit cut).
if [ -n "${IDS:-}" ]; then
  timeout ${KT_IDS:-300} python -m pytest -q -m gpu $(cat $IDS) -n ${NPROC:-14} -rfE -p no:cacheprovider \
    --junitxml=$OUT/ids.xml > $OUT/ids.log 2>&1
  echo "$IDS rc=$? $(tail -n 1 $OUT/ids.log)" | tee -a $OUT/summary.txt
fi
