"""benchmarks/split_peers.py: the FA4 / CuTe DSL wheels cut into carry folders that fit
beside the working tree on the device machine (a tool script, loaded from its path)."""
import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location("split_peers", os.path.join(ROOT, "benchmarks", "split_peers.py"))
sp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sp)
MIB = sp.MIB


def test_parts_leave_room_for_the_tree_and_a_margin():
    assert sp.part_budget(53 * MIB) == 64 * MIB - 53 * MIB - sp.MARGIN
    assert sp.part_budget(10 * MIB) == sp.MAX_PART
    with pytest.raises(SystemExit, match="move large evidence"):
        sp.part_budget(60 * MIB)


def test_pack_fills_parts_first_fit_decreasing_within_the_budget():
    sizes = {"a": 5, "b": 4, "c": 3, "d": 2, "e": 1}
    parts = sp.pack(sizes, 6)
    assert sorted(n for p in parts for n in p) == sorted(sizes)
    assert all(sum(sizes[n] for n in p) <= 6 for p in parts)
    assert len(parts) == 3  # 15 bytes need three parts of 6
    with pytest.raises(SystemExit, match="larger than a part"):
        sp.pack({"big": 7}, 6)


def test_split_writes_pieces_that_join_back_in_name_order(tmp_path):
    peers = tmp_path / ".peers"
    (peers / "a").mkdir(parents=True)
    (peers / "b").mkdir()
    stream = os.urandom(10_000)
    (peers / "a" / "cu13.part.aa").write_bytes(stream[:6_000])
    (peers / "b" / "cu13.part.ab").write_bytes(stream[6_000:])
    for name, size in (("x-1.whl", 1_500), ("y-1.whl", 900), ("z-1.whl", 700)):
        (peers / "a" / name).write_bytes(os.urandom(size))
    folders = sp.split(str(peers), 2_048)
    files = [os.path.join(f, n) for f in folders for n in os.listdir(f)]
    assert all(os.path.getsize(f) <= 2_048 for f in files)
    pieces = sorted((f for f in files if os.path.basename(f).startswith("cu13.")), key=os.path.basename)
    assert b"".join(open(p, "rb").read() for p in pieces) == stream
    assert sorted(os.path.basename(f) for f in files if f.endswith(".whl")) == ["x-1.whl", "y-1.whl", "z-1.whl"]
    assert "cat /tmp/peers/cu13.*" in (peers / "carry" / "install" / "install.sh").read_text()
    calls = sp.plan(str(tmp_path), folders)
    assert calls.splitlines()[0].startswith('1. carry [".peers/carry/00"]: rm -rf /tmp/peers /tmp/site')
    assert len(calls.splitlines()) == len(folders) + 1
