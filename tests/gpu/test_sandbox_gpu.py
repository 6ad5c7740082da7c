"""The sandbox on a CUDA GPU: all three backends verify and are timed; faults become verdicts and the
next candidate on the same GPU still verifies. Run: pytest -q -m gpu tests/gpu/test_sandbox_gpu.py -s"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from sandbox_cases import kernels as K  # noqa: E402

from leap.sandbox import Sandbox, SandboxConfig  # noqa: E402
from leap.tasks.suite import get_builtin  # noqa: E402
from leap.tasks.task import parse_task  # noqa: E402

pytestmark = pytest.mark.gpu


# not under /tmp: the candidate's private tmp mounts would hide the extension build cache from it
CACHE = Path.home() / ".cache" / "leap-gpu-tests"


@pytest.fixture(scope="module")
def sb():
    cfg = SandboxConfig(workers=4, run_timeout_s=120, cache_dir=CACHE)
    with Sandbox(cfg, device="cuda") as box:
        yield box


@pytest.fixture(scope="module")
def relu():
    return get_builtin("relu_fp32")


def _show(name, v):
    print(f"\n{name}: {v.status} speedup_eager={v.speedup_eager} speedup_compile={v.speedup_compile} "
          f"runtime_us={v.runtime_us} ref_us={v.ref_runtime_us} stages={v.stage_seconds}\n  {v.feedback[:300]}"
          f"\n  {v.detail[:500]}")


@pytest.mark.parametrize("name,backend", [("RELU", "triton"), ("NVRTC_RELU", "cuda_nvrtc"),
                                          ("INLINE_RELU", "cuda_inline")])
def test_backends_verify_correct_kernels_with_speedups(sb, relu, name, backend):
    v = sb.verify(relu, getattr(K, name), backend=backend)
    _show(name, v)
    assert v.status == "ok" and v.correct and v.backend == backend and v.device == "cuda"
    assert v.runtime_us and v.runtime_us > 0 and v.ref_runtime_us and v.ref_runtime_us > 0
    assert v.speedup_eager is not None and 0.3 < v.speedup_eager < 5


@pytest.fixture(scope="module")
def relu_odd(relu):
    """relu_fp32 with an element count that is no multiple of any block size, so a kernel that skips the tail
    is wrong here (on relu_fp32's own 4096 x 16384 shape, n // 1024 blocks cover every element: the H200
    run of 2026-11-30 rightly passed RELU_UNWRITTEN_TAIL there)."""
    from leap.tasks.task import parse_task

    src = relu.source.replace("BATCH, DIM = 4096, 16384", "BATCH, DIM = 4095, 16383")
    assert src != relu.source
    return parse_task(src, name="relu_odd_fp32")


@pytest.mark.parametrize("name", ["RELU_MASK_OFF_BY_ONE", "RELU_UNWRITTEN_TAIL", "RELU_READS_UNINIT",
                                  "RELU_RETURNS_CPU"])
def test_wrong_kernels_fail_on_gpu(sb, relu_odd, name):
    v = sb.verify(relu_odd, getattr(K, name))
    _show(name, v)
    assert v.status == "incorrect"


def test_illegal_memory_access_then_next_candidate_on_that_gpu(sb, relu):
    v = sb.verify(relu, K.NVRTC_ILLEGAL_ADDRESS)
    _show("illegal", v)
    assert v.status == "runtime_error"
    for src in (K.NVRTC_RELU, K.RELU):
        ok = sb.verify(relu, src)
        assert ok.status == "ok", ok.feedback


def test_kernel_infinite_loop_times_out_then_next_verifies(relu):
    cfg = SandboxConfig(workers=1, run_timeout_s=15, cache_dir=CACHE)
    with Sandbox(cfg, device="cuda") as box:
        v = box.verify(relu, K.NVRTC_INFINITE_LOOP)
        _show("loop", v)
        assert v.status == "timeout"
        assert box.verify(relu, K.NVRTC_RELU).status == "ok"


def test_cuda_inline_build_is_cached(sb, relu):
    first = sb.verify(relu, K.INLINE_RELU)
    again = sb.verify(relu, K.INLINE_RELU)
    _show("inline again", again)
    assert first.status == again.status == "ok"
    assert again.stage_seconds["compile"] < 30


def test_nvrtc_end_to_end_verifies_repeatedly(sb, relu):
    """Repeated nvrtc verifications on a mid-size task (8M elements) and the full-size relu_fp32 all pass;
    their stage times are printed (the ≤ 1.5 s per-candidate target is measured by bench/judge_perf.py)."""
    mid = parse_task(get_builtin("relu_fp32").source.replace("BATCH, DIM = 4096, 16384", "BATCH, DIM = 2048, 4096"),
                     "relu_mid")
    sb.verify(mid, K.NVRTC_RELU)  # reference timings cached, like in a training run
    runs = [sb.verify(mid, K.NVRTC_RELU) for _ in range(5)]
    big = [sb.verify(relu, K.NVRTC_RELU) for _ in range(3)]
    print(f"\nnvrtc mid-size: {[v.stage_seconds for v in runs]}\nnvrtc relu_fp32: {[v.stage_seconds for v in big]}")
    assert all(v.status == "ok" for v in runs + big)
    assert all(v.timed and v.speedup_eager > 0 for v in runs + big)


def test_cupy_preloaded_in_the_forkserver(relu):
    """Informative: cupy imported by the forkserver must not break CUDA in the children (saves ~0.3 s)."""
    cfg = SandboxConfig(workers=1, preload_extra=["cupy"], cache_dir=CACHE)
    with Sandbox(cfg, device="cuda") as box:
        runs = [box.verify(relu, K.NVRTC_RELU) for _ in range(3)]
        _show("cupy preloaded", runs[-1])
        assert all(v.status == "ok" for v in runs)


def test_host_memory_rlimit_with_cuda(relu):
    """Informative: does CUDA work in a child under RLIMIT_DATA (isolation's GPU memory limit)?"""
    cfg = SandboxConfig(workers=1, gpu_host_memory_limit_gb=16, cache_dir=CACHE)
    with Sandbox(cfg, device="cuda") as box:
        v = box.verify(relu, K.NVRTC_RELU)
        _show("rlimit_data", v)
        assert v.status == "ok", v.feedback + v.detail


def test_reference_timed_beside_a_wrong_candidate_and_only_used_for_a_correct_one(relu_odd):
    """The reference is measured in the background from a task's first candidate on (here a wrong one, which
    waits for none of it), and a correct candidate later gets its speedup from that measurement."""
    import json
    import time

    cache = Path.home() / ".cache" / f"leap-gpu-prefetch-{time.time_ns()}"  # fresh: no disk-cached timing
    with Sandbox(SandboxConfig(workers=2, run_timeout_s=120, cache_dir=cache), device="cuda") as box:
        wrong = box.verify(relu_odd, K.RELU_MASK_OFF_BY_ONE)
        assert wrong.status == "incorrect" and "ref_timing" not in (wrong.stage_seconds or {})
        path, deadline = cache / "reference_timings.json", time.monotonic() + 120
        while not (path.exists() and json.loads(path.read_text())) and time.monotonic() < deadline:
            time.sleep(0.5)
        measured = path.read_text() if path.exists() else ""
        assert any(e.get("task") == relu_odd.name for e in json.loads(measured or "{}").values())
        right = box.verify(relu_odd, K.RELU)
        _show("RELU after prefetch", right)
        assert right.status == "ok" and right.ref_runtime_us and right.speedup_eager
        assert "ref_timing" in right.stage_seconds and path.read_text() == measured  # recalled, not measured again


def test_device_data_copied_to_the_host_is_refused_at_run_time(sb, relu):
    """However a forward brings its data to the host (here a plain ``.cpu()``, which the gate lets through as
    data movement; native code could do it unseen), the profile counts the device-to-host bytes."""
    src = K.RELU.replace("y = torch.empty_like(x)", "x = x.cpu().cuda()\n        y = torch.empty_like(x)")
    v = sb.verify(relu, src)
    _show("host round trip", v)
    assert v.status == "rejected" and "to the host" in v.feedback, v.feedback + v.detail


def test_the_profile_counts_device_to_host_bytes_and_not_a_scalar_read():
    import torch

    from leap.sandbox.worker.kernel_fraction import forward_profile

    x = torch.randn(1 << 20, device="cuda")
    bulk = forward_profile(lambda t: t.cpu().clamp_min(0).to(t.device), [x])["host_copy_bytes"]
    scalar = forward_profile(lambda t: t * float(t[:1].item()), [x])["host_copy_bytes"]
    print(f"bulk {bulk} B, scalar {scalar} B per call")
    assert bulk == pytest.approx(4 << 20, rel=0.01) and scalar is not None and scalar <= 64
