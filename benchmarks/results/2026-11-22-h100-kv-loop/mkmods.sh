# Build absolute-import module copies of the kernel variants for the paired harness.
set -e
. .venv/bin/activate; export PYTHONPATH=$PWD/src
abs() { sed -e 's/^from \.\.reference import/from flashcore.reference import/' -e 's/^from \.launch import/from flashcore.kernels.launch import/' -e 's/^from \.triton_fwd import/from flashcore.kernels.triton_fwd import/' "$1" > "$2"; }
mk() { name=$1; shift; python .scratch/ov/patch.py "$@"; abs src/flashcore/kernels/gluon_fwd.py .scratch/ov/gf_$name.py; }
mk orig
mk pin pin_sts
mk pinearly pin_sts rescale_early
mk rowred rowred
mk pre pin_sts rescale_early rowred
python .scratch/ov/patch.py
