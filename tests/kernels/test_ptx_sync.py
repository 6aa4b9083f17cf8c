"""The PTX pass that drops the partition barriers marked redundant (``ptx_sync``)."""

import pytest
from triton import knobs

from flashcore.kernels import ptx_sync
from flashcore.kernels.ptx_sync import MARK, drop_marked_barriers

# The shape Triton 3.6 emits for a marked release: the mark's asm block, the arrive's
# address arithmetic, the partition barrier, the arrive.
RELEASE = f"""\t// begin inline asm
\t// {MARK} %r9;
\t// end inline asm
\tmad.lo.s32 \t%r2780, %r2564, -32760, %r2567;
\tadd.s32 \t%r2557, %r2780, 196960;
\t.loc\t1 358 24
\tbar.sync \t0, 128;
\t// begin inline asm
\t@%p125 mbarrier.arrive.shared::cta.b64 _, [%r2557];
\t// end inline asm"""

K_WAIT = f"""\t// begin inline asm
\t// {MARK} %r8;
\t// end inline asm
\tshl.b32 \t%r2565, %r2564, 3;
\tbar.sync \t2, 128;
\t// begin inline asm
\t
{{
\t.reg .pred complete;
\twaitLoop:
\tmbarrier.try_wait.parity.shared.b64 complete, [%r2359], %r2360;
\t@!complete bra.uni waitLoop;
}}
\t// end inline asm"""


# A stage-1 refill's TMA copy: the issuing lane is elected after the barrier.
TMA_COPY = f"""\t// begin inline asm
\t// {MARK} %r716
\t// end inline asm
$L__tmp73:
\tadd.s32 \t%r41, %r1701, 128;
\tbar.sync \t0;
\telect.sync \t%r947|%p66, -1;
\tand.pred \t%p67, %p65, %p66;
\tmov.b32 \t%r718, 0;
\t// begin inline asm
\t@%p60 cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%r717], [%rd4, {{%r7}}], [%r5];
\t// end inline asm"""


def _bars(ptx):
    return ptx.count("bar.sync")


@pytest.mark.parametrize("ptx", [RELEASE, K_WAIT, TMA_COPY], ids=["arrive", "wait", "tma-copy"])
def test_a_marked_barrier_before_an_mbarrier_operation_is_dropped(ptx):
    out, marks, dropped = drop_marked_barriers(ptx)
    assert (marks, dropped, _bars(out)) == (1, 1, 0)
    assert out.splitlines() == [line for line in ptx.splitlines() if "bar.sync" not in line]


def test_unmarked_barriers_stay():
    ptx = RELEASE.replace(MARK, "an ordinary comment")
    assert drop_marked_barriers(ptx) == (ptx, 0, 0)


@pytest.mark.parametrize("between", ["\tst.shared.u32 \t[%r5], %r6;", "\tld.shared.u32 \t%r6, [%r5];",
                                     "\twgmma.wait_group.sync.aligned 0;", "\t@%p3 bra \t$L__BB0_4;",
                                     "$L__BB0_31:", "\tbar.sync \t0, 128;"])
def test_anything_but_arithmetic_before_the_barrier_keeps_it(between):
    lines = RELEASE.splitlines()
    ptx = "\n".join(lines[:3] + [between] + lines[3:])
    out, marks, dropped = drop_marked_barriers(ptx)
    assert (marks, dropped) == (1, 0) and out == ptx


@pytest.mark.parametrize("after", ["\tst.shared.u32 \t[%r5], %r6;", "\tld.shared.u32 \t%r6, [%r5];",
                                   "\twgmma.fence.sync.aligned;"])
def test_a_barrier_not_followed_by_an_mbarrier_operation_or_a_tma_copy_stays(after):
    lines = RELEASE.splitlines()
    barrier = lines.index("\tbar.sync \t0, 128;")
    ptx = "\n".join(lines[:barrier + 1] + [after] + lines[barrier + 1:])
    assert drop_marked_barriers(ptx)[2] == 0


def test_the_hook_chains_the_one_before_it_and_installs_once(monkeypatch):
    seen = []
    monkeypatch.setattr(knobs.runtime, "add_stages_inspection_hook", lambda *a: seen.append(a))
    ptx_sync.install()
    ptx_sync.install()
    stages = {"ptx": lambda src, metadata: RELEASE}
    knobs.runtime.add_stages_inspection_hook(None, stages, None, None, 90)
    assert len(seen) == 1
    assert _bars(stages["ptx"](None, {})) == 0
