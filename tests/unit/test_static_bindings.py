"""Rule ``rebinding`` (gate/static_bindings): a name bound two ways in one scope is refused, since the analysis
reads one binding while Python runs the other; the same way twice, and ``k = triton.jit(k)``, are fine."""

from __future__ import annotations

import ast

import pytest

from leap.sandbox.gate.static_bindings import rebinding_problems
from leap.sandbox.gate.static_index import ModuleIndex

HEAD = "import triton\nfrom triton import cdiv\n"


def _rules(src: str) -> list[str]:
    return [f.rule for f in rebinding_problems(ModuleIndex(ast.parse(HEAD + src)))]


@pytest.mark.parametrize("src", [
    "def pick(t):\n    return 0\npick = lambda t: t\n",
    "def pick(t):\n    return 0\nfor pick in (abs,):\n    pass\n",
    "cdiv = lambda a, b: a\n",
    "class A:\n    pass\nA = int\n",
    "class M:\n    def f(self):\n        return 0\n    f = staticmethod(abs)\n",
    "class M:\n    def __init__(self):\n        self.f = abs\n    def f(self):\n        return 0\n",
    "class B:\n    def f(self):\n        return 0\nclass M(B):\n    def __init__(self):\n        self.f = abs\n",
])
def test_a_name_bound_two_ways_is_refused(src):
    assert "rebinding" in _rules(src)


@pytest.mark.parametrize("src", [
    "def pick(t):\n    return 0\ndef pick(t):\n    return 1\n",
    "n = 1\nn = 2\n",
    "def k(x):\n    pass\nk = triton.jit(k)\n",
    "def f():\n    pick = 1\n    return pick\ndef pick():\n    return 0\n",  # a local of the same name
    "class M:\n    def __init__(self):\n        self.scale = 2.0\n    def f(self):\n        return self.scale\n",
])
def test_one_way_each_is_fine(src):
    assert _rules(src) == []


@pytest.mark.parametrize("src, refused", [
    ("import numpy as np\ndef deco(f):\n    return np.fmax\n@deco\ndef run(t):\n    return t\n", True),
    ("def deco(f):\n    return f\n@deco\ndef run(t):\n    return t\n", False),
    ("def deco(n):\n    return lambda f: f\n@deco(2)\ndef run(t):\n    return t\n", True),
    ("d2 = abs\n@d2\ndef run(t):\n    return t\n", True),
    ("import functools\n@functools.lru_cache(None)\ndef run(t):\n    return t\n", False),
    ("class M:\n    @staticmethod\n    def run(t):\n        return t\n", False),
])
def test_a_decorator_of_the_solutions_own_must_return_its_argument(src, refused):
    assert ("decorator" in _rules(src)) is refused
