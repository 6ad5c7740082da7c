"""The static gate's default deny (values of unknown kind are possible tensors), its refusal of string-based
attribute access, the launch styles it recognises, the rule/line it reports and its KernelBench rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_static_gate import LAUNCH, assert_ok, assert_rejected, triton_src

from leap.sandbox.gate import static_kinds as K
from leap.sandbox.gate.static_gate import check_source
from leap.sandbox.gate.static_kinds import SCALAR, TENSOR, TENSORS, UNKNOWN, UNSET, Kind, Tag, items, merge
from leap.sandbox.judge.feedback import gate_feedback

# Each hack: PyTorch computes the answer through an indirection, a copy kernel launches.
HOLES = {
    "dict_container": ("d = {'a': x}\n" + LAUNCH + "return d['a'].relu()", ""),
    "list_container": ("xs = [x]\n" + LAUNCH + "return xs[0] * 1.0", ""),
    "appended_container": ("xs = []\nxs.append(x)\n" + LAUNCH + "return xs.pop().clamp(min=0)", ""),
    "lambda_in_forward": ("f = lambda t: t.relu()\n" + LAUNCH + "return f(x)", ""),
    "closure_in_forward": ("def inner(t):\n    return t.clamp_min(0)\n" + LAUNCH + "return inner(x)", ""),
    "lambda_in_init": (LAUNCH + "return self.f(x)", "self.f = lambda t: t.relu()"),
    "closure_in_init": (LAUNCH + "return self.g(x)", "def g(t):\n    return t.abs() * 0 + t.clamp(min=0)\nself.g = g"),
    "self_attr_stash": ("self.t = x\n" + LAUNCH + "return self.t.relu()", ""),
    "self_attr_container": (LAUNCH + "self.box[0] = x\nreturn self.box[0] * 1", "self.box = [None]"),
    "object_attr_smuggle": ("s = torch.cuda.current_stream()\ns.t = x\n" + LAUNCH + "return s.t.relu()", ""),
    "unknown_call_result": ("f = self.pick()\n" + LAUNCH + "return f(x)", ""),
    "functools_reduce": ("import functools, operator\n" + LAUNCH + "return functools.reduce(operator.mul, [x, 1.0])",
                         ""),
    "init_called_from_forward": (LAUNCH + "self.__init__(x)\nreturn self.r", ""),
    "helper_class_init": (LAUNCH + "return Holder(x).r", ""),
}
POLICY_HOLES = {
    "attrgetter": ("import operator\n" + LAUNCH + "return operator.attrgetter('relu')(x)()", "forbidden_name"),
    "methodcaller": ("from operator import methodcaller\n" + LAUNCH + "return methodcaller('relu')(x)", "import"),
    "getattr_alias": ("g = getattr\n" + LAUNCH + "return g(x, 'rel' + 'u')()", "dynamic_attr"),
    "getattr_module_alias": ("name = 'relu'\n" + LAUNCH + "return getattr(x, name)()", "dynamic_attr"),
    "rebind_getattr": ("def getattr(o, n):\n    return o\n" + LAUNCH + "return out", "rebind_builtin"),
    "sys_modules": ("import sys\n" + LAUNCH + "return sys.modules['torch'].relu(x)", "forbidden_name"),
    "dict_lookup": (LAUNCH + "return torch.__dict__['relu'](x)", "dunder"),
    "importlib": ("import importlib\n" + LAUNCH + "return importlib.import_module('torch').relu(x)", "import"),
    "rebind_range": (LAUNCH + "range = list\nfor r in range([x]):\n    out = r\nreturn out", "rebind_builtin"),
    "cuda_comm": (LAUNCH + "return torch.cuda.comm.reduce_add([x, out])", "forbidden_name"),
}
EXTRA = """

class Holder:
    def __init__(self, t):
        self.r = torch.relu(t)
"""


@pytest.mark.parametrize("name", sorted(HOLES))
def test_indirections_to_pytorch_compute_are_rejected(name):
    fwd, init = HOLES[name]
    src = triton_src(fwd, extra=EXTRA, init=init or "pass")
    if name == "unknown_call_result":
        src = src.replace("    def forward", "    def pick(self):\n        return self.fns[0]\n\n    def forward")
    if name == "init_called_from_forward":
        src = src.replace("def __init__(self):", "def __init__(self, t=None):").replace(
            "super().__init__()\n", "super().__init__()\n        self.r = torch.relu(t) if t is not None else t\n")
    g = assert_rejected(src)
    assert g.rule in ("torch_compute", "dunder"), g.detail


@pytest.mark.parametrize("name", sorted(POLICY_HOLES))
def test_string_based_attribute_access_is_refused(name):
    fwd, rule = POLICY_HOLES[name]
    src = triton_src(fwd)
    if name in ("getattr_alias", "rebind_getattr"):  # module level
        first, rest = fwd.split("\n", 1) if name == "getattr_alias" else (fwd.split(LAUNCH)[0], LAUNCH + "return out")
        src = triton_src(rest, extra="\n" + first + "\n")
    assert_rejected(src, rule)


KERNEL_ARG = """
def launch(kernel, x, out):
    n = x.numel()
    kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
    return out
"""
LAUNCH_STYLES = {
    "kernel_as_argument": ("return launch(k_relu, x, torch.empty_like(x))", KERNEL_ARG, "pass"),
    "dispatch_dict": ("out = torch.empty_like(x)\nn = x.numel()\nKERNELS['relu'][(triton.cdiv(n, 256),)](x, out, n, "
                      "BLOCK=256)\nreturn out", "\nKERNELS = {'relu': k_relu}\n", "pass"),
    "dispatch_dict_on_self": ("out = torch.empty_like(x)\nn = x.numel()\nk = self.kernels[self.kind]\n"
                              "k[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)\nreturn out", "",
                              "self.kernels = {'relu': k_relu}\nself.kind = 'relu'"),
    "partial_launch": ("out = torch.empty_like(x)\nn = x.numel()\n"
                       "run = functools.partial(k_relu[(triton.cdiv(n, 256),)], BLOCK=256)\nrun(x, out, n)\n"
                       "return out", "\nimport functools\n", "pass"),
    "helper_launcher": ("return run_relu(x)", "\ndef run_relu(t):\n    out = torch.empty_like(t)\n    n = t.numel()\n"
                        "    k_relu[(triton.cdiv(n, 256),)](t, out, n, BLOCK=256)\n    return out\n", "pass"),
    "launcher_built_in_init": ("out = torch.empty_like(x)\nself.go(x, out, x.numel())\nreturn out", "",
                               "self.go = lambda a, b, n: k_relu[(triton.cdiv(n, 256),)](a, b, n, BLOCK=256)"),
    "grid_lambda_arithmetic": ("out = torch.empty_like(x)\nn = x.numel()\n"
                               "k_relu[lambda meta: ((n + meta['BLOCK'] - 1) // meta['BLOCK'],)](x, out, n, BLOCK=256)\n"
                               "return out", "", "pass"),
    "init_scalars_and_layers": ("B = self.dim * 2 + self.lin.out_features\nout = torch.empty_like(x)\nn = x.numel()\n"
                                "for i, t in enumerate([x]):\n    k_relu[(triton.cdiv(n, B),)](t, out, n, BLOCK=256)\n"
                                "return out", "", "self.dim = dim\nself.lin = nn.Linear(dim, dim)"),
}


@pytest.mark.parametrize("name", sorted(LAUNCH_STYLES))
def test_legitimate_launch_styles_are_custom_kernels(name):
    fwd, extra, init = LAUNCH_STYLES[name]
    src = triton_src(fwd, extra=extra, init=init)
    if name == "init_scalars_and_layers":
        src = src.replace("def __init__(self):", "def __init__(self, dim=4):")
    assert_ok(src)


def test_staticmethod_kernel_of_modelnew():
    src = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    @staticmethod
    @triton.jit
    def _relu(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=offs < n)

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        self._relu[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        ModelNew._relu[(triton.cdiv(n, 256),)](out, out, n, BLOCK=256)
        return out
"""
    assert_ok(src)
    assert_rejected(src.replace("return out", "return out * 1"), "torch_compute")


def test_rejection_names_rule_and_line_and_syntax_error_gives_column():
    src = triton_src(LAUNCH + "return out.sigmoid()")
    g = check_source(src, "triton")
    line = src.splitlines().index("        return out.sigmoid()") + 1
    assert (g.rule, g.line, g.col) == ("torch_compute", line, 15)
    assert f"Rule torch_compute, line {line}:" in g.reason and f"{line} | return out.sigmoid()" in g.reason
    bad = check_source("class ModelNew:\n    def forward(self, x)\n        return x\n")
    assert bad.status == "format_error" and (bad.rule, bad.line) == ("syntax", 2) and bad.col is not None
    assert "line 2, column" in bad.reason and "def forward(self, x)" in bad.reason


def test_gate_feedback_bounds_and_quotes():
    text = gate_feedback("Why.", "torch_compute", 2, 4, "msg", "a = 1\n    y = x * 2\n")
    assert text.splitlines() == ["Why.", "Rule torch_compute, line 2: msg", "    2 | y = x * 2"]
    assert gate_feedback("Why.", "r", 99, 0, "m", "x\n").count("\n") == 1  # out of range: no quote


def test_kernelbench_rules_allow_partial_pytorch_and_report_the_strict_verdict():
    partial = triton_src(LAUNCH + "return torch.sigmoid(out) + x")
    strict = check_source(partial, "triton")
    kb = check_source(partial, "triton", rules="kernelbench")
    assert not strict.ok and strict.rule == "torch_compute" and strict.strict == ""
    assert kb.ok and kb.rules == "kernelbench" and kb.strict.startswith("rejected: torch_compute (line ")
    pure_torch = triton_src("return torch.relu(x)")
    assert check_source(pure_torch, "triton", rules="kernelbench").rule == "no_kernel"  # a kernel is still required
    unsafe = triton_src("import socket\n" + LAUNCH + "return out")
    assert not check_source(unsafe, "triton", rules="kernelbench").ok  # safety rules hold in every mode
    assert check_source(triton_src(LAUNCH + "return out"), rules="kernelbench").strict == "ok"
    with pytest.raises(ValueError, match="unknown gate rules"):
        check_source(partial, rules="nope")


CUDA = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

src = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdio.h>
#include <stdint.h>
#include <math.h>
#include <cmath>
#include <vector>
#include <algorithm>
HEADER
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = fmaxf(x[i], 0.f); }
    if (i == 0 && n < 0) printf("bad n %d\\n", n);
}
torch::Tensor run(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    BODY
    k<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
ext = load_inline(name="e", cpp_sources="torch::Tensor run(torch::Tensor x);", cuda_sources=src, functions=["run"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.run(x)
'''


@pytest.mark.parametrize("header, body, ok", [
    ("", "", True),
    ("#include <iostream>", "std::vector<int> v(3); std::sort(v.begin(), v.end()); std::remove(v.begin(), v.end(), 1);",
     True),
    ("#include <cuda.h>  // driver types\n#include <cstdint> /* sizes */", "", True),  # a comment after it
    ("#include <unistd.h>  // not a standard header", "", False),
    ("#include <unistd.h>", "", False),
    ("#include <sys/socket.h>", "", False),
    ("#include <dlfcn.h>", "", False),
    ("", 'system("id");', False),
    ("", 'FILE* f = fopen("/etc/passwd", "r");', False),
    ("", 'int fd = open("/tmp/x", 0);', False),
    ("", 'asm volatile("syscall");', False),
])
def test_cuda_headers_standard_ones_allowed_dangerous_ones_not(header, body, ok):
    src = CUDA.replace("HEADER", header).replace("BODY", body)
    g = check_source(src, "cuda_inline")
    assert g.ok is ok, g.detail
    if not ok:
        assert g.rule == "cpp_forbidden" and g.line and src.splitlines()[g.line - 1].strip() in g.reason


def test_kinds_are_a_typed_lattice():
    assert merge(UNSET, SCALAR) == SCALAR and merge(SCALAR, UNKNOWN) == UNKNOWN and merge(TENSOR, SCALAR) == TENSOR
    jit_items = items(Kind(Tag.JIT))
    assert jit_items.tag is Tag.ITEMS and jit_items.inner == Kind(Tag.JIT) and not jit_items.maybe_tensor
    assert items(TENSOR) == TENSORS and items(SCALAR) == K.SEQ and UNKNOWN.maybe_tensor and UNSET.maybe_tensor


def test_judge_gate_carries_rules_rule_line_and_strict_verdict():
    from leap.sandbox.judge.judge_shim import gate as judge_gate

    partial = triton_src(LAUNCH + "return torch.sigmoid(out)")
    strict = judge_gate(partial, "triton", [])
    kb = judge_gate(partial, "triton", [], rules="kernelbench")
    assert not strict.ok and strict.rule == "torch_compute" and strict.line and strict.strict == ""
    assert kb.ok and kb.strict.startswith("rejected: torch_compute")
    fmt = judge_gate("def f(:\n", None, [], full=False)  # the format-only gate also gives line and column
    assert fmt.status == "format_error" and (fmt.line, fmt.col) == (1, 6) and "line 1, column 7" in fmt.reason


def test_config_and_cli_take_the_rules(tmp_path):
    from typer.testing import CliRunner

    from leap.cli.main import app
    from leap.sandbox import SandboxConfig
    from leap.sandbox.judge.verdict import Verdict

    assert SandboxConfig().rules == "leap" and SandboxConfig(rules="kernelbench").rules == "kernelbench"
    with pytest.raises(ValueError):
        SandboxConfig(rules="nope")
    assert Verdict(status="ok").strict_gate is None and "strict_gate" in Verdict(status="ok").public_dict()
    cand = tmp_path / "c.py"
    cand.write_text(triton_src(LAUNCH + "return out"))
    res = CliRunner().invoke(app, ["verify", "relu_fp32", str(cand), "--rules", "nope"])
    assert res.exit_code == 2 and "--rules: 'nope' is not one of leap, kernelbench" in res.output


@pytest.mark.parametrize("path", sorted((Path(__file__).parent / "gate_sources").glob("*.py")), ids=lambda p: p.stem)
def test_default_deny_accepts_realistic_legitimate_code(path):
    """Layer configs, init scalars, device properties, meta dicts, enumerate, ModuleList of user blocks,
    autograd Functions: all of known kind, so default deny must not reject them."""
    g = check_source(path.read_text(), None, [])
    assert g.ok, g.detail


@pytest.mark.parametrize("extra, init, fwd", [
    ("\nclass H:\n    def __getitem__(self, t):\n        return t.relu()\n", "self.h = H()", "return self.h[x]"),
    ("", "", "class I:\n    def __getitem__(s, t):\n        return t.relu()\nreturn I()[x]"),
    ("\ndef deco(f):\n    return lambda self, t: t.clamp(min=0)\n", "", "return out"),
], ids=["implicit_dunder", "class_in_forward", "decorator_lambda"])
def test_code_reached_implicitly_is_analysed(extra, init, fwd):
    src = triton_src(LAUNCH + fwd, extra=extra, init=init or "pass")
    assert_rejected(src, "torch_compute")
    nested = triton_src(LAUNCH + "return out").replace(
        "class ModelNew(nn.Module):\n", "class ModelNew(nn.Module):\n    class Inner:\n        def go(self, t):\n"
                                        "            return t.clamp(min=0)\n\n")
    assert_rejected(nested, "torch_compute")  # a class nested in a class


@pytest.mark.parametrize("call, refused", [
    ("super(torch.Tensor, x).numpy()", True),   # TensorBase's own numpy: past the run-time read-out wrappers
    ("super(nn.Module, self).__init__()", True),
    ("super(ModelNew, self).__init__()", False),
    ("super().__init__()", False),
])
def test_super_takes_only_an_own_class_and_self(call, refused):
    src = triton_src(LAUNCH + "return out", init=call).replace("        super().__init__()\n", "", 1)
    if refused:
        assert_rejected(src, "super")
    else:
        assert_ok(src)


# a tuple or keyword dict mixing a tensor and a size is a record (each element keeps its kind): the size is
# arithmetic for the launch, the tensor is still a tensor wherever it goes (round 17b false rejections)
RECORD_HACKS = {
    "index": "p = (x, 5)\n" + LAUNCH + "return p[0].relu()",
    "unpack": "p = (x, 5)\na, b = p\n" + LAUNCH + "return a.relu()",
    "dict_subscript": "d = dict(t=x, n=1)\n" + LAUNCH + "return d['t'].relu()",
    "dict_values": "d = dict(t=x, n=1)\n" + LAUNCH + "return list(d.values())[0].relu()",
    "loop": "p = (x, 5)\n" + LAUNCH + "for v in p:\n    out = v\nreturn out.relu()",
    "user_function": "def f(pair):\n    return pair[0].relu()\n" + LAUNCH + "return f((x, 5))",
    "splat": "p = (x, 5)\n" + LAUNCH + "return torch.clamp(*p)",
    "dict_store": "d = dict(t=x, n=1)\nd['n'] = x\n" + LAUNCH + "return d['n'].relu()",
    "data_size": "p = (x, (x > 0).sum())\n" + LAUNCH + "k_relu[(triton.cdiv(p[1], 256),)](x, out, n, BLOCK=256)\n"
                 "return out",
}
RECORD_LEGIT = {
    "tuple": "pair = (x, 256)\nx2, b = pair\nout = torch.empty_like(x2)\nn = x2.numel()\n"
             "k_relu[(triton.cdiv(n, b),)](x2, out, n, BLOCK=256)\nreturn out",
    "helper": "x2, n = split(x)\nout = torch.empty_like(x2)\nk_relu[(triton.cdiv(n, 256),)](x2, out, n, BLOCK=256)\n"
              "return out",
    "kwargs_dict": "out = torch.empty_like(x)\nargs = dict(x_ptr=x, out_ptr=out, n=x.numel())\n"
                   "k_relu[(triton.cdiv(args['n'], 256),)](**args, BLOCK=256)\nreturn out",
}


@pytest.mark.parametrize("name", sorted(RECORD_HACKS))
def test_records_keep_their_tensors_tracked(name):
    assert_rejected(triton_src(RECORD_HACKS[name]), "torch_compute")


@pytest.mark.parametrize("name", sorted(RECORD_LEGIT))
def test_sizes_beside_tensors_in_a_record_are_sizes(name):
    extra = "def split(t):\n    return t.contiguous(), t.numel()\n"
    assert_ok(triton_src(RECORD_LEGIT[name], extra=extra))


def test_a_constant_in_a_slice_bound_is_not_the_sliced_tensor():
    """``views.append(x[r:r + STEP])`` puts views of ``x`` in the list, not ``STEP`` (round 17b: ``STEP`` in
    ``range(0, R, STEP)`` became tensor data)."""
    body = ("out = torch.empty_like(x)\nviews = []\nfor r in range(0, x.shape[0], STEP):\n"
            "    views.append(x[r:r + STEP])\nfor i, v in enumerate(views):\n    n = v.numel()\n"
            "    k_relu[(triton.cdiv(n, 256),)](v, out[i * STEP:(i + 1) * STEP], n, BLOCK=256)\nreturn out")
    assert_ok(triton_src(body, extra="STEP = 8\n"))
    hack = body.replace("views.append(x[r:r + STEP])", "views.append(x[r:r + STEP].relu())")
    assert_rejected(triton_src(hack, extra="STEP = 8\n"), "torch_compute")


@pytest.mark.parametrize("tail, refused", [
    ("return out", False),
    ("return d.base.relu()", True),
    ("e = TensorDescriptor.from_tensor(x.clamp(min=0), [16])\nreturn out", True),
    ("e = TensorDescriptor.from_tensor(x, [x])\nreturn out", True),
])
def test_host_tensor_descriptors_are_views_of_their_tensor(tail, refused):
    """Triton's host ``TensorDescriptor`` (``from_tensor(x, block)``) is a kernel argument describing ``x``."""
    src = triton_src(LAUNCH + "d = TensorDescriptor.from_tensor(x, [16])\n" + tail,
                     extra="from triton.tools.tensor_descriptor import TensorDescriptor\n")
    if refused:
        assert_rejected(src)
    else:
        assert_ok(src)


@pytest.mark.parametrize("made, refused", [
    ("k2 = triton.jit(_body, do_not_specialize=['n'])", False),
    ("k2 = triton.heuristics({'B2': lambda a: 64})(triton.jit(_body))", False),
    ("k2 = triton.heuristics({'B2': lambda a: a['x_ptr'].relu().sum() > 0})(triton.jit(_body))", True),
    ("k2 = triton.autotune(configs=[triton.Config({}, pre_hook=lambda a: a['o_ptr'].copy_(a['x_ptr'].relu()))], "
     "key=['n'])(triton.jit(_body))", True),
])
def test_decorators_applied_by_call_are_decorators(made, refused):
    """``k = triton.heuristics(h)(triton.jit(fn, **opts))`` reads as the decorated ``def k`` (round 18b)."""
    extra = ("def _body(x_ptr, o_ptr, n, BLOCK: tl.constexpr, B2: tl.constexpr = 64):\n"
             "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
             "    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)\n\n\n" + made + "\n")
    src = triton_src("out = torch.empty_like(x)\nn = x.numel()\nk2[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)\n"
                     "return out", extra=extra)
    if refused:
        assert_rejected(src)
    else:
        assert_ok(src)
