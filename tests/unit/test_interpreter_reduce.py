"""``tl.reduce`` / ``tl.associative_scan`` with combine functions of one's own under the CPU interpreter: run
on whole blocks (log2(n) rounds) they give what the element-by-element loop gives — the order of operands
kept for combines that are associative but not commutative, tuples of operands, ``keep_dims``, reverse
scans — and a combine with a Python ``if`` on its operands falls back to the loop instead of reading every
block as True."""

from __future__ import annotations

import os

import pytest
import torch
import triton
import triton.language as tl

from leap.sandbox.worker import interpreter_reduce

pytestmark = pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1",
                                reason="needs TRITON_INTERPRET=1 (the CPU interpreter; CI sets it)")


@triton.jit
def _argmax_where(v1, i1, v2, i2):
    take1 = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take1, v1, v2), tl.where(take1, i1, i2)


@triton.jit
def _argmax_if(v1, i1, v2, i2):
    v = v2
    i = i2
    if v1 > v2 or (v1 == v2 and i1 < i2):
        v = v1
        i = i1
    return v, i


@triton.jit
def _last_nonzero(a, b):  # associative, not commutative
    return tl.where(b != 0, b, a)


@triton.jit
def _welford(m1, q1, n1, m2, q2, n2):
    n = n1 + n2
    d = m2 - m1
    w = tl.where(n > 0, n2 / tl.maximum(n, 1.0), 0.0)
    return m1 + d * w, q1 + q2 + d * d * n1 * w, n


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def rows(x_ptr, o_ptr, C: tl.constexpr, WHICH: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, C)
    x = tl.load(x_ptr + r * C + offs)
    if WHICH == 0:
        _, i = tl.reduce((x, offs), 0, _argmax_where)
        tl.store(o_ptr + r * C, i.to(tl.float32))
    elif WHICH == 1:
        _, i = tl.reduce((x, offs), 0, _argmax_if)
        tl.store(o_ptr + r * C, i.to(tl.float32))
    elif WHICH == 2:
        tl.store(o_ptr + r * C, tl.reduce(x, 0, _last_nonzero))
    elif WHICH == 3:
        m, q, n = tl.reduce((x, x * 0.0, x * 0.0 + 1.0), 0, _welford)
        tl.store(o_ptr + r * C, q / n)
    elif WHICH == 4:
        tl.store(o_ptr + r * C + offs, tl.associative_scan(x, 0, _last_nonzero))
    elif WHICH == 5:
        tl.store(o_ptr + r * C + offs, tl.associative_scan(x, 0, _add, reverse=True))


@triton.jit
def whole(x_ptr, o_ptr, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(o_ptr, tl.reduce(x, None, _add))
    kept = tl.reduce(x, 1, _add, keep_dims=True)
    tl.store(o_ptr + 1 + tl.arange(0, R)[:, None], kept)


@pytest.fixture(scope="module", autouse=True)
def blockwise():
    interpreter_reduce.install()


def _run(x: torch.Tensor, which: int) -> torch.Tensor:
    o = torch.zeros_like(x)
    rows[(x.shape[0],)](x, o, C=x.shape[1], WHICH=which)
    return o


def test_argmax_combines_keep_the_first_index_of_ties_with_and_without_python_if():
    x = torch.randint(0, 5, (6, 256)).float()  # many ties
    want = torch.argmax(x, dim=1).float()
    assert torch.equal(_run(x, 0)[:, 0], want)
    assert torch.equal(_run(x, 1)[:, 0], want)  # the `if` combine: element by element, same answer


def test_order_of_operands_is_kept_for_a_non_commutative_combine():
    x = torch.randint(-2, 3, (4, 128)).float() * (torch.rand(4, 128) < 0.3)
    last = [next((v for v in reversed(row.tolist()) if v != 0), 0.0) for row in x]
    assert _run(x, 2)[:, 0].tolist() == last
    filled = torch.stack([torch.tensor([next((v for v in reversed(row[:j + 1].tolist()) if v != 0), 0.0)
                                        for j in range(row.numel())]) for row in x])
    assert torch.equal(_run(x, 4), filled)


def test_tuple_reduce_and_reverse_scan_match_torch():
    x = torch.randn(5, 512)
    torch.testing.assert_close(_run(x, 3)[:, 0], x.var(dim=1, unbiased=False), rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(_run(x, 5), x.flip(1).cumsum(1).flip(1), rtol=1e-4, atol=1e-4)


def test_whole_block_and_keep_dims():
    x = torch.randn(8, 16)
    o = torch.zeros(9)
    whole[(1,)](x, o, R=8, C=16)
    torch.testing.assert_close(o[0], x.sum(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(o[1:], x.sum(1), rtol=1e-5, atol=1e-5)
