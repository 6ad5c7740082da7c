"""Rollout prompts (DESIGN.md §4): task source + backend instructions + one worked example.

``build_messages(task, backend)`` returns the chat messages of turn 1: a system message (role and
answer format) and a user message (the backend's rules, a worked example for a different tiny op, and
the task). The answer's last fenced python block is the candidate (`leap.rollout.extract`). The same
function builds the SFT prompts, so training and rollouts see one format.
"""

from __future__ import annotations

import ast
import re

from leap.tasks.task import Task

BACKENDS: tuple[str, ...] = ("triton", "cuda_inline", "cuda_nvrtc")

SYSTEM = (
    "You are an expert GPU kernel engineer. You rewrite PyTorch models as fast, correct custom GPU "
    "kernels. Think briefly, then give the complete solution as ONE fenced ```python block at the end "
    "of your answer. The last python block of your answer is taken as the solution."
)

_COMMON_RULES = """\
Rules:
- Define `class ModelNew(nn.Module)` with the same constructor arguments as `Model` and a `forward`
  that returns the same outputs (shape, dtype, values within tolerance) for the same inputs.
- The computation must run in your own custom kernel(s). Do not call PyTorch compute ops
  (torch.relu, torch.matmul, F.softmax, x.sum(), ...) on the data path unless the task allows them;
  allocation (torch.empty, empty_like), views, .contiguous() and shape handling are fine.
- No try/except fallbacks, threads, processes, file or network access, eval/exec, or new CUDA streams.
- Handle every element: sizes are not always multiples of your block size.
- Your answer runs as a file of its own: it must import or define every name it uses. The task
  file's constants (DTYPE, sizes, ...) are not there; copy the ones you need.
- Leave `Model`, `get_inputs`, `get_init_inputs` and test code (`if __name__ == ...`) out of your
  answer: imports, constants, kernels and `ModelNew`."""

_BACKEND_RULES = {
    "triton": """\
Backend: Triton. Write `@triton.jit` kernels (import triton, triton.language as tl) and launch them
from `ModelNew.forward` with a grid. Use tl.program_id, offsets and masks for the tails. Load
low-precision inputs and compute in fp32 (`.to(tl.float32)`), then cast back when storing. Inside a
kernel only `tl` functions work (tl.exp, tl.maximum, tl.sqrt, tl.sum, ...): no torch, F or math on tensors.""",
    "cuda_inline": """\
Backend: CUDA C++ through `torch.utils.cpp_extension.load_inline`. Write a `__global__` kernel and a
C++ launcher taking and returning torch::Tensor; launch on `at::cuda::getCurrentCUDAStream()`.
Build the extension once (in `__init__` or at module level) and call it from `forward`.""",
    "cuda_nvrtc": """\
Backend: CUDA through NVRTC with cupy. Write an `extern "C" __global__` kernel, compile it with
`cupy.RawKernel(source, name)` and launch it on torch tensors' raw pointers (`t.data_ptr()`, sizes
as numpy integers) inside `with cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):`.""",
}

_EXAMPLE_TASK = '''\
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return 0.5 * torch.abs(x)


def get_inputs():
    return [torch.randn(1024, 1000)]


def get_init_inputs():
    return []
'''

_EXAMPLE_SOLUTION = {
    "triton": '''\
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def half_abs_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = 0.5 * tl.abs(x)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        half_abs_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
        return out
''',
    "cuda_inline": '''\
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void half_abs_kernel(const float* x, float* y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = 0.5f * fabsf(x[i]);
}

torch::Tensor half_abs(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long n = x.numel();
    half_abs_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
CPP_SRC = "torch::Tensor half_abs(torch::Tensor x);"


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = load_inline(name="half_abs_ext", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC,
                               functions=["half_abs"], verbose=False)

    def forward(self, x):
        return self.ext.half_abs(x.contiguous())
''',
    "cuda_nvrtc": '''\
import cupy as cp
import numpy as np
import torch
import torch.nn as nn

SRC = r"""
extern "C" __global__ void half_abs_kernel(const float* x, float* y, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = 0.5f * fabsf(x[i]);
}
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernel = cp.RawKernel(SRC, "half_abs_kernel")

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
            self.kernel(((n + 255) // 256,), (256,), (x.data_ptr(), y.data_ptr(), np.int64(n)))
        return y
''',
}


class PromptError(ValueError):
    """An unknown backend; the message is one line."""


def example_solution(backend: str = "triton") -> str:
    """The worked example's solution source for ``backend`` (tests check it passes the sandbox)."""
    _check(backend)
    return _EXAMPLE_SOLUTION[backend]


def example_task_source() -> str:
    """The worked example's task source (a tiny op that is not in the built-in suite)."""
    return _EXAMPLE_TASK


def _check(backend: str) -> None:
    if backend not in BACKENDS:
        raise PromptError(f"unknown kernel backend {backend!r} (expected one of {', '.join(BACKENDS)})")


def _allowed(task: Task) -> str:
    if not task.allowed_ops:
        return ""
    ops = ", ".join(task.allowed_ops)
    return (f"\nThis task allows these PyTorch library ops inside ModelNew.forward: {ops}. "
            "Fuse the rest into your own kernels.")


def shown_source(source: str) -> str:
    """The task as the policy sees it: LEAP's own bookkeeping (``# leap-…`` comment lines and top-level
    ``LEAP_*`` assignments: split, tags, difficulty, the generator's chain) removed; the rest verbatim."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source.rstrip()
    drop: set[int] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id.startswith("LEAP_") for t in targets):
            drop.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    lines = [ln for i, ln in enumerate(source.splitlines(), 1)
             if i not in drop and not ln.lstrip().startswith("# leap-")]
    return re.sub(r"\n{4,}", "\n\n\n", "\n".join(lines)).strip()  # no holes where the metadata was


def user_prompt(task: Task, backend: str = "triton") -> str:
    """The turn-1 user message: rules, the worked example, then the task."""
    _check(backend)
    return (
        f"{_BACKEND_RULES[backend]}\n\n{_COMMON_RULES}\n\n"
        "Example. For this model:\n"
        f"```python\n{_EXAMPLE_TASK}```\n"
        "a correct answer is:\n"
        f"```python\n{_EXAMPLE_SOLUTION[backend]}```\n\n"
        "The example computes a different operation: do not copy it. Your kernel must compute exactly "
        "what the task's `Model.forward` below computes.\n\n"
        f"Now write `ModelNew` for this model (task `{task.name}`):{_allowed(task)}\n"
        f"```python\n{shown_source(task.source)}\n```\n"
        "Answer with a short plan, then the complete solution in one ```python block."
    )


def build_messages(task: Task, backend: str = "triton") -> list[dict[str, str]]:
    """Turn-1 chat messages (system + user) for ``task`` written with kernel ``backend``."""
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user_prompt(task, backend)}]


def feedback_message(feedback: str, turn: int) -> str:
    """The user message that follows an answer: the sandbox's feedback and a request to fix it."""
    text = feedback.strip() or "The sandbox gave no details."
    return (f"Your turn-{turn} solution was checked by the sandbox:\n{text}\n\n"
            "Fix the problems (or make it faster if it was correct) so that ModelNew computes exactly what "
            "the task's Model computes, and give the complete new solution in one ```python block.")
