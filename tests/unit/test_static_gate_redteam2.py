"""The static gate against the second red-team pass: frame introspection, attributes of library layers,
builtins and shapes that turned tensor data into "scalars", numpy dtype constructors building arrays, C++
extensions computing on the host, launches that never run, file I/O through methods, dtypes through
variables; and the autograd Functions it used to refuse. One case per mechanism, several per class; the
corpus (``tests/corpus/{hacks,legit}/gate_*``) runs whole files of the same classes through the sandbox."""

from __future__ import annotations

import ast

import pytest
from test_static_gate import LAUNCH, assert_ok, assert_rejected, triton_src

from leap.sandbox.gate import static_kinds as K
from leap.sandbox.gate.static_gate import check_source
from leap.sandbox.gate.static_reach import empty, never

IMPORTS = "\nimport numpy as np\n"
COPY = "out = torch.empty_like(x)\nn = x.numel()\nk_relu[(triton.cdiv(n, 256),)](r, out, n, BLOCK=256)\nreturn out"
BYTES = "b = x.contiguous().view(torch.uint8).view(-1)\n"
EXT = ("from torch.utils.cpp_extension import load_inline\next = load_inline(name='e', cpp_sources='torch::Tensor "
       "f(torch::Tensor x) { return x; }', functions=['f']{cuda})\n")

# name -> (forward body, module-level extra, __init__ body, rule)
HACKS = {
    # 1. frame, code, generator and traceback attributes, on any object
    "generator_frame": ("g = (i for i in range(1))\nf = g.gi_frame.f_back\nr = x\n" + COPY, "", "", "introspection"),
    "getattr_frame": ("g = (i for i in range(1))\nf = getattr(g, 'gi_frame')\nr = x\n" + COPY, "", "", "introspection"),
    "hasattr_frame": ("g = (i for i in range(1))\nok = hasattr(g, 'cr_frame')\nr = x\n" + COPY, "", "", "introspection"),
    "traceback_frame": ("t = None\nif t is not None:\n    t = t.tb_next.tb_frame\nr = x\n" + COPY, "", "", "introspection"),
    "code_consts": ("c = self.forward\nk = c.co_consts if c is None else 0\nr = x\n" + COPY, "", "", "introspection"),
    "frame_globals": ("f = None\nif f is not None:\n    f = f.f_globals\nr = x\n" + COPY, "", "", "introspection"),
    "format_field_frame": ("g = (i for i in range(1))\ns = '{0.gi_frame.f_back}'.format(g)\nr = x\n" + COPY, "", "",
                           "introspection"),
    "formatter_get_field": ("r = x\n" + COPY, "import string\n",
                            "g = (i for i in range(1))\nf = string.Formatter().get_field('0.x', [g], {})",
                            "forbidden_name"),
    "collect_env_shell": ("r = x\n" + COPY, "from torch.utils.collect_env import run\n", "self.o = run('id')",
                          "import"),
    "type_hints_evaluate_strings": ("r = x\n" + COPY, "import typing\ndef f(a: 'int'):\n    pass\n",
                                    "self.h = typing.get_type_hints(f)", "forbidden_name"),
    # 2. attributes of library layers other than their settings may be tensors; scalar methods with tensors
    "layer_buffer": ("s = self.act.buf\ns.resize_(x.shape)\ns.copy_(x)\na = s.numpy()\nr = torch.as_tensor(np.maximum(a, 0))"
                     "\n" + COPY, "", "self.act = nn.ReLU()\nself.act.register_buffer('buf', torch.empty(0))",
                     "torch_compute"),
    "layer_setattr": ("setattr(self.lin, 'stash', x)\nr = torch.as_tensor(np.maximum(self.lin.stash.numpy(), 0))\n" + COPY,
                      "", "self.lin = nn.Linear(4, 4)", "torch_compute"),
    "layer_setting_overwritten": ("s = self.lin.eps\nk_relu[(1,)](x, s, 1, BLOCK=256)\na = s.numpy()\na.clip(0, None, out=a)\n"
                                  "r = s\n" + COPY, "", "self.lin = nn.LayerNorm(4)\nself.lin.eps = torch.empty(0)",
                                  "torch_compute"),
    "scalar_method_with_tensor": ("r = x\ns = ','.join(x.tolist())\n" + COPY, "", "", "torch_compute"),
    # 3. builtins, lookups, tests and shapes of tensor data are data
    "len_range": (BYTES + "r = torch.tensor([len(range(v)) for v in b])\n" + COPY, "", "", "torch_compute"),
    "ord_chr": (BYTES + "r = torch.tensor([ord(chr(v)) for v in b])\n" + COPY, "", "", "torch_compute"),
    "range_index": (BYTES + "a = np.int32([range(v, 1 << 40)[0] for v in b])\nr = torch.as_tensor(a.clip(0, None))\n"
                    + COPY, "", "", "torch_compute"),
    "len_str": (BYTES + "r = torch.tensor([len(str(int(v))) for v in b])\n" + COPY, "", "", "torch_compute"),
    "loop_count": (BYTES + "vals = []\nfor v in b:\n    c = 0\n    for _ in range(v):\n        c += 1\n    vals.append(c)\n"
                   "r = torch.tensor(vals)\n" + COPY, "", "", "torch_compute"),
    "lookup_table": (BYTES + "r = torch.tensor([LUT[v] for v in b])\n" + COPY,
                     "LUT = [max(i - 128, 0) for i in range(256)]\n", "", "torch_compute"),
    "dict_get": (BYTES + "r = torch.tensor([LUT.get(int(v)) for v in b])\n" + COPY,
                 "LUT = {i: max(i - 128, 0) for i in range(256)}\n", "", "torch_compute"),
    "truth_value": ("r = torch.tensor([t if range(int(t)) else 0.0 for t in x.reshape(-1)])\n" + COPY, "", "",
                    "torch_compute"),
    "membership": (BYTES + "r = torch.tensor([1 if v in range(128) else 0 for v in b])\n" + COPY, "", "", "torch_compute"),
    "through_lambda": (BYTES + "f = lambda t: t\nr = torch.tensor([len(f(range(v))) for v in b])\n" + COPY, "", "",
                       "torch_compute"),
    "through_tuple": (BYTES + "r = torch.tensor([len((range(v), 0)[0]) for v in b])\n" + COPY, "", "", "torch_compute"),
    "through_self": (BYTES + "vals = []\nfor v in b:\n    self.t = range(v)\n    vals.append(len(self.t))\n"
                     "r = torch.tensor(vals)\n" + COPY, "", "", "torch_compute"),
    "empty_shape": (BYTES + "r = torch.tensor([torch.empty(0, v).shape[1] for v in b])\n" + COPY, "", "", "torch_compute"),
    "full_shape": (BYTES + "r = torch.tensor([torch.full((v,), 0).numel() for v in b])\n" + COPY, "", "", "torch_compute"),
    "new_empty_shape": (BYTES + "r = torch.tensor([x.new_empty(v).shape[0] for v in b])\n" + COPY, "", "",
                        "torch_compute"),
    "tensor_of_range": (BYTES + "r = torch.tensor([torch.tensor(range(v)).numel() for v in b])\n" + COPY, "", "",
                        "torch_compute"),
    "array_of_range": (BYTES + "r = torch.tensor([np.asarray(list(range(v))).size for v in b])\n" + COPY, "", "",
                       "torch_compute"),
    "range_in_lambda": (BYTES + "f = lambda t: len(range(t))\nr = torch.tensor([f(v) for v in b])\n" + COPY, "", "",
                        "torch_compute"),
    "generator_yields_data": (BYTES + "def gen(t):\n    yield range(t)\nr = torch.tensor([len(next(gen(v))) for v in b])\n"
                              + COPY, "", "", "torch_compute"),
    "nested_generator_body": ("def gen():\n    yield x * 2\nr = next(gen())\n" + COPY, "", "", "torch_compute"),
    "with_enter_data": (BYTES + "vals = []\nfor v in b:\n    h = H()\n    h.t = range(v)\n    with h as w:\n"
                        "        vals.append(len(w))\nr = torch.tensor(vals)\n" + COPY,
                        "class H(torch.no_grad):\n    def __enter__(self):\n        return self.t\n", "", "torch_compute"),
    "cdiv_of_data": (BYTES + "r = torch.tensor([triton.cdiv(v, 1) for v in b])\n" + COPY, "", "", "torch_compute"),
    # 4. numpy dtype constructors of sequences build arrays; array math at import time is compute
    "np_dtype_list_import": ("r = x\n" + COPY, "_T = np.float32([0.5, 1.5]) * 2\n", "", "import_time_compute"),
    "np_uint16_range_import": ("r = x\n" + COPY, "_C = np.uint16(list(range(256))).view(np.float16).astype(np.float32)\n",
                               "", "import_time_compute"),
    "np_sqrt_list_import": ("r = x\n" + COPY, "_S = np.sqrt([1.0, 2.0, 3.0])\n", "", "import_time_compute"),
    # 5. C++ extensions: without CUDA sources they run on the CPU; under Triton any extension is not the kernel
    "cpp_extension": ("r = ext.f(x)\n" + COPY, EXT.replace("{cuda}", ""), "", "torch_compute"),
    "cpp_extension_alias": ("g = ext.f\nr = g(x)\n" + COPY, EXT.replace("{cuda}", ""), "", "torch_compute"),
    "cuda_extension_under_triton": ("r = ext.f(x)\n" + COPY, EXT.replace("{cuda}", ", cuda_sources='__global__ void k(){}'"),
                                    "", "torch_compute"),
    # 7. file I/O through methods
    "ndarray_tofile": ("a = np.float32([1.0, 2.0])\na.tofile('leak.bin')\nr = x\n" + COPY, "", "", "file_io"),
    "ndarray_dump": ("a = np.float32([1.0])\na.dump('f.pkl')\nr = x\n" + COPY, "", "", "file_io"),
    "storage_from_file": ("r = x\n" + COPY, "", "self.s = torch.UntypedStorage.from_file('/etc/hosts', False, 8)",
                          "file_io"),
    "save_method": ("r = x\n" + COPY, "", "self.lin = nn.Linear(2, 2)\nself.lin.save('x')", "file_io"),
    # 8. a dtype through a variable still converts
    "to_dtype_variable": ("d = x.dtype\nr = x.to(d)\n" + COPY, "", "", "torch_compute"),
    "to_dtype_attribute": ("r = x.to(self.dt)\n" + COPY, "", "self.dt = torch.float16", "torch_compute"),
    "to_dtype_map": ("r = x.to(MAP[x.dtype])\n" + COPY, "MAP = {torch.float32: torch.float16}\n", "", "torch_compute"),
    "to_dtype_kwargs_pack": ("opts = {'dtype': torch.float16}\nr = x.to(**opts)\n" + COPY, "", "", "torch_compute"),
    "to_dtype_default": ("r = conv(x)\n" + COPY, "def conv(t, dt=torch.float16):\n    return t.to(dt)\n", "",
                         "torch_compute"),
}


@pytest.mark.parametrize("name", sorted(HACKS))
def test_redteam2_hacks_are_refused_with_their_rule(name):
    fwd, extra, init, rule = HACKS[name]
    g = assert_rejected(triton_src(fwd, extra=IMPORTS + extra, init=init or "pass"), rule)
    assert f"Rule {g.rule}, line {g.line}" in g.reason


# 6. a launch that never runs is no launch (the forward returns what it did not compute)
DEAD = {
    "if_negative_size": "n = x.numel()\nif n < 0:\n    k_relu[(1,)](x, x, n, BLOCK=256)\nreturn torch.empty_like(x)",
    "if_len_negative": "if len(x) <= -1:\n    k_relu[(1,)](x, x, 1, BLOCK=256)\nreturn torch.empty_like(x)",
    "if_shape_product": "rows, cols = x.shape[0], x.shape[-1]\nm = rows * cols\nif 0 > m:\n    k_relu[(1,)](x, x, m, BLOCK=256)\n"
                        "return torch.empty_like(x)",
    "if_false": "if False:\n    k_relu[(1,)](x, x, 1, BLOCK=256)\nreturn torch.empty_like(x)",
    "after_return": "return torch.empty_like(x)\nk_relu[(1,)](x, x, 1, BLOCK=256)",
    "for_empty": "for _ in range(0):\n    k_relu[(1,)](x, x, 1, BLOCK=256)\nreturn torch.empty_like(x)",
    "ifexp": "n = x.numel()\n_ = k_relu[(1,)](x, x, n, BLOCK=256) if n < 0 else None\nreturn torch.empty_like(x)",
    "and_chain": "n = x.numel()\n_ = n < 0 and k_relu[(1,)](x, x, n, BLOCK=256)\nreturn torch.empty_like(x)",
    "dead_call_of_a_launching_helper": "n = x.numel()\nif n < 0:\n    self.run(x)\nreturn torch.empty_like(x)",
}


@pytest.mark.parametrize("name", sorted(DEAD))
def test_a_launch_that_cannot_run_does_not_count(name):
    src = triton_src(DEAD[name]).replace(
        "    def forward", "    def run(self, t):\n        k_relu[(1,)](t, t, 1, BLOCK=256)\n\n    def forward")
    assert_rejected(src, "no_kernel")


def test_never_and_empty_are_pure_syntactic_facts():
    fn = ast.parse("def f(x, p):\n    n = x.numel()\n    m = n * 2 + 1\n    p = p\n").body[0]
    for test, want in [("n < 0", True), ("m <= -1", True), ("-1 == n", True), ("n < 1", False), ("p < 0", False),
                       ("0 > x.shape[0]", True), ("n < 0 or False", True), ("n < 0 or p", False), ("not 1", True),
                       ("x.numel() < -3", True), ("triton.cdiv(n, 256) < 0", True), ("n > 0", False)]:
        assert never(ast.parse(test, mode="eval").body, fn) is want, test
    for it, want in [("[]", True), ("range(0)", True), ("range(5, 2)", True), ("range(n)", False), ("range(3)", False)]:
        assert empty(ast.parse(it, mode="eval").body) is want, it


LEGIT = {
    "len_and_range_of_len": "n = len(x)\nfor i in range(len(x)):\n    pass\nm = x.shape[0]\n" + LAUNCH + "return out",
    "sizes_from_metadata": "rows = x.shape[0]\ny = x.view(rows, -1)\nbuf = torch.empty(rows, y.shape[1], device=x.device)\n"
                           "n = y.numel()\nk_relu[(triton.cdiv(n, 256),)](y, buf, n, BLOCK=256)\nreturn buf.view_as(x)",
    "device_move": "y = x.to(x.device)\nn = y.numel()\nout = torch.empty_like(y)\nk_relu[(triton.cdiv(n, 256),)](y, out, n, "
                   "BLOCK=256)\nreturn out",
    "live_branch": "n = x.numel()\nout = torch.empty_like(x)\nif n > 0:\n    k_relu[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)\n"
                   "return out",
    "dtype_dispatch": "blk = BLOCKS.get(x.dtype, 256)\n" + LAUNCH.replace("BLOCK=256", "BLOCK=blk") + "return out",
    "keys_in_kwargs": "opts = dict(BLOCK=256)\nif 'BLOCK' in opts:\n    pass\n" + LAUNCH + "return out",
    "own_load_and_save_names": "self.loaded = True\nself.load_table()\n" + LAUNCH + "return out",
    "to_memory_format": "y = x.to(memory_format=torch.contiguous_format)\nr = y\n" + LAUNCH + "return out",
    "numpy_scalars": "eps = np.float32(1e-5)\nsz = int(np.prod(x.shape))\n" + LAUNCH + "return out",
}


@pytest.mark.parametrize("name", sorted(LEGIT))
def test_legitimate_shapes_of_the_same_classes_pass(name):
    extra = IMPORTS + "BLOCKS = {torch.float32: 256, torch.float16: 512}\n_E = np.float32(0.5)\n"
    src = triton_src(LEGIT[name], extra=extra, init="self.lin = nn.Linear(4, 4)\nself.k = self.lin.in_features")
    assert_ok(src.replace("    def forward", "    def load_table(self):\n        return 0\n\n    def forward"))


AUTOGRAD = '''
class Relu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale=1.0):
        out = torch.empty_like(x)
        n = x.numel()
        k_relu[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        ctx.save_for_backward(x)
        ctx.mark_non_differentiable(out)
        ctx.scale = scale
        return out

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x > 0) * ctx.scale, None
'''


def test_autograd_function_binds_ctx_and_leaves_backward_off_the_data_path():
    """``Fn.apply(x)`` binds ``forward(ctx, x)`` after ctx; ctx's bookkeeping is allowed; backward (never
    run: forward runs under no_grad) may compute but keeps the safety rules."""
    assert_ok(triton_src("return Relu.apply(x)", extra=AUTOGRAD))
    assert_ok(triton_src("return Relu.apply(x, 2.0)", extra=AUTOGRAD))
    assert_ok(triton_src("return RELU(x)", extra=AUTOGRAD + "\nRELU = Relu.apply\n"))  # apply as a value
    assert_ok(triton_src("return self.fn(x)", extra=AUTOGRAD, init="self.fn = Relu.apply"))
    new_style = AUTOGRAD.replace("def forward(ctx, x, scale=1.0)", "def forward(x, scale=1.0)").replace(
        "        ctx.save_for_backward(x)\n        ctx.mark_non_differentiable(out)\n        ctx.scale = scale\n", "")
    new_style += ("\n    @staticmethod\n    def setup_context(ctx, inputs, output):\n        ctx.save_for_backward(inputs[0])\n"
                  "        ctx.scale = inputs[1]\n")
    assert_ok(triton_src("return Relu.apply(x)", extra=new_style))
    computes = AUTOGRAD.replace("ctx.save_for_backward(x)", "ctx.save_for_backward(x * 2)")
    assert_rejected(triton_src("return Relu.apply(x)", extra=computes), "torch_compute")
    unsafe = AUTOGRAD.replace("(x,) = ctx.saved_tensors", "(x,) = ctx.saved_tensors\n        f = grad.gi_frame")
    assert_rejected(triton_src("return Relu.apply(x)", extra=unsafe), "introspection")


def test_dtype_conversion_feedback_says_where_conversions_belong():
    g = assert_rejected(triton_src("y = x.half().contiguous()\nr = y\n" + COPY), "torch_compute")
    assert "inside the kernel" in g.reason


def test_kernelbench_rules_still_refuse_the_new_safety_rules():
    src = triton_src("g = (i for i in range(1))\nf = g.gi_frame\nr = x\n" + COPY)
    assert check_source(src, "triton", rules="kernelbench").rule == "introspection"


def test_data_and_scalar_flavours_form_a_lattice():
    assert K.merge(K.TENSOR, K.DATA) == K.DATA and K.merge(K.SCALAR, K.DATA) == K.DATA and K.DATA.maybe_tensor
    assert K.items(K.DATA) == K.DATA and K.element(K.DATA) == K.DATA and K.container_of(K.TENSORS, K.DATA) == K.DATA
    assert K.record([("0", K.DATA), ("1", K.SCALAR)]).has_data and not K.TENSORS.has_data
    assert K.merge(K.SEQ, K.DTYPE) == K.Kind(K.Tag.SCALAR, "dtype|seq") and K.merge(K.SCALAR, K.SEQ) == K.SEQ
    assert K.element(K.SEQ) == K.SCALAR and K.element(K.items(K.DTYPE)) == K.DTYPE and K.items(K.SCALAR) == K.SEQ
    assert K.tainted(K.SCALAR, [K.DATA]) == K.DATA and K.tainted(K.SCALAR, [K.TENSOR]) == K.SCALAR
