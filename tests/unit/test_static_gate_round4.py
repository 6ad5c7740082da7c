"""The static gate against the fourth red-team pass (2026-12-03): code the reachability analysis took for
init code although it runs during forward — a function named only as a call argument in ``__init__``
(partial, defaultdict factory, map), generators and generator expressions built in ``__init__``, methods a
library calls by name (``nn.Module._call_impl``, ``Enum._missing_``), an autograd Function's
``setup_context`` — and the pasted reference ``Model``'s class body, which runs at import unanalysed.
Legitimate init-time code of the same shapes stays init code."""

from __future__ import annotations

import pytest
from test_static_gate import LAUNCH, assert_ok, assert_rejected, triton_src

FIX = "def fix(o, *a):\n    return torch.relu(o)\n"
RUNS_IN_FORWARD = {  # init body, forward body, module-level extra
    "partial_of_helper": ("import functools\nself.f = functools.partial(fix)", LAUNCH + "return self.f(out)", FIX),
    "defaultdict_factory": ("import collections\nself.box = []\nself.d = collections.defaultdict(self._fix)",
                            LAUNCH + "self.box.append(out)\nself.d[len(self.box)]\nreturn out", ""),
    "map_over_helper": ("self.box = []\nself.it = map(fix, self.box)",
                        LAUNCH + "self.box.append(out)\nnext(self.it)\nreturn out", FIX),
    "generator_method": ("self.box = []\nself.g = self._gen()", LAUNCH + "self.box.append(out)\nnext(self.g)\nreturn out", ""),
    "generator_expression": ("self.box = []\nself.g = (fix(o) for o in self.box)",
                             LAUNCH + "self.box.append(out)\nnext(self.g)\nreturn out", FIX),
    "sort_key_helper": ("self.key = sorted([1, 2], key=fix)", LAUNCH + "return out", FIX),
}
METHODS = ("\n    def _fix(self):\n        return torch.relu(self.box[-1])\n"
           "\n    def _gen(self):\n        while True:\n            yield torch.relu(self.box[-1])\n")


def _with_methods(src: str) -> str:
    return src.rstrip("\n") + "\n" + METHODS


@pytest.mark.parametrize("name", sorted(RUNS_IN_FORWARD))
def test_code_built_in_init_that_runs_in_forward_is_on_the_data_path(name):
    init, fwd, extra = RUNS_IN_FORWARD[name]
    assert_rejected(_with_methods(triton_src(fwd, extra=extra, init=init)), "torch_compute")


LIBRARY_CALLS_BY_NAME = {
    "call_impl": "\n    def _call_impl(self, x):\n        return torch.relu(self.forward(x))\n",
    "module_apply_override": "\n    def _apply(self, fn, recurse=True):\n        torch.relu(self.w)\n        return self\n",
}


@pytest.mark.parametrize("name", sorted(LIBRARY_CALLS_BY_NAME))
def test_overrides_of_library_methods_are_on_the_data_path(name):
    src = triton_src(LAUNCH + "return out", init="self.w = torch.zeros(4)") + LIBRARY_CALLS_BY_NAME[name]
    assert_rejected(src, "torch_compute")


def test_enum_missing_hook_is_on_the_data_path():
    extra = ("import enum\nBOX = []\n\nclass Mode(enum.Enum):\n    A = 0\n\n    @classmethod\n"
             "    def _missing_(cls, value):\n        torch.relu(BOX[-1])\n        return cls.A\n")
    assert_rejected(triton_src(LAUNCH + "BOX.append(out)\nMode(len(BOX) + 9)\nreturn out", extra=extra), "torch_compute")


def test_autograd_setup_context_is_on_the_data_path_and_backward_is_not():
    extra = ("class Fn(torch.autograd.Function):\n    @staticmethod\n    def forward(x):\n"
             "        out = torch.empty_like(x)\n        n = x.numel()\n"
             "        k_relu[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)\n        return out\n\n"
             "    @staticmethod\n    def setup_context(ctx, inputs, output):\n        {ctx}\n\n"
             "    @staticmethod\n    def backward(ctx, g):\n        return g * (ctx.saved_tensors[0] > 0)\n")
    fwd = "return Fn.apply(x)"
    assert_rejected(triton_src(fwd, extra=extra.format(ctx="torch.relu_(output)")), "torch_compute")
    assert_ok(triton_src(fwd, extra=extra.format(ctx="ctx.save_for_backward(inputs[0])")))


def test_init_time_helpers_of_the_usual_shapes_stay_init_code():
    init = ("self.w = nn.Parameter(torch.empty(8, 8))\nself.apply(self._init_weights)\nself.reset_parameters()\n"
            "self.table = sorted([3, 1])")
    methods = ("\n    def _init_weights(self, m):\n        if isinstance(m, nn.Linear):\n"
               "            nn.init.xavier_uniform_(m.weight)\n"
               "\n    def reset_parameters(self):\n        nn.init.kaiming_uniform_(self.w, a=math.sqrt(5))\n")
    assert_ok(triton_src(LAUNCH + "return out", init=init) + methods)
    # a method that neither forward, module code nor init code names may still run in forward (round 5:
    # Python and libraries call methods by name): it is data path, so a dead PyTorch fallback is refused
    dead = "\n    def reference(self, x):\n        return torch.relu(x)\n"
    assert_rejected(triton_src(LAUNCH + "return out", init=init) + methods + dead, "torch_compute")


REFERENCE_BODIES = {
    "call_statement": "    print(torch.relu(torch.ones(2)))\n",
    "computed_attribute": "    table = torch.arange(4).tolist()\n",
    "decorated_method": "    @torch.no_grad()\n    def helper(self, x):\n        return x\n",
    "default_argument": "    def helper(self, x, y=torch.zeros(2)):\n        return x\n",
    "annotation_call": "    def helper(self, x: print('at import')):\n        return x\n",
}


@pytest.mark.parametrize("name", sorted(REFERENCE_BODIES))
def test_the_reference_class_body_may_hold_only_definitions_and_constants(name):
    extra = ("class Model(nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n\n"
             + REFERENCE_BODIES[name])
    if name == "annotation_call":  # refused anywhere since round 13 (rule annotation), before the reference rule
        assert_rejected(triton_src(LAUNCH + "return out", extra=extra), "annotation")
        return
    g = assert_rejected(triton_src(LAUNCH + "return out", extra=extra), "reference_class_body")
    assert "runs at import" in g.detail


def test_a_plainly_pasted_reference_class_passes():
    extra = ('class Model(nn.Module):\n    """The reference."""\n    SCALE: float = 0.5\n\n'
             "    def __init__(self, dim: int = 4) -> None:\n        super().__init__()\n\n"
             "    @staticmethod\n    def helper(x: torch.Tensor) -> torch.Tensor:\n        return torch.relu(x)\n\n"
             "    def forward(self, x):\n        return torch.relu(x)\n")
    assert_ok(triton_src(LAUNCH + "return out", extra=extra))


@pytest.mark.parametrize("name", ["fromregex", "rec_fromfile", "module_hook_import"])
def test_file_readers_and_hook_registrars_are_refused_however_imported(name):
    extra, call = {
        "fromregex": ("import numpy as np\n", "np.fromregex('in/t0.pt', '(.)', [('c', 'U1')])"),
        "rec_fromfile": ("import numpy as np\n", "np.rec.fromfile('in/t0.pt', formats='f4')"),
        "module_hook_import": ("from torch.nn.modules.module import register_module_forward_hook as r\n",
                               "r(lambda *a: None)"),
    }[name]
    g = assert_rejected(triton_src(LAUNCH + "return out", extra=extra, init=f"self.v = {call}"))
    assert "is not allowed" in g.detail


# false rejections from ~40 legitimate styles of the same pass: size arithmetic through library callbacks,
# getattr with a default, class attributes through type(self)
SIZE_IDIOMS = {
    "reduce_operator_mul": ("import functools\nimport operator\n",
                            "rows = functools.reduce(operator.mul, x.shape[:-1], 1)\nassert rows * x.shape[-1] == n"),
    "reduce_lambda": ("from functools import reduce\n", "rows = reduce(lambda a, b: a * b, x.shape[:-1], 1)\nassert rows > 0"),
    "map_int_over_shape": ("", "dims = list(map(int, x.shape))\nassert dims[0] >= 1"),
    "sorted_key_lambda": ("", "b = sorted((64, 128, 256), key=lambda v: abs(v - n))[0]\nassert b > 0"),
    "max_key_lambda": ("", "b = max((64, 128), key=lambda v: -v)\nassert b == 64"),
    "getattr_with_default": ("", "b = getattr(self, 'block', 256)\nassert b > 0"),
    "type_of_self_class_attribute": ("", "b = type(self).TILE\nassert b > 0"),
    "lru_cache_wrapped_helper": ("import functools\n\ndef _pick(n):\n    return 1024 if n > 4096 else 256\n\n"
                                 "pick = functools.lru_cache(maxsize=None)(_pick)\npick2 = functools.cache(_pick)\n",
                                 "b = min(pick(n), pick2(n))\nassert b > 0"),
}


@pytest.mark.parametrize("name", sorted(SIZE_IDIOMS))
def test_size_idioms_of_host_code_pass(name):
    extra, fwd = SIZE_IDIOMS[name]
    src = triton_src(LAUNCH + fwd + "\nreturn out", extra=extra, init="self.block = 256")
    assert_ok(src.replace("class ModelNew(nn.Module):\n", "class ModelNew(nn.Module):\n    TILE = 128\n\n"))


SAME_SHAPES_ON_TENSORS = {
    "reduce_over_tensors": ("import functools\nimport operator\n", "return functools.reduce(operator.add, [x, x])"),
    "key_lambda_reads_data": ("", "b = sorted((1, 2), key=lambda v: float(x.sum()))\nreturn out"),
    "map_over_a_tensor": ("", "return list(map(float, x))"),
    "bound_tensor_method": ("", "f = x.clamp\nreturn f(min=0)"),
    "bound_method_through_getattr_default": ("", "return getattr(x, 'clamp', None)(min=0)"),
    "cached_library_function": ("import functools\nf = functools.lru_cache(maxsize=None)(torch.relu)\n", "return f(x)"),
}


@pytest.mark.parametrize("name", sorted(SAME_SHAPES_ON_TENSORS))
def test_the_same_shapes_on_tensors_are_still_refused(name):
    extra, fwd = SAME_SHAPES_ON_TENSORS[name]
    assert_rejected(triton_src(LAUNCH + fwd, extra=extra), "torch_compute")


FACTORY = '''
def make_kernel():
    @triton.jit
    def k_made(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
{body}
    return k_made


K_MADE = make_kernel()
'''
MADE_LAUNCH = "out = torch.empty_like(x)\nn = x.numel()\nK_MADE[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)\nreturn out"


def test_a_kernel_made_inside_a_factory_function_is_a_kernel():
    body = ("        v = tl.load(x_ptr + offs, mask=mask)\n"
            "        tl.store(out_ptr + offs, tl.maximum(v, 0.0), mask=mask)")
    assert_ok(triton_src(MADE_LAUNCH, extra=FACTORY.format(body=body)))


def test_a_kernel_made_in_a_function_keeps_the_kernel_body_rules():
    body = ("        v = tl.load(x_ptr + offs, mask=mask)\n        h = print\n        h(v)\n"
            "        tl.store(out_ptr + offs, v, mask=mask)")
    g = assert_rejected(triton_src(MADE_LAUNCH, extra=FACTORY.format(body=body)))
    assert "k_made" in g.detail or "kernel" in g.detail, g.detail
