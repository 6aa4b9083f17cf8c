"""The gpu tier's reference checks of tests/kernels/test_cute_fwd.py, run for chosen configs
only (pytest -k cannot select a parametrized Config): own_rows through the knobs test's
cases, and the rings whose slot and phase now come from a mask and a shift (two and three
slots, warp 0 refilling, a persistent ring whose positions run on across items, RINGS)."""
import os
import sys
import traceback

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../tests/kernels"))
import test_cute_fwd as t  # noqa: E402

C = t.cf.Config
OUT = os.environ.get("OUT", ".")
SETS = [
    (t.test_merge_and_load_order_knobs_match_the_reference, [c for c in t.KNOBS if c.own_rows], t.CASES),
    (t.test_a_ring_matches_the_reference,
     [C(32, 1, 1, stages=3), C(32, 1, 1, stages=2, loader_warp=False), C(64, 1, 1, stages=3, loader_warp=False),
      C(128, 1, 1, wgs=2, stages=2, persistent=True, pinned=True),
      C(96, 1, 1, wgs=3, stages=2, lazy=True, turns=True, persistent=True, pinned=True),
      *sorted(set(t.cf.RINGS.values()), key=str)], t.CASES + t.LONG_CASES),
]
passed = failed = skipped = 0
with open(os.path.join(OUT, "gpu_checks.log"), "w") as log:
    for test, configs, cases in SETS:
        for config in configs:
            for case in cases:
                name = f"{test.__name__} {config} {case}"
                try:
                    test(config, *case)
                    passed += 1
                    log.write(f"PASS {name}\n")
                except pytest.skip.Exception as e:
                    skipped += 1
                    log.write(f"SKIP {name}: {e}\n")
                except Exception:  # noqa: BLE001
                    failed += 1
                    log.write(f"FAIL {name}\n{traceback.format_exc()[-1500:]}\n")
                log.flush()
    summary = f"gpu checks: {passed} passed, {failed} failed, {skipped} skipped"
    log.write(summary + "\n")
print(summary)
