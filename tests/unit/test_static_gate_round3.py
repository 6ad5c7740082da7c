"""The static gate against the third red-team pass (2026-12-03): names the file never binds (Triton's CPU
interpreter copies its own module globals, ``inspect`` and ``np`` among them, into the candidate's module on
the first launch), and kernel bodies that call or query their local values as Python objects (a host
function or an object of lost kind handed in, the interpreter's ``.handle.data`` buffers). Legitimate
shapes of the same constructs pass."""

from __future__ import annotations

import pytest
from test_static_gate import LAUNCH, assert_ok, assert_rejected, triton_src

KERNEL = "@triton.jit\ndef k_body(x_ptr, out_ptr, h, n, BLOCK: tl.constexpr):\n{body}\n"
BODY_HEAD = ("    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    mask = offs < n\n"
             "    v = tl.load(x_ptr + offs, mask=mask, other=0.0)\n")
BODY_TAIL = "    tl.store(out_ptr + offs, v, mask=mask)"
CALL_BODY = "out = torch.empty_like(x)\nn = x.numel()\nk_body[(triton.cdiv(n, 256),)](x, out, {arg}, n, BLOCK=256)\nreturn out"

UNBOUND = {  # forward body, module-level extra, rule
    "global_after_launch": (LAUNCH + "f = inspect.stack\nfr = f(0)\nreturn out", ""),
    "numpy_never_imported": (LAUNCH + "g = np.maximum\nreturn out", ""),
    "local_elsewhere_only": (LAUNCH + "g = inspect.stack\nreturn out", "def other():\n    inspect = 1\n    return inspect\n"),
    "class_body_name_in_method": (LAUNCH + "return self.helper(out)",
                                  "class Base:\n    tool = 1\n    def helper(self, o):\n        return tool and o\n"),
    "comprehension": (LAUNCH + "v = [time for _ in range(2)]\nreturn out", ""),
}


@pytest.mark.parametrize("name", sorted(UNBOUND))
def test_names_the_file_never_binds_are_rejected(name):
    fwd, extra = UNBOUND[name]
    g = assert_rejected(triton_src(fwd, extra=extra), "unbound_name")
    assert "never defined or imported" in g.detail


BOUND = {
    "global_declared_and_assigned": (LAUNCH + "setup()\nreturn out",
                                     "def setup():\n    global CACHE\n    CACHE = 4\n\ndef use():\n    return CACHE\n"),
    "builtins_and_dunders": (LAUNCH + "assert isinstance(n, int), __name__\nreturn out", ""),
    "comprehension_and_walrus": (LAUNCH + "sizes = [d for d in x.shape]\nif (m := len(sizes)) > 5:\n    pass\nreturn out", ""),
    "module_level_loop_variable": (LAUNCH + "return out", "for _B in (64, 128):\n    LAST = _B\n"),
}


@pytest.mark.parametrize("name", sorted(BOUND))
def test_names_bound_anywhere_python_finds_them_pass(name):
    fwd, extra = BOUND[name]
    assert_ok(triton_src(fwd, extra=extra))


BODIES = {  # kernel body lines between the head and the tail, the argument h gets
    "local_copy_of_host_function": ("    fn = h\n    fn(v, 0.0, v)\n", "np.maximum if n > 0 else x"),
    "interpreter_buffer": ("    buf = v.handle.data\n", "1.0"),
    "method_of_object_through_local": ("    o = h\n    o.act(v)\n", "self if n > 0 else x"),
    "subscript_call": ("    hs = (h, h)\n    hs[0](v)\n", "np.maximum if n > 0 else x"),
    "frame_attributes": ("    fl = h\n    w = fl[0].frame\n", "1.0"),
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_kernel_bodies_use_their_values_only_as_triton_values(name):
    lines, arg = BODIES[name]
    extra = "\nimport numpy as np\n" + KERNEL.format(body=BODY_HEAD + lines + BODY_TAIL)
    assert_rejected(triton_src(CALL_BODY.format(arg=arg), extra=extra), "jit_body")


def test_triton_values_keep_their_methods_and_dtype_queries():
    lines = ("    w = v.to(tl.float32)\n    s = tl.sum(w, axis=0) + w.sum(axis=0)\n"
             "    if w.dtype.is_fp16():\n        w = w.exp() * 0.0\n"
             "    r = tl.where(w > 0, w, 0.0).reshape(BLOCK)\n    v = (r + s * 0.0).to(x_ptr.dtype.element_ty)\n"
             "    sq = lambda a: a * a\n    v = v + sq(v) * 0.0\n")
    extra = KERNEL.format(body=BODY_HEAD + lines + BODY_TAIL)
    assert_ok(triton_src(CALL_BODY.format(arg="1.0"), extra=extra))



def test_kernel_bodies_reach_neither_triton_host_modules_nor_a_lambda_name_rebound_to_a_value():
    body = BODY_HEAD + "    d = triton.runtime.interpreter.textwrap.dedent\n" + BODY_TAIL
    g = assert_rejected(triton_src(CALL_BODY.format(arg="1.0"), extra=KERNEL.format(body=body)))
    # forbidden_name once the interpreter is imported in this process (the chain then resolves to textwrap)
    assert g.rule in ("jit_body", "forbidden_name"), g.detail
    body = BODY_HEAD + "    fn = lambda a, b, c: a\n    fn = h\n    fn(v, 0.0, v)\n" + BODY_TAIL
    extra = "\nimport numpy as np\n" + KERNEL.format(body=body)
    assert_rejected(triton_src(CALL_BODY.format(arg="np.maximum if n > 0 else x"), extra=extra), "jit_body")


def test_pasted_input_functions_dtype_queries_and_class_dunders_pass():
    extra = ("class Cfg:\n    tag = __qualname__\n\n\ndef get_inputs():\n    return [torch.randn(batch_size, dim)]\n\n"
             + KERNEL.format(body=BODY_HEAD + "    if x_ptr.dtype.element_ty.is_bf16() or v.dtype.is_fp8e4nv():\n"
                                             "        v = v.to(tl.float32)\n" + BODY_TAIL))
    assert_ok(triton_src(CALL_BODY.format(arg="1.0"), extra=extra))


HOST_CPP = ('"""\\n#include <cstdint>\\nvoid go(int64_t a, int64_t b, int64_t n) {\\n'
            '  const float* x = reinterpret_cast<const float*>(a); float* y = reinterpret_cast<float*>(b);\\n'
            '  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;\\n}\\n"""')
EXT_BUILDS = {  # how the C++-only extension is built (module level)
    "direct": "from torch.utils.cpp_extension import load_inline\next = load_inline(name='e', cpp_sources=SRC, functions=['go'])",
    "getattr": "import torch.utils.cpp_extension\next = getattr(torch.utils.cpp_extension, 'load_inline')(name='e', cpp_sources=SRC, functions=['go'])",
    "partial": "import functools\nimport torch.utils.cpp_extension as cx\nmk = functools.partial(cx.load_inline, name='e', cpp_sources=SRC, functions=['go'])\next = mk()",
    "module_alias": "import torch.utils.cpp_extension as cx\nbuild = cx.load_inline\next = build(name='e', cpp_sources=SRC, functions=['go'])",
}
PTR_CALL = LAUNCH + "ext.go(x.data_ptr(), out.data_ptr(), n)\nreturn out"


@pytest.mark.parametrize("build", sorted(EXT_BUILDS))
def test_extension_calls_with_data_pointers_are_host_compute(build):
    """A C++-only extension computes on the host whatever it is handed: its data pointers as integers too
    (red-team pass of 2026-12-03); the backend is detected however load_inline is reached."""
    from leap.sandbox.gate.backends import detect_backends

    src = triton_src(PTR_CALL, extra=f"SRC = {HOST_CPP}\n{EXT_BUILDS[build]}\n")
    assert "cuda_inline" in detect_backends(src), build
    for backend in ("triton", "cuda_inline"):
        assert_rejected(src, "torch_compute", backend=backend)


def test_cuda_extension_called_with_data_pointers_passes_under_cuda_inline():
    cu = ('"""\\n#include <cstdint>\\n__global__ void relu_k(const float* x, float* y, int64_t n) {\\n'
          '  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;\\n  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;\\n}\\n'
          'void go(int64_t a, int64_t b, int64_t n) {\\n'
          '  relu_k<<<(n + 255) / 256, 256>>>(reinterpret_cast<const float*>(a), reinterpret_cast<float*>(b), n);\\n}\\n"""')
    src = ("import torch\nimport torch.nn as nn\nfrom torch.utils.cpp_extension import load_inline\n"
           f"CU = {cu}\next = load_inline(name='e', cpp_sources='void go(int64_t a, int64_t b, int64_t n);', "
           "cuda_sources=CU, functions=['go'])\n\n\nclass ModelNew(nn.Module):\n    def forward(self, x):\n"
           "        x = x.contiguous()\n        out = torch.empty_like(x)\n"
           "        ext.go(x.data_ptr(), out.data_ptr(), x.numel())\n        return out\n")
    assert_ok(src, backend="cuda_inline")


LOCAL_NAMES = {  # forward body: a parameter or local named like a refused builtin is that local
    "parameter_input": ("def helper(input):\n    return input.contiguous()\n", "x = helper(x)\n" + LAUNCH + "return out"),
    "local_input": ("", "input = x.contiguous()\nx = input\n" + LAUNCH + "return out"),
    "lambda_parameter": ("", "f = lambda input: input.contiguous()\nx = f(x)\n" + LAUNCH + "return out"),
    "local_id": ("", "id = 0\nx = x if id == 0 else x\n" + LAUNCH + "return out"),
    "walrus_in_a_comprehension": ("", "v = [(input := t) for t in (1, 2)]\nk = input\n" + LAUNCH + "return out"),
    "module_level_binding": ("input = 3\ndef size():\n    return input\n", LAUNCH + "return out"),
}
BUILTIN_NAMES = {  # the builtin itself, also from a scope where another function binds the name
    "input_called": ("", LAUNCH + "v = input('?')\nreturn out"),
    "input_in_lambda_body": ("", "f = lambda y: input\n" + LAUNCH + "return out"),
    "bound_in_a_nested_function_only": ("", "def g():\n    input = 1\n    return input\n" + LAUNCH + "v = input\nreturn out"),
    "id_called": ("", LAUNCH + "v = id(x)\nreturn out"),
    # the builtin reached through what looks like a binding (a red-team pass, 2026-12-03)
    "parameter_default": ("def probe(p, open=open):\n    return open(p)\n", LAUNCH + "return out"),
    "lambda_default": ("", "f = lambda p, open=open: 0\n" + LAUNCH + "return out"),
    "comprehension_target": ("", "v = [0 for open in ()]\nf = open\n" + LAUNCH + "return out"),
    "module_branch_never_run": ("if False:\n    open = None\ndef probe(p):\n    return open(p)\n", LAUNCH + "return out"),
    "module_annotation_only": ("open: object\ndef probe(p):\n    return open(p)\n", LAUNCH + "return out"),
    "module_binding_deleted": ("open = 1\ndel open\ndef probe(p):\n    return open(p)\n", LAUNCH + "return out"),
}


@pytest.mark.parametrize("name", sorted(LOCAL_NAMES))
def test_a_local_named_like_a_refused_builtin_is_the_local(name):
    extra, fwd = LOCAL_NAMES[name]
    assert_ok(triton_src(fwd, extra=extra))


@pytest.mark.parametrize("name", sorted(BUILTIN_NAMES))
def test_the_refused_builtin_itself_is_still_refused(name):
    extra, fwd = BUILTIN_NAMES[name]
    assert_rejected(triton_src(fwd, extra=extra), "builtin")


LAYER_INIT = "self.fc = nn.Linear(8, 8).to(torch.bfloat16){more}"


@pytest.mark.parametrize("more", ["", ".eval()", ".cuda().half()"])
def test_a_layer_cast_or_moved_in_init_is_still_the_layer(more):
    fwd = "x = self.fc(x)\n" + LAUNCH + "return out"
    assert_ok(triton_src(fwd, init=LAYER_INIT.format(more=more)), allowed=["linear"])
    assert_rejected(triton_src(fwd, init=LAYER_INIT.format(more=more)), "torch_compute")  # linear not allowed


PLAIN_KERNEL = ("def k_plain(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                "    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)\n")


@pytest.mark.parametrize("wrap", ["k_relu2 = triton.jit(k_plain)\n",
                                  "from triton import jit\nk_relu2 = jit(k_plain)\n"])
def test_a_kernel_made_by_calling_triton_jit_on_a_function_is_a_kernel(wrap):
    fwd = "out = torch.empty_like(x)\nn = x.numel()\nk_relu2[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)\nreturn out"
    assert_ok(triton_src(fwd, extra=PLAIN_KERNEL + wrap))
    # its body is a kernel body: host code in it is refused as in any @triton.jit kernel
    bad = PLAIN_KERNEL.replace("    offs =", "    v = x_ptr.handle\n    offs =")
    assert_rejected(triton_src(fwd, extra=bad + wrap), "jit_body")
    # and its constexpr parameter takes no tensor
    assert_rejected(triton_src(fwd.replace("BLOCK=256", "BLOCK=x"), extra=PLAIN_KERNEL + wrap))


@pytest.mark.parametrize(("extra", "line_of"), [
    # the kernel reads its own parameter BLOCK first; the unbound read is the launcher's BLOCK=BLOCK
    ("@triton.jit\ndef k2(x_ptr, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n\n"
     "def launch(x):\n    k2[(1,)](x, BLOCK=BLOCK)\n", "k2[(1,)](x, BLOCK=BLOCK)"),
    # a method parameter named like the unbound module-level read below it
    ("def helper(kernel_size):\n    return kernel_size\n\nK = kernel_size\n", "K = kernel_size"),
    # a comprehension variable first, then the unbound read
    ("def sizes(xs):\n    return [bias for bias in xs]\n\ndef add(x):\n    return x + bias\n", "return x + bias"),
])
def test_unbound_name_points_at_the_unbound_read_not_at_a_local_of_the_same_name(extra, line_of):
    src = triton_src(LAUNCH + "return out", extra=extra)
    g = assert_rejected(src, "unbound_name")
    want = next(i for i, text in enumerate(src.splitlines(), 1) if line_of in text)
    assert f"line {want}:" in g.detail, (want, g.detail)


CONSTEXPR_FN = "@triton.constexpr_function\ndef chunks(total, block):\n{body}\n"


def test_a_constexpr_function_is_host_python_on_constexprs_only():
    """Triton's ``@triton.constexpr_function`` helpers are callable from kernels; their bodies follow the
    kernel-body rules and may not reach Triton's kernel language (``tl.load``/``tl.store``), which a GPU
    compile refuses there and which the CPU interpreter would run on the host."""
    ok_body = "    return (total + block - 1) // block + int(math.log2(block)) * 0"
    use = "    c = chunks(BLOCK * 2, BLOCK)\n"
    kernel = KERNEL.format(body=BODY_HEAD + use + BODY_TAIL)
    assert_ok(triton_src(CALL_BODY.format(arg="1.0"), extra="\nimport math\n" + CONSTEXPR_FN.format(body=ok_body)
                         + kernel))
    for body in ("    tl.store(total, block)\n    return 0", "    return np.maximum(total, block)",
                 "    return total.handle.data"):
        extra = "\nimport numpy as np\n" + CONSTEXPR_FN.format(body=body) + kernel
        assert_rejected(triton_src(CALL_BODY.format(arg="1.0"), extra=extra), "jit_body")
