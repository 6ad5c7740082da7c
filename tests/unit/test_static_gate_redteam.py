"""The static gate against the red-team classes: each hack computes the answer on the host (numpy, Python
or PyTorch) through one indirection and launches a kernel; the gate must refuse it and name the rule.
Legitimate launch styles of the same shapes must pass. One case per mechanism; the corpus
(``tests/corpus/{hacks,legit}/gate_*``) runs whole files of the same classes through the sandbox."""

from __future__ import annotations

import pytest
from test_static_gate import LAUNCH, assert_ok, assert_rejected, triton_src

from leap.sandbox.gate.static_gate import check_source

IMPORTS = "\nimport functools\nimport typing\nimport dataclasses\nimport collections\nimport numpy as np\n"
NP = "r = torch.as_tensor(np.maximum(v, 0.0))\n" + LAUNCH + "return out"

# name -> (forward body, module-level extra, __init__ body, rule)
HACKS = {
    # 1. control flow joins every path
    "if_else": ("if x.numel() > 0:\n    v = x\nelse:\n    v = 0.0\n" + NP, "", "", "torch_compute"),
    "elif": ("if x.dim() > 9:\n    v = 0.0\nelif x.dim() > 0:\n    v = x\nelse:\n    v = 1.0\n" + NP, "", "", None),
    "walrus_in_boolop": ("v = x\nok = x.numel() < 0 and (v := 0.0)\n" + NP, "", "", None),
    "for_break_else": ("for i in range(1):\n    v = x\n    break\nelse:\n    v = 0.0\n" + NP, "", "", None),
    "break_path": ("v = 0.0\nfor i in range(3):\n    v = x\n    break\n    v = 0.0\n" + NP, "", "", None),
    # 2. loops reach a fixpoint
    "loop_carried": ("v, p = 0.0, 0.0\nfor i in range(2):\n    v = p\n    p = x\n" + NP, "", "", None),
    "while_rotate": ("a = 0.0\nb = 0.0\nc = x\ni = 0\nwhile i < 3:\n    t = a\n    a = b\n    b = c\n    c = t\n"
                     "    i += 1\nv = a\n" + NP, "", "", None),
    # 3. a walrus in a comprehension binds in the function
    "walrus_comprehension": ("v = 0.0\n_ = [[(v := x) for a in range(1)] for b in range(1)]\n" + NP, "", "", None),
    "walrus_genexp": ("v = 0.0\nany((v := x) is None for _ in range(1))\n" + NP, "", "", None),
    # 4. match
    "match_capture": ("v = 0.0\nmatch x:\n    case t:\n        v = t\n" + NP, "", "", None),
    "match_sequence": ("v = 0.0\nmatch [x]:\n    case [t]:\n        v = t\n" + NP, "", "", None),
    # 5. annotations never make a value harmless
    "annotated_nested_def": ("def act(t: int):\n    return np.maximum(t, 0.0)\nr = torch.as_tensor(act(x))\n" + LAUNCH
                             + "return out", "", "", None),
    # 6. a parameter is every argument it may get, not its default
    "default_kw_pack": ("r = torch.as_tensor(act(**{'t': x}))\n" + LAUNCH + "return out",
                        "def act(a=0.0, t=0.0):\n    return np.maximum(t, 0.0)\n", "", None),
    "default_star_pack": ("r = torch.as_tensor(act(*[0.0, x]))\n" + LAUNCH + "return out",
                          "def act(a=0.0, t=0.0):\n    return np.maximum(t, 0.0)\n", "", None),
    "default_getitem": ("r = torch.as_tensor(Act()[x])\n" + LAUNCH + "return out",
                        "class Act:\n    def __getitem__(self, t=0.0):\n        return np.maximum(t, 0.0)\n", "", None),
    "default_through_super": ("r = torch.as_tensor(super().act(x))\n" + LAUNCH + "return out",
                              "class Base(nn.Module):\n    def act(self, t=0.0):\n        return np.maximum(t, 0.0)\n", "",
                              None),
    # 7. stores into containers
    "append_scalar_list": ("box = [0.0]\nbox.append(x)\nv = box[1]\n" + NP, "", "", None),
    "update_keyword": ("d = {'a': 0.0}\nd.update(a=x)\nv = d['a']\n" + NP, "", "", None),
    "alias": ("box = [0.0]\nb = box\nb.insert(0, x)\nv = box[0]\n" + NP, "", "", None),
    "inner_list": ("outer = [[0.0]]\ninner = outer[0]\ninner.append(x)\nv = outer[0][1]\n" + NP, "", "", None),
    "helper_fills_arg": ("box = [0.0]\nput(box, x)\nv = box[1]\n" + NP, "def put(c, t):\n    c.append(t)\n", "",
                         None),
    "closure_fills": ("box = [0.0]\ndef put(t):\n    box.append(t)\nput(x)\nv = box[1]\n" + NP, "", "", None),
    "module_box_alias": ("BOX.append(x)\nv = ALIAS[1]\n" + NP, "BOX = [0.0]\nALIAS = BOX\n", "", None),
    "returned_global_list": ("b = get()\nb.append(x)\nv = BOX[1]\n" + NP, "BOX = [0.0]\ndef get():\n    return BOX\n", "",
                             None),
    # 8. globals and nonlocals
    "global_write": ("stash(x)\nv = G\n" + NP, "G = 0.0\ndef stash(t):\n    global G\n    G = t\n", "", None),
    "nonlocal_write": ("v = 0.0\ndef f():\n    nonlocal v\n    v = x\nf()\n" + NP, "", "", None),
    "late_closure": ("v = 0.0\ndef g():\n    return np.maximum(v, 0.0)\nv = x\nr = torch.as_tensor(g())\n" + LAUNCH
                     + "return out", "", "", None),
    # 9. passthrough keywords
    "cast_keywords": ("v = typing.cast(typ=object, val=x)\n" + NP, "", "", None),
    # 10. nested containers
    "dict_of_enumerate": ("v = dict(enumerate([x]))[0]\n" + NP, "", "", None),
    "dict_key": ("v = next(iter({x: 0}))\n" + NP, "", "", None),
    # 11. with ... as
    "with_as_instance": ("h = H()\nh.t = x\nwith h as v:\n    pass\n" + NP,
                         "class H(torch.no_grad):\n    def __enter__(self):\n        return self.t\n", "", None),
    # 12. super()
    "super_library_method": ("super().register_buffer('b', x, persistent=False)\nv = super().get_buffer('b')\n" + NP,
                             "", "", None),
    "super_held": ("s = super()\ns.register_buffer('b', x)\nv = s.get_buffer('b')\n" + NP, "", "", None),
    # 13. functools.partial keeps its bound arguments
    "partial_library": ("f = functools.partial(np.maximum, x)\nr = torch.as_tensor(f(0.0))\n" + LAUNCH + "return out",
                        "", "", None),
    "partial_shift": ("f = functools.partial(act, 0.0)\nr = torch.as_tensor(f(x))\n" + LAUNCH + "return out",
                      "def act(a, t=0.0):\n    return np.maximum(t, 0.0)\n", "", None),
    # 14. kernel arguments and meta
    "constexpr_tensor": ("k2[(1,)](out, X=x)\n" + LAUNCH + "return out",
                         "@triton.jit\ndef k2(o_ptr, X: tl.constexpr):\n    pass\n", "", "kernel_args"),
    "host_function_to_kernel": ("k2[(1,)](out, X=np.maximum)\n" + LAUNCH + "return out",
                                "@triton.jit\ndef k2(o_ptr, X: tl.constexpr):\n    pass\n", "", "kernel_args"),
    "grid_reads_pointer": ("n = x.numel()\ng = lambda meta: (1,) if np.maximum(meta['x_ptr'], 0) is None else (1,)\n"
                           "k_relu[g](x, out, n, BLOCK=256)\nreturn out", "", "", None),
    # 15. kernel bodies run as Python under the interpreter
    "jit_body_numpy": (LAUNCH + "k3[(1,)](out, BLOCK=16)\nreturn out",
                       "S = [0.0]\n@triton.jit\ndef k3(o_ptr, BLOCK: tl.constexpr):\n    np.maximum(S[0], 0.0)\n", "",
                       "jit_body"),
    "jit_body_host_call": (LAUNCH + "k3[(1,)](out, BLOCK=16)\nreturn out",
                           "def helper(a):\n    return a\n@triton.jit\ndef k3(o_ptr, BLOCK: tl.constexpr):\n"
                           "    helper(o_ptr)\n", "", "jit_body"),
    # 16. array-library math on data
    "numpy_sqrt": ("np.sqrt(x, out=np.asarray(out))\n" + LAUNCH + "return out", "", "", None),
    "numpy_prod_data": ("v = np.prod(x, axis=0)\n" + LAUNCH + "return out", "", "", None),
    # 17. reading a tensor's values out is data
    "tolist": ("vals = [t if t > 0 else 0.0 for t in x.reshape(-1).tolist()]\n" + LAUNCH + "return out", "", "", None),
    "float_of_items": ("vals = [max(float(t), 0.0) for t in x.reshape(-1)]\n" + LAUNCH + "return out", "", "", None),
    "fstring": ("s = f'{x.tolist()}'\nv = [max(float(t), 0.0) for t in s[1:-1].split(',')]\n" + LAUNCH + "return out",
                "", "", None),
    # 18. private attributes and library re-entry
    "private_on_unknown": ("v = x._base\n" + LAUNCH + "return out", "", "", "private_attr"),
    "private_in_init": (LAUNCH + "return out", "", "self.t = torch.ones(1)\nself.v = self.t._version", "private_attr"),
    "reentry": ("r = torch.nn.init.torch.relu(x)\n" + LAUNCH + "return out", "", "", "forbidden_name"),
    "module_as_value": ("m = torch if x.numel() else 0\nseed = m.manual_seed\nseed(0)\n" + LAUNCH + "return out", "", "",
                        "module_value"),
    # 19. import time
    "import_time_table": (LAUNCH + "return out", "_T = torch.sigmoid(torch.linspace(-8.0, 8.0, 64))\n", "",
                          "import_time_compute"),
    "import_time_class_attr": (LAUNCH + "return out", "class C:\n    T = torch.arange(4).float() * 2\n", "",
                               "import_time_compute"),
}


@pytest.mark.parametrize("name", sorted(HACKS))
def test_redteam_hacks_are_refused_with_their_rule(name):
    fwd, extra, init, rule = HACKS[name]
    src = triton_src(fwd, extra=IMPORTS + extra, init=init or "pass")
    if "class Base" in extra:
        src = src.replace("class ModelNew(nn.Module)", "class ModelNew(Base)")
    g = assert_rejected(src, rule)
    assert f"Rule {g.rule}, line {g.line}" in g.reason  # the rule and the quoted line, for the policy


LEGIT = {
    "if_block_size": "n = x.numel()\nif n > 4096:\n    B = 1024\nelse:\n    B = 256\n"
                     "k_relu[(triton.cdiv(n, B),)](x, out, n, BLOCK=B)\nreturn out",
    "loop_doubling": "n = x.numel()\nB = 16\nwhile B < 1024 and B < n:\n    B *= 2\nk_relu[(triton.cdiv(n, B),)](x, out, n, "
                     "BLOCK=B)\nreturn out",
    "match_dims": "n = x.numel()\nmatch x.dim():\n    case 1:\n        B = 128\n    case _:\n        B = 256\n"
                  "k_relu[(triton.cdiv(n, B),)](x, out, n, BLOCK=B)\nreturn out",
    "walrus_numel": "if (n := x.numel()) > 0:\n    k_relu[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)\nreturn out",
    "grid_def": "n = x.numel()\ndef grid(meta):\n    return ((n + meta['BLOCK'] - 1) // meta['BLOCK'],)\n"
                "k_relu[grid](x, out, n, BLOCK=256)\nreturn out",
    "grid_meta_from_launch": "n = x.numel()\nk_relu[lambda m: ((m['n'] + m['BLOCK'] - 1) // m['BLOCK'],)](x, out, n, BLOCK=256)"
                             "\nreturn out",
    "clone_copy_detach": "buf = torch.empty_like(x)\nbuf.copy_(x)\ny = buf.clone().detach().contiguous()\nn = y.numel()\n"
                         "k_relu[(triton.cdiv(n, 256),)](y, out, n, BLOCK=256)\nreturn out",
    "outs_list": "n = x.numel()\nouts = []\nouts.append(out)\nfor o in outs:\n    k_relu[(triton.cdiv(n, 256),)](x, o, n, "
                 "BLOCK=256)\nreturn outs[0]",
    "args_pack": "n = x.numel()\nargs = [x, out]\nargs.append(n)\nk_relu[(triton.cdiv(n, 256),)](*args, BLOCK=256)\nreturn out",
    "partial_launcher": "n = x.numel()\nrun = functools.partial(k_relu[(triton.cdiv(n, 256),)], BLOCK=256)\nrun(x, out, n)\n"
                        "return out",
}


@pytest.mark.parametrize("name", sorted(LEGIT))
def test_legitimate_shapes_of_the_same_classes_pass(name):
    assert_ok(triton_src("out = torch.empty_like(x)\n" + LEGIT[name], extra=IMPORTS, init="pass"))


HELPERS = {
    "class_attr_kernel": ("class Ops:\n    relu = k_relu\n    block = 256\n",
                          "n = x.numel()\nOps.relu[(triton.cdiv(n, Ops.block),)](x, out, n, BLOCK=Ops.block)\nreturn out",
                          "pass"),
    "grid_lambda_to_helper": ("def launch(kernel, grid, *args, **meta):\n    kernel[grid](*args, **meta)\n",
                              "n = x.numel()\nlaunch(k_relu, lambda m: (triton.cdiv(n, m['BLOCK']),), x, out, n, BLOCK=256)"
                              "\nreturn out", "pass"),
    "dataclass_config": ("@dataclasses.dataclass\nclass Cfg:\n    block: int = 256\n",
                         "n = x.numel()\nk_relu[(triton.cdiv(n, self.cfg.block),)](x, out, n, BLOCK=self.cfg.block)\n"
                         "return out", "self.cfg = Cfg()"),
    "namedtuple_config": ("Meta = collections.namedtuple('Meta', ['block', 'warps'])\n",
                          "n = x.numel()\nk_relu[(max(1, -(-n // self.m.block)),)](x, out, n, BLOCK=self.m.block, "
                          "num_warps=self.m.warps)\nreturn out", "self.m = Meta(256, 4)"),
    "runner_object": ("class Runner:\n    def __init__(self, kernel, block):\n        self.kernel, self.block = kernel, block\n"
                      "    def __call__(self, a, b):\n        n = a.numel()\n"
                      "        self.kernel[(triton.cdiv(n, self.block),)](a, b, n, BLOCK=self.block)\n        return b\n",
                      "return self.runner(x, out)", "self.runner = Runner(k_relu, 256)"),
    "launcher_factory": ("def make(kernel, block):\n    def run(a, b):\n        n = a.numel()\n"
                         "        kernel[(triton.cdiv(n, block),)](a, b, n, BLOCK=block)\n        return b\n    return run\n"
                         "RUN = make(k_relu, 256)\n", "return RUN(x, out)", "pass"),
    "heuristics": ("@triton.heuristics({'EVEN': lambda a: a['n'] % a['BLOCK'] == 0})\n@triton.jit\n"
                   "def k_h(x_ptr, o_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):\n"
                   "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                   "    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)\n",
                   "n = x.numel()\nk_h[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)\nreturn out", "pass"),
    "module_constant_in_kernel": ("LOG2E: tl.constexpr = 1.4426950408889634\n@triton.jit\n"
                                  "def k_c(x_ptr, o_ptr, n, BLOCK: tl.constexpr):\n"
                                  "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                                  "    v = tl.load(x_ptr + offs, mask=offs < n) * LOG2E\n"
                                  "    tl.store(o_ptr + offs, v / LOG2E, mask=offs < n)\n",
                                  "n = x.numel()\nk_c[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)\nreturn out", "pass"),
}


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_legitimate_helpers_configs_and_launchers_pass(name):
    extra, fwd, init = HELPERS[name]
    assert_ok(triton_src("out = torch.empty_like(x)\n" + fwd, extra=IMPORTS + extra, init=init))


def test_tensor_into_a_helper_constructor_is_followed():
    """Constructor parameters get the arguments of the construction sites, so a tensor handed to a
    helper's ``__init__`` (even one built in ``__init__``) stays a possible tensor."""
    extra = IMPORTS + "class Box:\n    def __init__(self, t):\n        self.t = t\n"
    assert_rejected(triton_src("b = Box(x)\n" + "v = b.t\n" + NP, extra=extra))
    assert_rejected(triton_src("self.box.t = x\nv = self.box.t\n" + NP, extra=extra, init="self.box = Box(0.0)"))


def test_code_a_lambda_or_a_stored_bound_method_runs_is_on_the_data_path():
    """A method only called from a lambda made in __init__, or stored as a bound method of a helper, runs
    during forward: its compute counts."""
    extra = "\nclass Helper:\n    def compute(self, t):\n        return t.clamp(min=0)\n"
    src = triton_src("r = self.go(x)\n" + LAUNCH + "return r", extra=extra, init="self.go = lambda t: self._compute(t)")
    src = src.replace("    def forward", "    def _compute(self, t):\n        return t.clamp(min=0)\n\n    def forward")
    assert_rejected(src, "torch_compute")
    stored = triton_src("r = self.fn(x)\n" + LAUNCH + "return r", extra=extra, init="self.fn = Helper().compute")
    assert_rejected(stored, "torch_compute")


def test_inherited_library_forward_and_super_forward_are_compute():
    src = triton_src(LAUNCH + "return super().forward(out)").replace("class ModelNew(nn.Module)", "class ModelNew(nn.ReLU)")
    assert_rejected(src, "torch_compute")
    lib_child = triton_src(LAUNCH + "return L()(out)", extra="\nclass L(nn.ReLU):\n    pass\n")
    assert_rejected(lib_child, "torch_compute")


def test_kernelbench_rules_keep_the_new_safety_rules():
    """Under KernelBench's rules PyTorch compute (also at import time) is relaxed, the rest is not."""
    imp = triton_src(LAUNCH + "return out", extra="_T = torch.sigmoid(torch.ones(4))\n")
    assert check_source(imp, "triton", rules="kernelbench").ok
    jit = triton_src(LAUNCH + "k3[(1,)](out, BLOCK=16)\nreturn out",
                     extra=IMPORTS + "@triton.jit\ndef k3(o_ptr, BLOCK: tl.constexpr):\n    np.zeros(1)\n")
    assert check_source(jit, "triton", rules="kernelbench").rule == "jit_body"
    priv = triton_src("v = x._base\n" + LAUNCH + "return out")
    assert check_source(priv, "triton", rules="kernelbench").rule == "private_attr"


def test_kinds_join_names_records_and_nested_containers():
    from leap.sandbox.gate import static_kinds as K

    a, b = K.Kind(K.Tag.JIT, "a"), K.Kind(K.Tag.JIT, "b")
    assert K.merge(a, b) == K.Kind(K.Tag.JIT, "a|b") and K.merge(a, b).names == ("a", "b")
    rec = K.record([("0", K.SCALAR), ("1", K.TENSOR)])
    assert rec.maybe_tensor and K.field(rec, 0) == K.SCALAR and K.field(rec, 1) == K.TENSOR
    nested = K.items(K.Kind(K.Tag.INDEXED, inner=K.TENSOR))
    assert nested.maybe_tensor and not K.items(K.UNSET).maybe_tensor  # an empty container holds nothing
    assert K.merge(K.SCALAR, K.TENSOR) == K.TENSOR and K.host_object(K.ref("numpy.maximum"))


def test_attribute_chains_are_resolved_to_the_module_they_really_reach():
    """``typing.sys`` IS ``sys``, ``torch.serialization.tarfile`` is ``tarfile``: the gate follows the judge's own
    loaded modules (entries in their ``__dict__``, no import), so a module another library imported is not
    a way around the import rules, whatever its name (a red-team candidate ran ``exec`` through
    ``typing.sys.modules['builtins']``)."""
    from leap.sandbox.gate.static_policy import reached_module

    assert reached_module("typing.sys") == "sys" and reached_module("torch.serialization.tarfile") == "tarfile"
    assert reached_module("torch.nn.functional") is None and reached_module("triton.language.math") is None
    for chain in ("import typing\n_B = typing.sys.modules['builtins']\n",
                  "_T = torch.serialization.tarfile.open\n"):  # tarfile: no name list knows it
        assert_rejected(triton_src(LAUNCH + "return out", extra=IMPORTS + chain), "forbidden_name")
