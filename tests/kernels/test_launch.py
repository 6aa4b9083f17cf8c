"""The lean launch path's cache key is at least as fine as Triton's specialization."""

import pytest
import torch

from flashcore.kernels.launch import _arg_key


def test_int_key_separates_one_divisible_and_wide():
    keys = {_arg_key(x) for x in (1, 16, 32, 17, 2**31, 2**31 + 3)}
    assert _arg_key(16) == _arg_key(32)  # same specialization: one binary serves both
    assert len(keys) == 5


def test_tensor_key_separates_dtype_and_alignment():
    t = torch.zeros(64, dtype=torch.float16)
    assert _arg_key(t) == _arg_key(torch.zeros(8, dtype=torch.float16))
    assert _arg_key(t) != _arg_key(t[1:])  # 2-byte offset: not 16-byte aligned
    assert _arg_key(t) != _arg_key(t.bfloat16())


def test_bools_and_floats_are_values_or_types():
    assert _arg_key(True) != _arg_key(False)
    assert _arg_key(0.1) == _arg_key(0.7)  # fp32 scalars are not specialized


def test_no_hooks_means_lean_path(monkeypatch):
    from triton import knobs

    from flashcore.kernels import launch

    assert not launch._hooks_active()  # Triton 3.6: an empty HookChain, not None
    chain = knobs.runtime.launch_enter_hook
    fn = lambda *a, **k: None  # noqa: E731
    chain.add(fn)
    try:
        assert launch._hooks_active()
    finally:
        chain.remove(fn)


def test_spec_key_separates_what_triton_specialises():
    from flashcore.kernels.launch import spec_key

    t = torch.zeros(64, dtype=torch.float16)
    base = spec_key((t, t), (16, 64, 3))
    assert base == spec_key((torch.zeros(8, dtype=torch.float16), t), (32, 128, 5))  # same binary
    assert base != spec_key((t[1:], t), (16, 64, 3))  # first tensor unaligned
    assert base != spec_key((t, t[1:]), (16, 64, 3))  # second tensor unaligned: not merged with the first
    assert base != spec_key((t.bfloat16(), t), (16, 64, 3))
    assert base != spec_key((t, t), (1, 64, 3))  # == 1 is specialised
    assert base != spec_key((t, t), (16, 64, 16))  # % 16 == 0 is specialised
    assert base != spec_key((t, t), (16, 64, 2**31))  # 64-bit integers


def test_host_helpers_match_triton():
    import triton

    from flashcore.kernels.triton_fwd import cdiv, next_pow2

    for n in (1, 2, 3, 16, 17, 1000, 4096):
        assert next_pow2(n) == triton.next_power_of_2(n)
        assert cdiv(n, 64) == triton.cdiv(n, 64)


def test_constexpr_tail_follows_the_signature():
    # Gluon kernels declare num_warps as a parameter; the C launcher wants every
    # parameter after the runtime ones, in order, whatever order the caller's dict has.
    from flashcore.kernels.launch import CachedLauncher

    def kernel(a, b, BLOCK, CAUSAL, num_warps, EXTRA=7):
        pass

    launcher = CachedLauncher(kernel)
    assert launcher._constexpr_tail(2, {"CAUSAL": True, "BLOCK": 64}, 8, 3) == (64, True, 8, 7)


def test_tensor_maps_unwrap_tritons_descriptor_closure_and_cache_by_address():
    """TensorMaps takes the C launcher and per-descriptor metadata out of the closure
    Triton 3.6 builds, and encodes a descriptor's map once per base address (the rest of
    a descriptor is fixed by the plan)."""
    from triton.backends.nvidia.driver import wrap_handle_tensordesc

    from flashcore.kernels.launch import TensorMaps

    calls = []

    def c_launch(*args):
        calls.append(args)

    signature = {"desc_a": "tensordesc<fp16[1,64]>", "desc_b": "tensordesc<fp16[1,64]>", "n": "i32"}
    metas = [{"swizzle": 128}, {"swizzle": 64}]
    desc = type("D", (), {"shape": [4, 64], "strides": [64, 1], "padding": "zero", "block_shape": [1, 64]})()
    maps = TensorMaps.of(wrap_handle_tensordesc(c_launch, signature, metas), [desc, desc])
    assert maps.c_launch is c_launch and maps.metas == metas
    made = []

    def make(arg, meta):
        made.append((arg.base.data_ptr(), meta["swizzle"]))
        return [f"map@{arg.base.data_ptr()}/{meta['swizzle']}", *arg.shape, *arg.strides]

    maps.make = make
    a, b = torch.zeros(4, 64), torch.ones(4, 64)
    first = maps.args((a, b))
    assert first == [f"map@{a.data_ptr()}/128", 4, 64, 64, 1, f"map@{b.data_ptr()}/64", 4, 64, 64, 1]
    assert maps.args((a, b)) == first and len(made) == 2  # cached: no new encodes
    assert maps.args((b, a))[0] == f"map@{b.data_ptr()}/128" and len(made) == 4  # per descriptor
    for i in range(TensorMaps.LIMIT + 1):  # bounded: the cache starts over past its limit
        maps.args((torch.empty(4, 64), b))
    assert len(maps.cache[0]) <= TensorMaps.LIMIT
    assert TensorMaps.of(c_launch, [desc]) is None  # no closure: a kernel without descriptors


def test_pdl_is_a_launch_option_and_part_of_the_cache_key(monkeypatch):
    # Triton takes PDL as the launch option ``launch_pdl``; a binary launched with it is a
    # different compiled kernel, so the cache must not hand one out for the other.
    from triton import knobs

    from flashcore.kernels.launch import CachedLauncher

    seen = []

    class Kernel:
        def fn(a):
            pass

        def __getitem__(self, grid):
            return lambda *args, **options: seen.append(options.get("launch_pdl")) or object()

    monkeypatch.setattr(knobs.runtime, "interpret", False)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    launcher = CachedLauncher(Kernel())
    launcher((1, 1, 1), (5,), {}, 4, 3, spec=("s",), pdl=True)
    launcher((1, 1, 1), (5,), {}, 4, 3, spec=("s",), pdl=False)
    assert seen == [True, None] and len(launcher.compiled) == 2
    assert launcher.prepared((1, 1, 1), {}, 4, 3, pdl=True).pdl


def test_without_pdl_switches_off_for_a_block_and_restores():
    from flashcore.kernels.launch import pdl_on, without_pdl

    before = pdl_on()
    with pytest.raises(RuntimeError), without_pdl():
        assert not pdl_on()
        raise RuntimeError
    assert pdl_on() == before


def test_lse_scratch_is_shared_grows_by_doubling_and_keeps_what_it_outgrew():
    from flashcore.kernels import launch

    cpu = torch.device("cpu")
    first = launch.lse_scratch(5000, cpu)
    assert first.dtype == torch.float32 and first.numel() >= 5000
    assert launch.lse_scratch(7, cpu) is first  # smaller requests share the buffer
    grown = launch.lse_scratch(first.numel() + 1, cpu)
    assert grown.numel() >= 2 * first.numel()
    # A graph or in-flight launch may still write the old buffer: it is kept, not freed.
    assert any(t is first for t in launch._RETIRED)
    assert launch.lse_scratch(1, cpu) is grown


def test_captured_counters_give_each_capture_and_stream_one_zeroed_aligned_slice(monkeypatch):
    """Launches of one capture on one stream share a slice (they replay in order); another
    capture or stream gets its own (graphs may replay side by side), 16-byte aligned as
    Triton specialises pointers, grown when a launch needs more. A spent arena, none yet,
    or no capture id falls back to a fresh zeroed buffer (a fill the capture records)."""
    from flashcore.kernels import launch

    cpu = torch.device("cpu")
    arena = torch.zeros(16, dtype=torch.int32)
    monkeypatch.setitem(launch._CAPTURE_ARENAS, cpu, [arena, 0])
    monkeypatch.setattr(launch, "_CAPTURE_SLICES", {})
    a1, a2 = (launch.captured_counters(n, cpu, capture=(7, 1)) for n in (5, 3))
    assert a1.data_ptr() == a2.data_ptr() == arena.data_ptr() and (a1.numel(), a2.numel()) == (5, 3)
    other_stream, other_capture = (launch.captured_counters(1, cpu, capture=key) for key in ((8, 1), (7, 2)))
    assert [t.data_ptr() - arena.data_ptr() for t in (other_stream, other_capture)] == [32, 48]
    assert all(t.data_ptr() % 16 == 0 and not t.any() for t in (a1, other_stream, other_capture))
    grown = launch.captured_counters(6, cpu, capture=(7, 1))  # 64 B in: past the 16-int arena
    assert grown.numel() == 6 and not grown.any()
    assert not (arena.data_ptr() <= grown.data_ptr() < arena.data_ptr() + arena.nbytes)
    monkeypatch.delitem(launch._CAPTURE_ARENAS, cpu)
    assert launch.captured_counters(3, cpu, capture=(9, 1)).numel() == 3


def test_stream_workspace_is_reused_per_slot_and_grows_by_doubling(monkeypatch):
    from flashcore.kernels import launch

    monkeypatch.setattr(launch, "_WORKSPACES", {})
    cpu = torch.device("cpu")
    a = launch.stream_workspace(100, cpu)
    assert a.dtype == torch.float32 and a.numel() == 100
    assert launch.stream_workspace(60, cpu).data_ptr() == a.data_ptr()  # one stream: one buffer
    other = launch.stream_workspace(10, cpu, slot=1)
    assert other.data_ptr() != a.data_ptr()  # a second buffer of the same launch
    assert launch.stream_workspace(150, cpu).numel() == 200


def test_split_buffers_are_the_streams_workspaces_and_counters(monkeypatch):
    from flashcore.kernels import launch

    monkeypatch.setattr(launch, "_WORKSPACES", {})
    cpu = torch.device("cpu")
    (o, l), tickets = launch.split_buffers(7, (64, 8), cpu)
    assert o.data_ptr() == launch.stream_workspace(64, cpu).data_ptr()
    assert l.data_ptr() == launch.stream_workspace(8, cpu, slot=1).data_ptr() != o.data_ptr()
    assert tickets.data_ptr() == launch.stream_counters(7, cpu).data_ptr() and not tickets[:7].any()
