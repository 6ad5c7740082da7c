"""Normalised source hashes and operator signatures."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from leap.tasks.generate.dedup import Deduper, normalized_source_hash, op_signature
from leap.tasks.generate.grammar import Chain, Op, Shapes, sample_chain
from leap.tasks.generate.render import chain_from_source, render_task
from leap.tasks.generate.solution import render_solution
from leap.tasks.task import parse_task

SRC = '''"""doc"""
import torch
import torch.nn as nn
LEAP_SPLIT = "train"

class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n).to(torch.float32)

    def forward(self, x):
        h = self.fc(x)
        return torch.sum(torch.sigmoid(h) * x + 2.0, dim=-1)

def get_inputs():
    return [torch.randn(4, 4)]

def get_init_inputs():
    return [4]
'''


def test_normalized_hash_ignores_formatting_comments_docstrings_and_metadata():
    variant = SRC.replace('"""doc"""', '"""other"""').replace('LEAP_SPLIT = "train"', 'LEAP_SPLIT = "eval"')
    variant = variant.replace("h = self.fc(x)", "h = self.fc( x )  # comment")
    assert normalized_source_hash(variant) == normalized_source_hash(SRC)
    assert normalized_source_hash(SRC.replace("2.0", "3.0")) != normalized_source_hash(SRC)


def test_op_signature_reads_forward_in_evaluation_order():
    assert op_signature(SRC, constants=False) == "linear-sigmoid-mul-add-sum"
    assert op_signature(SRC) == "linear-sigmoid-mul-add(2.0)-sum(dim=-1)"
    assert op_signature(SRC, dtype="bf16").startswith("bf16:")
    assert op_signature("not python(") == "" and op_signature("x = 1") == ""


def test_deduper_blocks_eval_and_duplicates():
    d = Deduper(blocked_sources=[SRC])
    assert d.check(SRC.replace("2.0", "5.0"), "fp32") == "eval overlap"
    chain = Chain((Op("unary", "relu"), Op("reduce", "sum")), "fp32", Shapes(64, (8,), (2,), 16))
    src = render_task(chain, "a")
    assert d.check(src, "fp32") is None
    d.add(src, "fp32")
    assert d.check(src, "fp32") == "duplicate"
    assert d.check(src.replace("ROWS, COLS = 8, 64", "ROWS, COLS = 16, 64"), "fp32") == "duplicate"
    assert d.check(src, "bf16") == "duplicate"  # same source hash


def test_chain_round_trips_through_the_rendered_source():
    chain = Chain((Op("unary", "clamp", (-1.0, 1.0)), Op("binary", "mul", (), "param"), Op("rowop", "softmax")),
                  "bf16", Shapes(1024, (8, 4), (2, 3), 1024))
    assert chain_from_source(render_task(chain, "x")) == chain
    assert chain_from_source(SRC) is None


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**31))
def test_any_sampled_chain_renders_a_parsable_task(seed):
    chain = sample_chain(random.Random(seed))
    task = parse_task(render_task(chain, "t"), "t")
    assert task.dtype == chain.dtype and task.difficulty == chain.difficulty()
    assert chain_from_source(task.source) == chain
    assert op_signature(task.source)
    sol = render_solution(chain)  # every sampled chain is covered, linear ones too
    assert sol is not None
    compile(sol, "solution", "exec")
