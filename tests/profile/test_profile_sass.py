"""``flashcore profile --sass``: the KV loops of a compiled kernel, and their common path."""

import json

import pytest

from flashcore.profile import cli, sass


def _sass(*rows):
    """cuobjdump -sass lines for (address, instruction) rows."""
    return "\n".join(f"        /*{a:04x}*/                   {t} ;                /* 0x000000000000000 */"
                     for a, t in rows)


# A loop 0x10-0xd0 with a vote-guarded skip (0x60-0x80), a branch on a compare (kept), and, after
# the EXIT, a wait's retry block that jumps back into the loop (not a loop of its own).
PROGRAM = _sass(
    (0x00, "MOV R1, c[0x0][0x28]"),
    (0x10, "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], RZ, !UPT"),
    (0x20, "MUFU.EX2 R3, R4"),
    (0x30, "FSETP.GTU.AND P0, PT, R3, 256, PT"),
    (0x40, "VOTE.ANY P0, P0"),
    (0x50, "@!P0 BRA 0x90"),
    (0x60, "FMUL R5, R5, R6"),
    (0x70, "FMUL R7, R7, R6"),
    (0x80, "MUFU.EX2 R8, R9"),
    (0x90, "ISETP.NE.AND P1, PT, R2, RZ, PT"),
    (0xa0, "@P1 BRA 0xc0"),
    (0xb0, "FADD R10, R10, R11"),
    (0xc0, "F2FP.BF16.F32.PACK_AB R12, R13, R14"),
    (0xd0, "@P2 BRA 0x10"),
    (0xe0, "EXIT"),
    (0xf0, "BRA 0x20"),
)


def test_instructions_read_their_opcode_predicate_destination_and_target():
    mov, hgmma, *_ = sass.parse(PROGRAM)
    assert (mov.addr, mov.opcode, mov.predicate, mov.dest, mov.target) == (0, "MOV", None, "R1", None)
    assert hgmma.opcode == "HGMMA" and hgmma.dest == "R24"
    skip = sass.parse(PROGRAM)[5]
    assert (skip.opcode, skip.predicate, skip.target) == ("BRA", "P0", 0x90)


def test_the_common_path_leaves_out_only_what_a_voted_branch_skips():
    (loop,) = sass.loops(sass.parse(PROGRAM))
    assert (loop.start, loop.end, loop.instructions) == (0x10, 0xd0, 13)
    assert loop.skipped == ((0x50, 0x90),)  # the compare's branch at 0xa0 stays on the path
    assert loop.common == 10
    assert loop.opcodes == {"BRA": 3, "HGMMA": 1, "MUFU": 1, "FSETP": 1, "VOTE": 1, "ISETP": 1, "FADD": 1,
                            "F2FP": 1}


def test_code_size_counts_what_lies_outside_the_kv_loops():
    instrs = sass.parse(PROGRAM)
    assert sass.code_size(instrs, sass.loops(instrs)) == {"total": 16, "in_kv_loops": 13, "outside_kv_loops": 3}


def test_a_branch_whose_predicate_a_compare_rewrote_after_the_vote_is_not_skipped():
    rows = [(0x10, "HMMA.16816.F32 R4, R8, R12, R4"), (0x20, "VOTE.ANY P0, P0"),
            (0x30, "FSETP.GT.AND P0, PT, R3, RZ, PT"), (0x40, "@!P0 BRA 0x60"), (0x50, "FMUL R5, R5, R6"),
            (0x60, "@P2 BRA 0x10"), (0x70, "EXIT")]
    (loop,) = sass.loops(sass.parse(_sass(*rows)))
    assert loop.skipped == () and loop.common == loop.instructions == 6


def test_only_the_innermost_tensor_core_loops_count():
    rows = [(0x10, "HGMMA.64x64x16.F32.BF16 R24, gdesc[UR4], RZ"),
            (0x20, "HGMMA.64x64x16.F32.BF16 R24, gdesc[UR8], R24"), (0x30, "@P0 BRA 0x20"), (0x40, "IADD3 R1, R1, 0x1, RZ"), (0x50, "@P1 BRA 0x40"), (0x60, "@P2 BRA 0x10"),
            (0x70, "EXIT")]
    # 0x10-0x60 holds 0x20-0x30; 0x40-0x50 has no tensor-core op.
    assert [(lp.start, lp.end) for lp in sass.loops(sass.parse(_sass(*rows)))] == [(0x20, 0x30)]


@pytest.mark.parametrize("argv, message", [
    (["--sass"], "--sass: expected --shape"),
    (["--sass", "--shape", "1,2,256,64", "--config", '{"bogus": 1}'], "no field bogus"),
    (["--sass", "--shape", "1,2,256,64", "--family", "gluon", "--arch", "80"], "compiles for sm_90 only"),
    (["--sass", "--shape", "1,2,256,64", "--config", '{"block_m": 128}'], "block_m must be 16 * num_warps"),
])
def test_sass_says_what_it_needs(argv, message, capsys):
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_config_must_be_a_json_object(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--sass", "--shape", "1,2,256,64", "--config", "[1]"])
    assert "expected a JSON object of config fields" in capsys.readouterr().err


def test_sass_compiles_the_dispatched_gluon_config_and_reports_its_kv_loops(tmp_path):
    # Compiled offline for sm_90a (in a fresh process: the CPU tier interprets Triton).
    out = tmp_path / "sass.json"
    assert cli.main(["--sass", "--shape", "2,16,2048,128", "--causal", "--config", '{"max_free": false}',
                     "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["family"] == "gluon" and report["config"]["max_free"] is False
    loops = report["loops"]
    # Both consumer warpgroups' code: the unmasked and the masked loop of each.
    assert len(loops) >= 2
    for lp in loops:
        assert lp["opcodes"]["HGMMA"] >= 2 and lp["opcodes"]["MUFU"] >= 64
        assert 0 < lp["common"] <= lp["instructions"]
    # The lazy rescale's multiply of O (a warp votes to skip it) is off the common path.
    assert all(lp["skipped"] for lp in loops)
    size = report["instructions"]
    assert size["in_kv_loops"] == sum(lp["instructions"] for lp in loops)
    assert size["total"] == size["in_kv_loops"] + size["outside_kv_loops"] and size["outside_kv_loops"] > 0
