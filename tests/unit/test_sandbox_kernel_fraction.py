"""Pure parts of the GPU measurements: kernel names from sources, custom share, timing statistics."""

import pytest

from leap.sandbox.worker.host_check import tail_allowed_us
from leap.sandbox.worker.kernel_fraction import (
    busy_us,
    fraction_from_kernels,
    is_library_kernel,
    kernel_names_from_source,
    matches_custom,
    per_call_minimum,
)
from leap.sandbox.worker.timing import host_agrees, summarize

SRC = '''
import triton
import triton.language as tl
CUDA = r"""
extern "C" __global__ void relu_k(const float* x, float* y, int n) { }
template <int B> __global__ __launch_bounds__(256) void row_sum(float* x) { }
"""
@triton.autotune(configs=[], key=["n"])
@triton.jit
def fused_add(x_ptr, n, BLOCK: tl.constexpr):
    pass
def helper(x):
    return x
'''


def test_kernel_names_from_source():
    assert kernel_names_from_source(SRC) == {"relu_k", "row_sum", "fused_add"}
    assert kernel_names_from_source(None) == set()
    assert kernel_names_from_source("@triton.jit\ndef k(:\n") == {"k"}  # unparsable: text fallback


@pytest.mark.parametrize("name,custom", [
    ("fused_add", True), ("relu_k", True), ("_Z7row_sumILi256EEvPf", True), ("row_sum<256>(float*)", True),
    ("helper", False), ("fused_add_2", False),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::relu_k>(int)", False),
])
def test_matches_custom(name, custom):
    assert matches_custom(name, {"relu_k", "row_sum", "fused_add"}) is custom


@pytest.mark.parametrize("name,lib", [
    ("void at::native::vectorized_elementwise_kernel<4, float>(int, float*)", True),
    ("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32", True), ("nvjet_tst_128x64_64x8", True),
    ("Memcpy HtoD (Pageable -> Device)", True), ("triton_poi_fused_add_relu_0", True),
    ("my_fused_kernel", False), ("relu_k", False),
])
def test_library_kernels(name, lib):
    assert is_library_kernel(name) is lib


def test_fraction():
    ks = [("fused_add", 80.0), ("sm90_xmma_gemm_x", 20.0)]
    assert fraction_from_kernels(ks, {"fused_add"}) == pytest.approx(0.8)
    assert fraction_from_kernels(ks, set()) == pytest.approx(0.8)  # no names: everything non-library
    assert fraction_from_kernels([("ampere_sgemm", 90.0), ("fused_add", 10.0)], {"fused_add"}) == pytest.approx(0.1)
    assert fraction_from_kernels([], {"x"}) == 0.0
    assert fraction_from_kernels([("direct_copy_kernel_cuda", 5.0)], {"x"}) == 0.0  # copies alone: nothing custom


COPY = "void at::native::elementwise_kernel<128, 4, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)>"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)"


def test_data_movement_beside_the_custom_kernel_is_neutral_up_to_its_allowance():
    # a clone and a copy_ into a buffer, then the kernel in place: each as long as the kernel
    legit = [(COPY, 10.0), ("Memcpy DtoD (Device -> Device)", 10.0), ("relu_kernel", 10.0)]
    assert fraction_from_kernels(legit, {"relu_kernel"}) == pytest.approx(1.0)
    assert fraction_from_kernels(legit, set()) == pytest.approx(1.0)
    assert fraction_from_kernels(legit, {"relu_kernel"}, copy_allowance=0.0) == pytest.approx(1 / 3)
    # a copy that does a transpose's whole work beside a short decoy kernel: the excess counts as outside
    hack = [(COPY, 100.0), ("decoy", 5.0)]
    assert fraction_from_kernels(hack, {"decoy"}) == pytest.approx(5 / (5 + 90))
    # fills are data movement; library compute never is neutral
    assert fraction_from_kernels([(FILL, 10.0), ("k", 10.0)], {"k"}) == pytest.approx(1.0)
    assert fraction_from_kernels([("ampere_sgemm", 10.0), ("k", 10.0)], {"k"}) == pytest.approx(0.5)
    # a candidate's own kernel named like a copy is still its own
    assert fraction_from_kernels([("copy_kernel", 10.0), (COPY, 50.0)], {"copy_kernel"}) == pytest.approx(10 / 40)


def test_each_activity_counts_at_its_shortest_over_calls_that_ran_the_same_sequence():
    # three calls of clone + copy_ + kernel; another process's time slices lengthened two of the copies
    calls = [[(COPY, 10.0), (COPY, 10.0), ("relu_kernel", 10.0)],
             [(COPY, 31.0), (COPY, 10.0), ("relu_kernel", 11.0)],
             [(COPY, 10.0), (COPY, 40.0), ("relu_kernel", 10.0)]]
    flat = [k for c in calls for k in c]
    assert fraction_from_kernels(flat, {"relu_kernel"}) < 0.5  # as recorded, the load makes it look like a hack
    quiet = per_call_minimum(flat, 3)
    assert quiet == [(COPY, 10.0), (COPY, 10.0), ("relu_kernel", 10.0)]
    assert fraction_from_kernels(quiet, {"relu_kernel"}) == pytest.approx(1.0)
    # calls that ran different sequences (or a count that does not split into calls) are kept whole
    uneven = [(COPY, 50.0), ("k", 1.0), ("k", 1.0), ("k", 1.0)]
    assert per_call_minimum(uneven, 2) == uneven
    assert per_call_minimum(flat[:-1], 3) == flat[:-1]
    assert per_call_minimum(flat, 1) == flat
    assert per_call_minimum([], 3) == []


def test_timing_statistics_and_host_agreement():
    s = summarize([5.0, 1.0, 3.0, 2.0, 4.0])
    assert s["median_us"] == 3.0 and s["min_us"] == 1.0 and s["max_us"] == 5.0 and s["mean_us"] == 3.0
    with pytest.raises(ValueError):
        summarize([])
    # the tail (synchronize wait after the measured stream finished) against event * tol + slack
    assert host_agrees(1000.0, 90.0, tolerance=0.10, slack_us=0.0)
    assert not host_agrees(1000.0, 200.0, tolerance=0.10, slack_us=0.0)
    assert host_agrees(10.0, 60.0)  # the driver's synchronize latency within the default slack
    assert not host_agrees(10.0, 3000.0)
    assert host_agrees(10.0, None)
    assert tail_allowed_us(1000.0) == pytest.approx(200.0)


CAST_COPY = ("void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
             "::{lambda(float)#1}, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>>")


def test_a_copy_that_converts_dtypes_is_never_neutral():
    assert fraction_from_kernels([(COPY, 10.0), ("k", 10.0)], {"k"}) == pytest.approx(1.0)
    assert fraction_from_kernels([(CAST_COPY, 10.0), ("k", 10.0)], {"k"}) == pytest.approx(0.5)


def test_the_library_kernels_of_a_tasks_allowed_ops_are_neutral():
    gemm = ("nvjet_tst_128x256_64x4_2x1_v_bz_TNT", 100.0)
    epilogue = ("bias_relu_kernel", 10.0)
    # F.linear (allowed on a gemm task) plus a Triton epilogue: the GEMM is the task's to give to PyTorch
    assert fraction_from_kernels([gemm, epilogue], {"bias_relu_kernel"}) == pytest.approx(10 / 110)
    assert fraction_from_kernels([gemm, epilogue], {"bias_relu_kernel"}, allowed_ops=["linear"]) == pytest.approx(1.0)
    conv = ("sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nchw", 80.0)
    assert fraction_from_kernels([conv, epilogue], {"bias_relu_kernel"}, allowed_ops=["torch.nn.functional.conv2d"]) \
        == pytest.approx(1.0)
    # what the task does not allow still counts: a softmax from PyTorch beside an allowed GEMM
    softmax = ("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>", 30.0)
    assert fraction_from_kernels([gemm, softmax, epilogue], {"bias_relu_kernel"}, allowed_ops=["matmul"]) \
        == pytest.approx(10 / 40)


def test_busy_time_is_the_union_of_gpu_activities_on_every_stream():
    trace = [{"cat": "kernel", "ts": 0.0, "dur": 10.0, "args": {"stream": 7}},
             {"cat": "kernel", "ts": 5.0, "dur": 10.0, "args": {"stream": 13}},  # overlaps: counted once
             {"cat": "gpu_memcpy", "ts": 20.0, "dur": 2.0},
             {"cat": "gpu_memset", "ts": 21.0, "dur": 4.0},
             {"cat": "cpu_op", "ts": 0.0, "dur": 500.0},  # host side: not GPU time
             {"cat": "kernel", "ts": "bad"}, "not an event"]
    assert busy_us(trace) == pytest.approx(15.0 + 5.0)
    assert busy_us([]) == 0.0
