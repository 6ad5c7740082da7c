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
         ("small_mlp", "small_mlp_partial_cuda")]


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
    assert "GPU" in v.feedback and not v.correct


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
