"""The static gate on many small sources: hacks rejected, legitimate code (no false positives) accepted."""

from __future__ import annotations

import textwrap

import pytest

from leap.sandbox.gate.static_gate import REASON_POLICY, REASON_TORCH, GateResult, check_source

HEAD = '''
import math
import os
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def k_relu(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)
'''


def triton_src(forward: str, extra: str = "", init: str = "pass") -> str:
    """A Triton candidate with the given forward body (indented by the helper)."""
    body = textwrap.indent(textwrap.dedent(forward).strip("\n"), " " * 8)
    init_body = textwrap.indent(textwrap.dedent(init).strip("\n"), " " * 8)
    return (HEAD + textwrap.dedent(extra) + "\n\nclass ModelNew(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n" + init_body + "\n\n    def forward(self, x):\n" + body + "\n")


LAUNCH = """
out = torch.empty_like(x)
n = x.numel()
k_relu[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
"""


def gate(src: str, backend: str | None = "triton", allowed=()) -> GateResult:
    return check_source(src, backend, list(allowed))


def assert_ok(src: str, backend: str | None = "triton", allowed=()) -> None:
    g = gate(src, backend, allowed)
    assert g.ok, g.detail


def assert_rejected(src: str, rule: str | None = None, backend: str | None = "triton", allowed=()) -> GateResult:
    g = gate(src, backend, allowed)
    assert not g.ok, "expected a rejection"
    assert g.status == "rejected"
    if rule is not None:
        assert g.rule == rule, g.detail
    return g


# ---------------------------------------------------------------------------------------------------
# legitimate code
# ---------------------------------------------------------------------------------------------------
LEGIT_FORWARDS = {
    "plain": LAUNCH + "return out",
    "int_math": """
        M, N = x.shape
        pass_count = 0
        BLOCK = triton.next_power_of_2(N)
        blocks = (M * N + BLOCK - 1) // BLOCK
        scale = 1.0 / math.sqrt(N)
        for i in range(2):
            pass_count += i
        out = torch.empty((M, N), device=x.device, dtype=x.dtype)
        k_relu[(blocks,)](x, out, M * N, BLOCK=BLOCK)
        return out.view(M, N)
    """,
    "views_and_shapes": """
        x = x.contiguous().view(-1)
        out = torch.zeros(x.shape[0], device=x.device, dtype=torch.float32)
        stream = torch.cuda.current_stream() if x.is_cuda else None
        k_relu[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
        assert out.dtype == torch.float32 and out.is_contiguous()
        return out.reshape(x.shape).unsqueeze(0).squeeze(0)
    """,
    "no_grad_and_new_empty": """
        with torch.no_grad():
            out = x.new_empty(x.shape)
            k_relu[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
        if out is None or x.dim() != 2:
            return out
        return out
    """,
    "two_kernels_in_place_on_own_buffer": LAUNCH + "k_relu[(triton.cdiv(n, 256),)](out, out, n, BLOCK=256)\n"
                                                   "return out",
    "to_device_and_environ_set": 'os.environ["TORCH_CUDA_ARCH_LIST"] = "9.0"\nx = x.to(x.device)\n' + LAUNCH + "return out",
}


@pytest.mark.parametrize("name", sorted(LEGIT_FORWARDS))
def test_legit_triton_forwards_pass(name):
    assert_ok(triton_src(LEGIT_FORWARDS[name], init="self.block = 256\nself.scale = 2 * 3"))


def test_legit_helper_method():
    src = triton_src("return self._run(x)").rstrip("\n") + """

    def _run(self, t):
        out = torch.empty_like(t)
        k_relu[(triton.cdiv(t.numel(), 256),)](t, out, t.numel(), BLOCK=256)
        return out
"""
    assert_ok(src)


def test_legit_self_attr_int_math_and_weights():
    src = triton_src(LAUNCH + "n2 = n // self.block + self.hidden * 2\nreturn out",
                     init="self.block = 256\nself.hidden = 4\nself.weight = nn.Parameter(torch.randn(4, 4))\n"
                          "self.lin = nn.Linear(4, 4)\nnn.init.zeros_(self.lin.weight)")
    assert_ok(src)


def test_legit_init_may_use_torch_compute():
    init = "w = torch.randn(4, 4)\nself.w = nn.Parameter(w * 0.5 + torch.ones(4, 4).sum())\nself._setup()"
    extra = ""
    src = triton_src(LAUNCH + "return out", extra=extra, init=init)
    src = src.replace("    def forward", "    def _setup(self):\n        self.w2 = self.w.t().relu()\n\n"
                                          "    def forward")
    assert_ok(src)


def test_legit_task_allowed_matmul():
    fwd = "h = x @ self.w\nh = torch.matmul(h, self.w)\n" + LAUNCH + "return out"
    src = triton_src(fwd, init="self.w = nn.Parameter(torch.randn(4, 4))")
    assert_ok(src, allowed=["matmul"])
    assert_rejected(src, "torch_compute")


def test_legit_autotune_and_reference_model_copy_and_main_block():
    src = triton_src(LAUNCH + "return out").replace(
        "@triton.jit", "@triton.autotune(configs=[triton.Config({}, num_warps=4)], key=['n'])\n@triton.jit")
    src += ("\n\nclass Model(nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n\n\n"
            "if __name__ == '__main__':\n    print(torch.relu(torch.randn(3)))\n")
    assert_ok(src)


def test_legit_cuda_inline_extension():
    src = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
__global__ void relu_k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
torch::Tensor relu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    relu_k<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
cpp_src = "torch::Tensor relu_cuda(torch::Tensor x);"
ext = load_inline(name="relu_ext", cpp_sources=cpp_src, cuda_sources=cuda_src, functions=["relu_cuda"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = ext

    def forward(self, x):
        return self.ext.relu_cuda(x.contiguous())
'''
    assert_ok(src, "cuda_inline")
    assert_ok(src, None)
    assert_rejected(src, "no_kernel", backend="triton")
    assert_rejected(src.replace("auto y = torch::empty_like(x);", "auto y = torch::relu(x);"), "torch_compute",
                    backend="cuda_inline")


def test_legit_cupy_rawkernel_and_cuda_core():
    src = '''
import cupy as cp
import numpy as np
import torch
import torch.nn as nn

SRC = r"""
extern "C" __global__ void relu_k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernel = cp.RawKernel(SRC, "relu_k")

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
            self.kernel(((n + 255) // 256,), (256,), (x.data_ptr(), y.data_ptr(), np.int32(n)))
        return y
'''
    assert_ok(src, "cuda_nvrtc")
    core = '''
import torch
import torch.nn as nn
from cuda.core.experimental import Device, LaunchConfig, Program, ProgramOptions, launch

SRC = 'extern "C" __global__ void k(float* y, int n) { }'
_mod = Program(SRC, code_type="c++", options=ProgramOptions(arch="sm_90")).compile("cubin")
_ker = _mod.get_kernel("k")


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        launch(Device().default_stream, LaunchConfig(grid=1, block=128), _ker, y.data_ptr(), x.numel())
        return y
'''
    assert_ok(core, "cuda_nvrtc")


# ---------------------------------------------------------------------------------------------------
# hacks
# ---------------------------------------------------------------------------------------------------
TORCH_COMPUTE = {
    "torch_fn": LAUNCH + "return torch.relu(x)",
    "functional": LAUNCH + "return F.relu(out)",
    "tensor_method": LAUNCH + "return x.clamp(min=0)",
    "operator": LAUNCH + "return out * 1.0",
    "compare": LAUNCH + "return out + (x > 0)",
    "augassign": LAUNCH + "out += 0\nreturn out",
    "setitem": LAUNCH + "i = torch.arange(2)\nout[i] = x[:2]\nreturn out",  # a scatter (slice stores move data)
    "clone_then_compute": LAUNCH + "return x.clone().clamp_(min=0)",
    "cast": LAUNCH + "return out.to(torch.bfloat16)",
    "cast_method": "x = x.half()\n" + LAUNCH + "return out",
    "alias": "r = torch.relu\n" + LAUNCH + "return r(x)",
    "nn_layer": "self.act = nn.ReLU()\n" + LAUNCH + "return self.act(out)",
    "python_sum": LAUNCH + "return sum(out)",
    "partial_lazy": LAUNCH + "return torch.cat([out[:1], torch.relu(x[1:])])",
    "getattr_const": LAUNCH + "return getattr(torch, 'relu')(x)",
    "numpy": LAUNCH + "return torch.from_numpy(x.cpu().numpy())",
}


@pytest.mark.parametrize("name", sorted(TORCH_COMPUTE))
def test_torch_compute_in_forward_rejected(name):
    g = assert_rejected(triton_src(TORCH_COMPUTE[name]))
    assert g.reason.splitlines()[0] in (REASON_TORCH, REASON_POLICY)
    assert f"Rule {g.rule}, line {g.line}" in g.reason and g.detail  # the rule and the line, for the policy


def test_torch_compute_in_helper_and_nn_module_from_init():
    helper = "\ndef helper(t):\n    return torch.sigmoid(t)\n"
    assert_rejected(triton_src(LAUNCH + "return helper(out)", extra=helper), "torch_compute")
    init = "self.act = nn.GELU()"
    assert_rejected(triton_src(LAUNCH + "return self.act(out)", init=init), "torch_compute")
    init = "self.fn = torch.tanh"
    assert_rejected(triton_src(LAUNCH + "return self.fn(out)", init=init), "torch_compute")


POLICY = {
    "try_except": ("try:\n" + textwrap.indent(LAUNCH, "    ") + "except Exception:\n    out = torch.relu(x)\n"
                   "return out", "try_except"),
    "thread": ("import threading\n" + LAUNCH + "return out", "import"),
    "subprocess": ("import subprocess\n" + LAUNCH + "return out", "import"),
    "gc": ("import gc\n" + LAUNCH + "return out", "import"),
    "ctypes": ("from ctypes import CDLL\n" + LAUNCH + "return out", "import"),
    "time": ("import time\n" + LAUNCH + "return out", "import"),
    "open": ("open('/proc/self/maps').read()\n" + LAUNCH + "return out", "builtin"),
    "eval": ("eval('1')\n" + LAUNCH + "return out", "builtin"),
    "globals": ("g = globals()\n" + LAUNCH + "return out", "builtin"),
    "id_cache": ("key = id(x)\n" + LAUNCH + "return out", "builtin"),
    "environ_read": ("s = os.environ['LEAP_SEED']\n" + LAUNCH + "return out", "environ"),
    "getenv": ("s = os.getenv('X')\n" + LAUNCH + "return out", "forbidden_name"),
    "environ_write": ("os.environ['PYTORCH_NO_CUDA_MEMORY_CACHING'] = '1'\n" + LAUNCH + "return out", "environ"),
    "environ_update": ("os.environ.update({'CUDA_VISIBLE_DEVICES': '3'})\n" + LAUNCH + "return out", "forbidden_name"),
    "environ_del": ("del os.environ['TORCH_CUDA_ARCH_LIST']\n" + LAUNCH + "return out", "environ"),
    "os_system": ("os.system('ls')\n" + LAUNCH + "return out", "forbidden_name"),
    "stream": ("s = torch.cuda.Stream()\n" + LAUNCH + "return out", "forbidden_name"),
    "stream_ctx": ("with torch.cuda.stream(torch.cuda.current_stream()):\n    pass\n" + LAUNCH + "return out",
                   "forbidden_name"),
    "monkey_patch": ("torch.allclose = lambda *a, **k: True\n" + LAUNCH + "return out", "monkey_patch"),
    "tf32_flag": ("torch.backends.cuda.matmul.allow_tf32 = True\n" + LAUNCH + "return out", "monkey_patch"),
    "set_precision": ("torch.set_float32_matmul_precision('medium')\n" + LAUNCH + "return out",
                      "forbidden_name"),
    "manual_seed": ("torch.manual_seed(42)\n" + LAUNCH + "return out", "forbidden_name"),
    "dunder": ("f = x.__class__.__mro__\n" + LAUNCH + "return out", "dunder"),
    "frame": ("import sys\nf = sys._getframe(1)\n" + LAUNCH + "return out", "forbidden_name"),
    "dynamic_getattr": ("f = getattr(torch, 're' + 'lu')\n" + LAUNCH + "return out", "dynamic_attr"),
    "setattr_module": ("setattr(torch, 'relu', None)\n" + LAUNCH + "return out", "monkey_patch"),
    "torch_compile": ("f = torch.compile(lambda t: t)\n" + LAUNCH + "return out", "forbidden_name"),
    "as_subclass": (LAUNCH + "return out.as_subclass(torch.Tensor)", "method"),
    "torch_load": ("t = torch.load('/tmp/ref.pt')\n" + LAUNCH + "return out", "forbidden_name"),
    "importlib": ("import importlib\n" + LAUNCH + "return out", "import"),
    "socket": ("import socket\n" + LAUNCH + "return out", "import"),
    "multiprocessing": ("import torch.multiprocessing as mp\n" + LAUNCH + "return out", "import"),
}


@pytest.mark.parametrize("name", sorted(POLICY))
def test_policy_rules(name):
    fwd, rule = POLICY[name]
    g = assert_rejected(triton_src(fwd), rule)
    assert g.reason.splitlines()[0] == REASON_POLICY


def test_module_level_policy_rules():
    assert_rejected(triton_src(LAUNCH + "return out", extra="import time\ntime.perf_counter = lambda: 0.0\n"))
    assert_rejected(triton_src(LAUNCH + "return out", extra="T = torch.Tensor\nT.add = None\n"), "monkey_patch")
    sub = "\nclass Lazy(torch.Tensor):\n    pass\n"
    assert_rejected(triton_src(LAUNCH + "return out", extra=sub), "tensor_subclass")
    tf = "\nclass W:\n    def __torch_function__(self, *a):\n        return 0\n"
    assert_rejected(triton_src(LAUNCH + "return out", extra=tf), "dunder_def")


def test_modelnew_rules():
    src = triton_src(LAUNCH + "return out")
    ref = "\n\nclass Model(nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n"
    inherits = (src + ref).replace("class ModelNew(nn.Module)", "class ModelNew(Model)")
    assert_rejected(inherits, "inherits_model")
    via = (src + ref + "\n\nclass Mid(Model):\n    pass\n").replace("class ModelNew(nn.Module)", "class ModelNew(Mid)")
    assert_rejected(via, "inherits_model")
    uses = src.replace("return out", "return Model()(x)")
    assert_rejected(uses, "uses_model")
    g = gate(src.replace("class ModelNew", "class ModelOther"))
    assert not g.ok and g.status == "format_error"
    g = gate("def broken(:\n")
    assert not g.ok and g.status == "format_error"


def test_no_kernel_launched():
    assert_rejected(triton_src("return torch.empty_like(x)"), "no_kernel")
    decoy_unused = triton_src("return torch.empty_like(x)", extra="\ndef unused(x, o):\n    k_relu[(1,)](x, o, 1, BLOCK=16)\n")
    assert_rejected(decoy_unused, "no_kernel")
    assert_rejected(triton_src(LAUNCH + "return out"), "no_kernel", backend="cuda_inline")


def test_cpp_source_checks():
    for body, rule in [("system(\"curl x\");", "cpp_forbidden"), ("cudaStream_t s; cudaStreamCreate(&s);",
                                                                   "cpp_forbidden"),
                       ("auto y = at::matmul(x, x);", "torch_compute"), ("auto y = x.sum();", "torch_compute")]:
        src = triton_src(LAUNCH + "return out", extra=f'\nCU = r"""\n__global__ void k() {{}}\nvoid f() {{ {body} }}\n"""\n')
        assert_rejected(src, rule)


def test_module_level_and_lazy_kernels_are_found():
    head = ('import cupy as cp\nimport torch\nimport torch.nn as nn\n'
            'SRC = r"""extern "C" __global__ void k(const float* x, float* y, long long n) { }"""\n')
    fwd = ("    def forward(self, x):\n        y = torch.empty_like(x)\n        n = x.numel()\n"
           "        with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):\n"
           "            KERNEL(((n + 255) // 256,), (256,), (x.data_ptr(), y.data_ptr(), cp.int64(n)))\n"
           "        return y\n")
    module_level = head + '_k = cp.RawKernel(SRC, "k")\n\n\nclass ModelNew(nn.Module):\n' + fwd.replace("KERNEL", "_k")
    assert_ok(module_level, "cuda_nvrtc")
    via_module = (head + '_mod = cp.RawModule(code=SRC)\n_k = _mod.get_function("k")\n\n\nclass ModelNew(nn.Module):\n'
                  + fwd.replace("KERNEL", "_k"))
    assert_ok(via_module, "cuda_nvrtc")
    lazy = (head + "\n\nclass ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.k = None\n\n" + fwd.replace(
                "        y = torch.empty_like(x)\n",
                "        if self.k is None:\n            self.k = cp.RawKernel(SRC, 'k')\n"
                "        y = torch.empty_like(x)\n").replace("KERNEL", "self.k"))
    assert_ok(lazy, "cuda_nvrtc")
    ext = ('import torch\nimport torch.nn as nn\nfrom torch.utils.cpp_extension import load_inline\n'
           'ext = load_inline(name="e", cpp_sources="", cuda_sources="__global__ void k() {}", functions=["f"])\n\n\n'
           'class ModelNew(nn.Module):\n    def forward(self, x):\n        return ext.f(x)\n')
    assert_ok(ext, "cuda_inline")


def test_no_false_rejections_on_template_solutions_and_prompt_examples():
    """Known-good code written elsewhere in the project (generator templates, built-in solutions, the
    prompt's few-shot examples for all three backends) passes the gate."""
    from leap.rollout import prompts
    from leap.tasks.generate.generator import generate_tasks
    from leap.tasks.solutions import reference_solution
    from leap.tasks.suite import builtin_tasks

    sources = [(t.name, reference_solution(t), t.allowed_ops) for t in builtin_tasks()]
    items = generate_tasks(40, seed=11, with_solutions=True)[0]
    sources += [(it.task.name, it.solution, it.task.allowed_ops) for it in items]
    sources += [(f"prompt:{b}", s, []) for b, s in prompts._EXAMPLE_SOLUTION.items()]
    checked = 0
    for name, src, allowed in sources:
        if not src:
            continue
        g = check_source(src, None, allowed)
        assert g.ok, f"{name}: {g.detail}"
        checked += 1
    assert checked >= 30


def test_indirect_torch_compute_is_found():
    cls_attr = triton_src(LAUNCH + "return self.act(out)").replace(
        "class ModelNew(nn.Module):\n", "class ModelNew(nn.Module):\n    act = torch.sigmoid\n\n")
    assert_rejected(cls_attr, "torch_compute")
    lam = triton_src(LAUNCH + "return act(out)", extra="\nact = lambda t: torch.sigmoid(t)\n")
    assert_rejected(lam, "torch_compute")
    part = triton_src(LAUNCH + "return act(out)", extra="\nimport functools\nact = functools.partial(F.gelu, approximate='tanh')\n")
    assert_rejected(part, "torch_compute")
    init_part = triton_src(LAUNCH + "return self.act(out)", init="import functools\nself.act = functools.partial(torch.tanh)")
    assert_rejected(init_part, "torch_compute")
    default = triton_src(LAUNCH + "return out").replace("def forward(self, x):", "def forward(self, x, act=torch.tanh):")
    assert_rejected(default.replace("return out", "return act(out)"), "torch_compute")
    assert_ok(default)  # an unused default is harmless
    grid_lambda = triton_src("out = torch.empty_like(x)\nn = x.numel()\n"
                             "grid = lambda meta: ((n + meta['BLOCK'] - 1) // meta['BLOCK'],)\n"
                             "k_relu[grid](x, out, n, BLOCK=256)\nreturn out")
    assert_ok(grid_lambda)
    mod_grid = triton_src(LAUNCH + "return out", extra="\nGRID = lambda meta: (triton.cdiv(4096, meta['BLOCK']),)\n")
    assert_ok(mod_grid)


def test_cuda_core_streams():
    base = '''
import torch
import torch.nn as nn
from cuda.core.experimental import Device, LaunchConfig, Program, Stream, launch

_ker = Program('extern "C" __global__ void k(float* y) { }', code_type="c++").compile("cubin").get_kernel("k")


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        s = STREAM
        launch(s, LaunchConfig(grid=1, block=128), _ker, y.data_ptr())
        return y
'''
    assert_ok(base.replace("STREAM", "Device().create_stream(torch.cuda.current_stream())"), "cuda_nvrtc")
    assert_ok(base.replace("STREAM", "Stream.from_handle(torch.cuda.current_stream().cuda_stream)"), "cuda_nvrtc")
    assert_rejected(base.replace("STREAM", "Device().create_stream()"), "stream", "cuda_nvrtc")
    assert_rejected(base.replace("STREAM", "Stream()"), "stream", "cuda_nvrtc")


def test_mangled_sources_never_crash_the_gate():
    """Random line deletions/duplications/swaps of real candidates: always a GateResult, never an exception."""
    import random

    from leap.sandbox.corpus import load_corpus

    rng = random.Random(0)
    sources = [c.source for c in load_corpus()]
    for _ in range(300):
        lines = rng.choice(sources).splitlines()
        for _ in range(rng.randint(1, 4)):
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            op = rng.random()
            if op < 0.4:
                del lines[i]
            elif op < 0.7:
                lines.insert(i, lines[j])
            else:
                lines[i], lines[j] = lines[j], lines[i]
        g = check_source("\n".join(lines), rng.choice([None, "triton", "cuda_inline", "cuda_nvrtc"]))
        assert isinstance(g, GateResult) and g.rule not in ("gate_error", "too_deep"), g.detail
    deep = "import torch.nn as nn\nclass ModelNew(nn.Module):\n    def forward(self, x):\n        return " + (
        "(" * 400) + "x" + (")" * 400) + "\n"
    assert not check_source(deep, None).ok


def test_tensor_collections_are_tracked():
    helper = "\ndef pair(t):\n    return t, t\n"
    assert_rejected(triton_src(LAUNCH + "a, b = pair(out)\nreturn a + b", extra=helper), "torch_compute")
    assert_rejected(triton_src(LAUNCH + "for t in (out, x):\n    t.mul_(2)\nreturn out"), "torch_compute")
    assert_rejected(triton_src(LAUNCH + "xs = [out, x]\nreturn xs[0] - xs[1]"), "torch_compute")
    assert_ok(triton_src(LAUNCH + "for t in (out,):\n    assert t.is_contiguous()\nreturn out"))
