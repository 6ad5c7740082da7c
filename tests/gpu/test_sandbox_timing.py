"""GPU timing (runs on a CUDA machine): L2 flush size, events vs host clock, side-stream work flagged,
and the custom-kernel fraction from the profiler."""

import pytest
import torch
import triton
import triton.language as tl

from leap.sandbox.worker import timing
from leap.sandbox.worker.kernel_fraction import custom_kernel_fraction

pytestmark = pytest.mark.gpu


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)


def test_l2_flush_is_at_least_twice_l2():
    l2 = int(torch.cuda.get_device_properties(0).L2_cache_size)
    assert l2 > 0
    assert timing.l2_cache_bytes() == l2
    assert timing.l2_flush_bytes() >= 2 * l2


def test_plain_torch_kernel_events_and_host_agree():
    x = torch.randn(64 << 20, device="cuda")  # 256 MiB read + write: ~100+ us on an H200
    res = timing.time_forward(torch.relu, [x], warmup=3, samples=30)
    assert res.samples == 30 and res.flush_bytes >= 2 * timing.l2_cache_bytes()
    assert res.min_us <= res.median_us <= res.max_us and res.median_us > 20
    assert res.host_us is not None and res.tail_us is not None and res.host_agrees, res


def test_side_stream_work_is_flagged(side_stream_forward):
    sneaky, args = side_stream_forward
    res = timing.time_forward(sneaky, args, warmup=2, samples=30)
    # The guarantee: the side stream's ~20 ms of matmuls never buy an accepted fast time. Either they
    # outlast the measured stream (the tail: however much of the matmuls the multiply queued behind), or
    # the events themselves saw the milliseconds.
    print(res)
    assert not res.host_agrees or res.median_us > 2000, res


def test_timers_bound_before_candidate_patches():
    import time

    saved = time.perf_counter, torch.cuda.Event, torch.cuda.Event.elapsed_time, torch.cuda.synchronize
    try:  # what a candidate might do after the harness imported timing
        torch.cuda.Event.elapsed_time = lambda self, end: 0.0
        time.perf_counter = lambda: 0.0
        torch.cuda.Event = None
        torch.cuda.synchronize = lambda *a: None
        res = timing.time_forward(torch.relu, [torch.randn(1 << 20, device="cuda")], warmup=1, samples=30)
        assert res.median_us > 0 and res.host_us and res.host_us > 0
    finally:
        time.perf_counter, torch.cuda.Event, torch.cuda.synchronize = saved[0], saved[1], saved[3]
        torch.cuda.Event.elapsed_time = saved[2]


def test_kernel_fraction_triton_vs_torch():
    src = "@triton.jit\ndef scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n    pass\n"
    x = torch.randn(1 << 24, device="cuda")
    w = torch.randn(2048, 2048, device="cuda")

    def mostly_custom(inp):
        y = torch.empty_like(inp)
        scale_kernel[(triton.cdiv(inp.numel(), 1024),)](inp, y, inp.numel(), BLOCK=1024)
        return y

    def mostly_torch(inp):
        y = mostly_custom(inp[:1024])
        for _ in range(4):
            torch.mm(w, w)
        return y

    assert custom_kernel_fraction(mostly_custom, [x], source=src) > 0.9
    assert custom_kernel_fraction(mostly_torch, [x], source=src) < 0.2
    assert custom_kernel_fraction(mostly_custom, [x]) > 0.9  # no source: 'not a library kernel'
    assert custom_kernel_fraction(mostly_torch, [x]) < 0.2


def test_kernel_fraction_data_movement_is_neutral_beside_real_work_only():
    src = "@triton.jit\ndef scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n    pass\n"
    x = torch.randn(1 << 24, device="cuda")

    def copies_then_in_place(inp):  # copy_ into a buffer, clone it, then the kernel in place
        buf = torch.empty_like(inp)
        buf.copy_(inp)
        y = buf.clone()
        scale_kernel[(triton.cdiv(y.numel(), 1024),)](y, y, y.numel(), BLOCK=1024)
        return y

    def transpose_by_copy(inp):  # the copy does all the work; a one-block decoy kernel
        y = inp.view(4096, 4096).t().contiguous()
        scale_kernel[(1,)](y, y, 1024, BLOCK=1024)
        return y

    legit, hack = (custom_kernel_fraction(f, [x], source=src) for f in (copies_then_in_place, transpose_by_copy))
    print(f"copies then in place {legit:.2f}, transpose by copy {hack:.2f}")
    assert legit >= 0.5 and hack < 0.2


RELU_TASK = """
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)
def get_inputs():
    return [torch.randn(4096, 4096)]
def get_init_inputs():
    return []
"""


def test_reference_timings_measured_once_then_cached(tmp_path):
    import hashlib
    from types import SimpleNamespace

    from leap.sandbox.judge import reference

    task = SimpleNamespace(name="relu_gpu", source=RELU_TASK, source_hash=hashlib.sha256(RELU_TASK.encode()).hexdigest())
    cfg = SimpleNamespace(cache_dir=tmp_path, warmup=3, timing_samples=30, flush_l2=True)
    x = [torch.randn(4096, 4096)]
    eager, comp = reference.reference_timings(task, "cuda:0", inputs=x, init_inputs=[], config=cfg)
    assert eager > 5 and (comp is None or comp > 1)
    calls = []
    again = reference.reference_timings(task, "cuda:0", inputs=x, init_inputs=[], config=cfg,
                                        measure=lambda *a: calls.append(a) or (0.0, 0.0))
    assert again == (eager, comp) and not calls


def test_compare_on_cuda_and_device_mismatch():
    from leap.sandbox.judge.compare import compare_outputs

    r = torch.randn(1000, device="cuda", dtype=torch.bfloat16)
    assert compare_outputs(r, r.clone()).ok
    assert compare_outputs(r, r.cpu()).reason == "device"
    bad = r.clone()
    bad[17] = float("nan")
    res = compare_outputs(r, bad)
    assert res.reason == "nan" and res.mismatches[0].index == (17,)


def test_gpu_busy_time_counts_side_stream_work_the_events_miss(side_stream_forward):
    """The profile's busy time (`kernel_fraction.busy_us`: every stream) beside the events (the measured
    stream): recorded, not yet decided on; the printed pair is the measurement a decision would need."""
    from leap.sandbox.worker.kernel_fraction import forward_profile

    big = torch.randn(64 << 20, device="cuda")
    rows = {}
    for name, fn, args in (("side stream", *side_stream_forward), ("relu", torch.relu, [big])):
        busy = forward_profile(fn, args)["gpu_busy_us"]
        ev = timing.time_forward(fn, args, warmup=2, samples=10).median_us
        rows[name] = (busy, ev)
        print(f"{name}: busy {busy:.1f} us per call, events {ev:.1f} us")
    busy, ev = rows["side stream"]
    assert busy is not None and busy > 5000, rows  # ~20 ms of side-stream matmuls per call; `inp * 2` is ~2 us
    assert rows["relu"][0] is not None and rows["relu"][0] > 10, rows
