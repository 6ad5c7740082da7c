"""The verdict of a correct candidate from its GPU timing (`verifier.timed_verdict`), on recorded numbers:
speedups, and the three reasons a correct result is still refused — work outlasted the
measured stream, device data was copied to the host, or most GPU time was outside custom kernels."""

from __future__ import annotations

import pytest

from leap.sandbox import SandboxConfig
from leap.sandbox.judge import verifier as V
from leap.sandbox.worker.kernel_fraction import CAST, COPY, host_copy_bytes
from leap.tasks.suite import get_builtin

TASK = get_builtin("relu_fp32")
BASE = {"task": TASK.name}


def verdict(cfg: SandboxConfig | None = None, **timing):
    return V.timed_verdict(TASK, {"median_us": 50.0, "host_us": 60.0, **timing}, (100.0, 80.0),
                           cfg or SandboxConfig(), BASE, None, 5)


def test_a_clean_timing_is_ok_with_speedups():
    v = verdict(kernel_fraction=0.9, host_copy_bytes=8.0)  # a scalar read (.item()) is fine
    assert v.status == "ok" and v.speedup_eager == pytest.approx(2.0) and v.speedup_compile == pytest.approx(1.6)


def test_device_data_copied_to_the_host_is_refused():
    v = verdict(kernel_fraction=0.9, host_copy_bytes=float(1 << 22))
    assert v.status == "rejected" and "to the host" in v.feedback and "4194304 B" in v.detail
    assert verdict(SandboxConfig(max_host_copy_bytes=None), kernel_fraction=0.9,
                   host_copy_bytes=float(1 << 22)).status == "ok"


def test_little_custom_kernel_time_is_refused():
    v = verdict(kernel_fraction=0.2)
    assert v.status == "rejected" and v.custom_kernel_fraction == 0.2 and "custom kernels" in v.feedback


def test_work_outside_the_measured_stream_is_refused_with_the_windows_in_the_detail():
    window = {"action": "flag", "reason": "work outlasts the measured stream", "event_us": 50.0,
              "tail_us": 9000.0, "tail_batch_us": 88000.0, "probe_event_us": 48.0, "probe_tail_us": 6.0,
              "host_us": 9050.0, "probe_reps": 3, "other_gpu_processes": 1}
    v = verdict(tail_us=9000.0, host_agrees=False, host_check={"action": "flag", "windows": [window]})
    assert v.status == "rejected" and "outside the measured stream" in v.feedback
    assert "flag: work outlasts" in v.detail and "probe_tail_us 6.0" in v.detail and "probe x3" in v.detail


def test_the_judge_rechecks_the_tail_but_not_the_plain_host_clock():
    # a busy CPU makes the host clock per call far longer than the events: not a refusal reason by itself
    assert verdict(kernel_fraction=0.9, host_us=2000.0, tail_us=8.0).status == "ok"
    # a tail beyond tolerance that the child did not cross-check is refused by the judge itself
    v = verdict(kernel_fraction=0.9, tail_us=900.0)
    assert v.status == "rejected" and "900.0 us after the measured stream" in v.detail


def test_host_copy_bytes_sums_the_device_to_host_copies_of_a_trace():
    events = [{"cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "args": {"bytes": 1 << 20}},
              {"cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "args": {"bytes": 1 << 20}},
              {"cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "args": {"bytes": 4}},
              {"cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "args": {"bytes": 512}},
              {"name": "Memcpy DtoH (Device -> Pageable)", "args": {"bytes": "bad"}}, "not an event"]
    assert host_copy_bytes(events) == (1 << 20) + 4
    assert host_copy_bytes([]) == 0


# kernel names as PyTorch 2.11 runs them on an H200 (tests/gpu/test_kernel_names_gpu.py checks them live)
PLAIN = ["Memcpy DtoD (Device -> Device)",
         "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::"
         "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda(float)#1}>"]
CASTS = ["void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
         "::{lambda(int)#1}, std::array<char*, 2ul>, 4, at::native::memory::LoadWithCast<1>, "
         "at::native::memory::StoreWithCast<1> >",
         "void at::native::vectorized_elementwise_kernel<8, at::native::float16_copy_kernel_cuda("
         "at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >",
         "void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda(at::Tensor",
         "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::direct_copy_kernel"]


@pytest.mark.parametrize("name", PLAIN + CASTS)
def test_a_copy_is_data_movement_unless_it_converts_dtypes(name):
    assert COPY.search(name)
    assert bool(CAST.search(name)) == (name in CASTS)
