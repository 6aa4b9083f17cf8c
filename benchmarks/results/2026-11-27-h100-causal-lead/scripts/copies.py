"""A second copy of gluon_fwd with some of its Gluon helpers replaced, whose kernels build
their own binaries. Replacing a helper in the tree's module after import does not do that:
building ``_LAUNCHERS`` hashed the kernels (dict keys), which fixed their cache keys, so
Triton's disk cache hands back the tree's binary once any process on the machine has built
it (checked offline: the same PTX). v52's turns.py and v53's cost.py compared such copies of
one binary. lead.py builds its copy the same way, inline."""
import importlib.util
import sys

from triton.runtime.jit import JITCallable

from flashcore.kernels import gluon_fwd as gf


def patched_copy(name, **helpers):
    """gluon_fwd loaded again as ``flashcore.kernels.gluon_fwd_<name>`` with ``helpers`` in
    place of its own, every Gluon function's cache key unset and its launchers rebuilt."""
    spec = importlib.util.spec_from_file_location(f"flashcore.kernels.gluon_fwd_{name}", gf.__file__)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    for key, fn in helpers.items():
        setattr(mod, key, fn)
    for fn in vars(mod).values():
        if isinstance(fn, JITCallable):
            fn.hash = None
    mod._LAUNCHERS = {fn: mod.CachedLauncher(fn) for fn in mod._LAUNCHERS}
    assert mod._gluon_fwd_ws_kernel.cache_key != gf._gluon_fwd_ws_kernel.cache_key
    return mod
