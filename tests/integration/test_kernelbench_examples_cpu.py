"""Solutions in the shapes of KernelBench's own examples get `ok` or `needs_gpu` on a CPU-only machine,
never a status that blames them: a task whose inputs are made with `.cuda()`, a Triton solution asserting
CUDA tensors, a CUDA solution with standard C headers, partial PyTorch in ModelNew (KernelBench's rules;
LEAP's own rules reject it and say so in strict_gate), and an nvcc check that cannot finish in time."""

from __future__ import annotations

import shutil
import types
from pathlib import Path

import pytest

from leap.sandbox import Sandbox, SandboxConfig
from leap.sandbox.judge import cuda_check
from leap.tasks.task import load_task_file

EX = Path(__file__).resolve().parents[1] / "fixtures" / "kernelbench_examples"
CASES = [("sum_cuda_inputs", "sum_triton_cuda_only"), ("tanh_act", "tanh_act_cuda_stdio"),
         ("small_mlp", "small_mlp_partial_cuda"), ("tanh_act", "tanh_triton_cuda_assert")]


@pytest.fixture(scope="module")
def kb_sandbox(tmp_path_factory):
    # a short nvcc budget: a CUDA check on this machine either finishes (needs_gpu, compiled) or does not
    # (needs_gpu, no result); neither judges the solution
    cfg = SandboxConfig(workers=1, rules="kernelbench", compile_timeout_s=3.0,
                        cache_dir=tmp_path_factory.mktemp("cache"))
    with Sandbox(cfg, device="cpu") as sb:
        yield sb


@pytest.mark.parametrize("task,solution", CASES)
def test_kernelbench_style_examples_are_not_blamed(kb_sandbox, task, solution):
    v = kb_sandbox.verify(load_task_file(EX / f"{task}.py"), (EX / f"{solution}.py").read_text())
    assert v.status == "needs_gpu", (v.status, v.feedback)
    assert "GPU" in v.feedback and not v.correct and ".." not in v.feedback, v.feedback


def test_partial_pytorch_gets_leaps_stricter_verdict_beside(kb_sandbox, tmp_path):
    task, sol = load_task_file(EX / "small_mlp.py"), (EX / "small_mlp_partial_cuda.py").read_text()
    v = kb_sandbox.verify(task, sol)
    assert v.status == "needs_gpu" and v.strict_gate and v.strict_gate.startswith("rejected"), v
    with Sandbox(SandboxConfig(workers=1, cache_dir=tmp_path), device="cpu") as strict:
        s = strict.verify(task, sol)
    assert s.status == "rejected" and s.strict_gate is None


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc on PATH")
def test_nvcc_check_out_of_time_is_needs_gpu_and_not_cached(tmp_path):
    src = (EX / "tanh_act_cuda_stdio.py").read_text()
    cfg = types.SimpleNamespace(cache_dir=tmp_path, compile_timeout_s=0.05)
    stages: dict = {}
    v = cuda_check.cpu_verdict(src, "cuda_inline", {"task": "tanh_act", "device": "cpu"}, stages, cfg)
    assert v.status == "needs_gpu" and "did not finish" in v.feedback and not v.compiled
    assert not list((tmp_path / "nvcc_check").glob("*.json"))  # a timeout is no verdict on the source


def test_missing_torch_cuda_header_is_this_machines_not_the_candidates():
    # a CPU-only torch ships no generated CUDA headers; KernelBench's fuse_gelu/tiled_matmul/flash_attn
    # examples include <c10/cuda/CUDAException.h>, which reaches for one of them
    torch_inc = "/venv/site-packages/torch/include/c10/cuda/CUDAMacros.h:9:10: "
    assert cuda_check.torch_header_missing(
        torch_inc + "fatal error: c10/cuda/impl/cuda_cmake_macros.h: No such file or directory")
    assert not cuda_check.torch_header_missing("kernel.cu:3:10: fatal error: mylib.h: No such file or directory")
    assert not cuda_check.torch_header_missing("kernel.cu(12): error: identifier \"x\" is undefined")


C10_CHECK = '''
from torch.utils.cpp_extension import load_inline
src = """
#include <c10/cuda/CUDAException.h>
__global__ void scale(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.f; }
void run(float* x, int n) { scale<<<(n + 255) / 256, 256>>>(x, n); C10_CUDA_KERNEL_LAUNCH_CHECK(); }
"""
mod = load_inline(name="scale", cpp_sources="void run(float* x, int n);", cuda_sources=src, functions=["run"])
'''


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc on PATH")
def test_c10_cuda_include_gets_a_real_compile_check(tmp_path):
    # KernelBench's fuse_gelu/tiled_matmul/flash_attn examples include <c10/cuda/CUDAException.h>; on a
    # CPU-only torch it used to stop at a generated header torch lacks ("no result"): now nvcc judges the source
    cfg = types.SimpleNamespace(cache_dir=tmp_path, compile_timeout_s=120.0)
    v = cuda_check.cpu_verdict(C10_CHECK, "cuda_inline", {"task": "t", "device": "cpu"}, {}, cfg)
    assert v.status == "needs_gpu" and v.compiled and "nvcc: compiled" in v.feedback, v.feedback
    broken = C10_CHECK.replace("x[i] *= 2.f;", "x[i] *= undefined_name;")
    b = cuda_check.cpu_verdict(broken, "cuda_inline", {"task": "t", "device": "cpu"}, {}, cfg)
    assert b.status == "compile_error" and "undefined_name" in b.feedback, b.feedback
