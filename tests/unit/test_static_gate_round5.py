"""The static gate against the fifth red-team pass (2026-12-03): coding declarations that change the text
Python reads, methods Python or a library runs by name, tensors typed as numbers or library objects (layer
settings, a Config's kwargs, class-object stores, operator.setitem), bindings of ``__name__`` past the
main-guard skip; and the legitimate styles that pass now (class tuple attributes, register_buffer, dataclass
fields, classmethod factories, a partial stored on the instance)."""

from __future__ import annotations

import pytest
from test_static_gate import LAUNCH, assert_ok, assert_rejected, triton_src

from leap.sandbox.gate.static_gate import check_source

NUMPY_RELU = "np.maximum(self.buf.numpy(), 0, out=self.buf.numpy())"


@pytest.mark.parametrize("coding,newline", [("utf-7", "+AAo-"), ("unicode_escape", "\\x0a")])
def test_a_coding_declaration_that_changes_the_text_is_refused(coding, newline):
    hidden = f"# a comment{newline}out = torch.relu(x)"  # a live line once Python decodes by the declaration
    src = f"# -*- coding: {coding} -*-\n" + triton_src(LAUNCH + hidden + "\nreturn out")
    assert_rejected(src, "coding")
    if coding == "unicode_escape":  # the same declaration over text it does not change (no backslash)
        assert_ok(src.replace(newline, " "))


@pytest.mark.parametrize("coding", ["utf-8", "UTF8", "latin-1", "ascii"])
def test_a_coding_declaration_that_reads_the_same_text_passes(coding):
    assert_ok(f"# -*- coding: {coding} -*-\n" + triton_src(LAUNCH + "return out"))


RUN_BY_NAME = {  # forward's trigger, the method Python or a library runs
    "mapping_keys": ("d = {**self}", "    def keys(self):\n        " + NUMPY_RELU + "\n        return []\n"),
    "print_write": ("print('x', file=self)", "    def write(self, s):\n        " + NUMPY_RELU + "\n"),
    "numpy_amax": ("np.amax(self)", "    def max(self, *a, **k):\n        " + NUMPY_RELU + "\n        return 0\n"),
    "hasattr_property": ("hasattr(self, 'fixed')",
                         "    @property\n    def fixed(self):\n        " + NUMPY_RELU + "\n        return 1\n"),
    "format_property": ("'{0.fixed}'.format(self)",
                        "    @property\n    def fixed(self):\n        " + NUMPY_RELU + "\n        return 1\n"),
}


@pytest.mark.parametrize("name", sorted(RUN_BY_NAME))
def test_a_method_nothing_names_is_on_the_data_path(name):
    trigger, method = RUN_BY_NAME[name]
    src = triton_src(LAUNCH + "self.buf = out\n" + trigger + "\nreturn out", extra="import numpy as np\n",
                     init="self.buf = torch.empty(0)") + "\n" + method
    assert_rejected(src, "torch_compute")


TYPED_AS_NUMBERS = {  # init, forward reading the stored tensor as `t`
    "buffer_on_layer": ("self.h = nn.Identity()\nself.h.register_buffer('eps', torch.empty(0))", "t = self.h.eps"),
    "layer_built_with_tensors": ("self.h = nn.Threshold(torch.empty(0), torch.empty(0))", "t = self.h.threshold"),
    "config_kwargs": ("self.cfg = triton.Config({})\nself.cfg.kwargs.update(src=torch.empty(0))",
                      "t = self.cfg.kwargs.get('src')"),
    "class_object_store": ("Holder.a = torch.empty(0)", "t = Holder.a"),
}


@pytest.mark.parametrize("name", sorted(TYPED_AS_NUMBERS))
def test_tensors_stored_where_the_gate_saw_numbers_stay_tensors(name):
    init, read = TYPED_AS_NUMBERS[name]
    extra = "import numpy as np\n\nclass Holder:\n    a = 0.0\n"
    src = triton_src(LAUNCH + read + "\nnp.maximum(t.numpy(), 0)\nreturn out", extra=extra, init=init)
    assert_rejected(src, "torch_compute")


def test_operator_stores_are_refused_and_any_binding_of_name_keeps_the_main_guard_analysed():
    g = assert_rejected(triton_src(LAUNCH + "return out", extra="import operator\nT = [0.0]\n",
                                   init="operator.setitem(T, 0, torch.empty(0))"))
    assert g.rule == "forbidden_name"
    guard = "\nif __name__ == '__main__':\n    TABLE.append(torch.relu(torch.ones(2)))\n"
    plain = triton_src(LAUNCH + "return out", extra="TABLE = []\n") + guard
    assert check_source(plain, "triton").ok  # never runs under the judge: skipped
    captured = plain.replace("TABLE = []\n", "TABLE = []\nmatch '__main__':\n    case __name__:\n        pass\n")
    assert_rejected(captured, "import_time_compute")


LEGIT = {
    "class_tuple_attributes": ("", "BM, BN = 256, 128\n", "n2 = (n + self.BM - 1) // self.BM * self.BN"),
    "registered_buffer_to_device": ("self.register_buffer('w', torch.ones(4))", "", "w = self.w.to(x.device)"),
    "dataclass_field_factory": ("self.cfg = Cfg()", "", "b = self.cfg.block"),
    "classmethod_factory": ("self.cfg = Cfg.default()", "", "b = self.cfg.block"),
    "partial_on_instance": ("self.go = functools.partial(launch, k_relu)", "", "self.go(x, out, n)"),
}
EXTRA = ("import functools\nfrom dataclasses import dataclass, field\n\n@dataclass\nclass Cfg:\n    block: int = 256\n"
         "    seen: list = field(default_factory=list)\n\n    @classmethod\n    def default(cls):\n"
         "        return cls(block=256)\n\n\ndef launch(kernel, x, out, n):\n"
         "    kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)\n")


@pytest.mark.parametrize("name", sorted(LEGIT))
def test_legitimate_styles_of_the_fifth_pass(name):
    init, cls_body, line = LEGIT[name]
    src = triton_src(LAUNCH + line + "\nreturn out", extra=EXTRA, init=init)
    if cls_body:
        src = src.replace("class ModelNew(nn.Module):\n", "class ModelNew(nn.Module):\n    " + cls_body)
    assert_ok(src)


SELF_TEST = ("\nif __name__ == '__main__':\n    import os\n    torch.manual_seed(0)\n    x = torch.randn(8)\n"
             "    torch.testing.assert_close(ModelNew()(x), torch.relu(x))\n    os.system('echo done')\n")


def test_a_main_guard_self_test_block_is_not_checked_and_only_that_block():
    base = triton_src(LAUNCH + "return out", extra="TABLE = []\n")
    assert_ok(base + SELF_TEST)  # never runs under the judge, which imports the candidate as another module
    runs = "\nif __name__ != '__main__':\n    TABLE.append(torch.relu(torch.ones(2)))\n"
    assert_rejected(base + runs, "import_time_compute")  # this one does run
    rebound = base.replace("TABLE = []\n", "TABLE = []\n__name__ = '__main__'\n") + SELF_TEST
    assert not check_source(rebound, "triton").ok
