"""Structured task inputs stay structured in every trial variant (judge/inputs.py, red-team 23b F1): a zero
pattern (triangular, banded, diagonal) and symmetry found in every draw of the task's own inputs are kept in
the fresh ``randn`` / ``x100`` / ``x1e-3`` values, so a kernel exploiting the problem's premise passes;
inputs without such structure are drawn exactly as before."""

from __future__ import annotations

import random

import torch

from leap.sandbox.judge import inputs as I
from leap.sandbox.judge.compare import compare_outputs
from leap.sandbox.judge.inputs import SCALES, VARIANTS, infer_invariants, make_trials, task_inputs, vary
from leap.sandbox.judge.task_module import build_model, load_task_module
from leap.tasks.task import parse_task

TEMPLATE = """
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, A, B):
        return {expr}
def get_inputs():
    {body}
    return [A, B]
def get_init_inputs():
    return []
"""
TRIU = TEMPLATE.format(expr="torch.triu(torch.matmul(A, B))",
                       body="A = torch.triu(torch.rand(12, 12)); B = torch.triu(torch.rand(12, 12))")
SYMM = TEMPLATE.format(expr="torch.matmul(A, B)",
                       body="A = torch.rand(12, 12); A = (A + A.T) / 2; B = torch.rand(12, 12); B = (B + B.T) / 2")
BATCHED_BAND = TEMPLATE.format(
    expr="A @ B",
    body="A = torch.rand(3, 10, 10).triu(-1).tril(1); B = torch.randn(3, 10, 4)")
PLAIN = TEMPLATE.format(expr="torch.relu(A) + B",
                        body="A = torch.rand(6, 8); B = torch.relu(torch.randn(6, 8))")
ZEROS_H0 = TEMPLATE.format(expr="A + B", body="A = torch.randn(6, 8); B = torch.zeros(6, 8)")


def _setup(src: str, name: str):
    return parse_task(src, name), load_task_module(src, name)


def _triu_kernel_like(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """What k17b does: C[i, j] = sum over k in [i, j] only (correct for upper-triangular A and B)."""
    n = A.shape[0]
    C = torch.zeros(n, n, dtype=A.dtype)
    for i in range(n):
        for j in range(i, n):
            C[i, j] = (A[i, i:j + 1] * B[i:j + 1, j]).sum()
    return C


def test_upper_triangular_inputs_stay_triangular_and_a_k_skipping_kernel_passes():
    task, mod = _setup(TRIU, "triu_t")
    inv = infer_invariants(task, mod, small=False)
    assert set(inv) == {0, 1} and all(i.zeros is not None and not i.symmetric for i in inv.values())
    assert torch.equal(inv[0].zeros, torch.ones(12, 12, dtype=torch.bool).tril(-1))
    model = build_model(mod, [], 42)
    trials = make_trials(task, mod, n_trials=8, seed=7, small=False)
    assert [t.variant for t in trials] == [VARIANTS[i % 4] for i in range(8)]
    for t in trials:
        A, B = t.inputs
        assert torch.equal(A, A.triu()) and torch.equal(B, B.triu())
        if t.variant != "task":
            assert bool((A < 0).any())  # still signed fresh values
            assert t.meta["kept"] == {0: "zero pattern", 1: "zero pattern"}
        with torch.no_grad():
            ref = model(A.clone(), B.clone())
        assert compare_outputs(ref, _triu_kernel_like(A, B)).ok, t.variant
    big = [t for t in trials if t.variant == "x100"][0].inputs[0]
    assert float(big.abs().max()) > 20  # the scaled variants still scale


def test_symmetric_inputs_stay_symmetric_and_a_transpose_reading_kernel_passes():
    task, mod = _setup(SYMM, "symm_t")
    inv = infer_invariants(task, mod, small=False)
    assert set(inv) == {0, 1} and all(i.symmetric and i.zeros is None and i.non_negative for i in inv.values())
    model = build_model(mod, [], 42)
    for t in make_trials(task, mod, n_trials=4, seed=3, small=False):
        A, B = t.inputs
        assert torch.equal(A, A.T) and torch.equal(B, B.T)
        with torch.no_grad():
            ref = model(A.clone(), B.clone())
        assert compare_outputs(ref, A.T.contiguous() @ B).ok, t.variant  # k29 reads A as A^T


def test_a_batched_band_keeps_its_band_and_its_mask_is_stored_reduced():
    task, mod = _setup(BATCHED_BAND, "band_t")
    inv = infer_invariants(task, mod, small=False)
    assert set(inv) == {0}  # B is randn: no structure
    assert tuple(inv[0].zeros.shape) == (1, 10, 10) and inv[0].zeros.device.type == "cpu"
    band = torch.ones(10, 10, dtype=torch.bool).triu(-1).tril(1)
    for t in make_trials(task, mod, n_trials=4, seed=1, small=False):
        A = t.inputs[0]
        assert bool((A[:, ~band] == 0).all()) and bool((A[:, band] != 0).all())


def _old_vary(x, variant, gen):
    """The judge's draw before structure was kept (fresh randn, scaled)."""
    if not isinstance(x, torch.Tensor) or not x.is_floating_point() or variant == "task":
        return x
    z = torch.randn(x.shape, generator=gen, dtype=torch.float32)
    if variant in SCALES:
        z.mul_(SCALES[variant])
    return z.to(x.dtype)


def _old_trials(mod, n, seed):
    rng, out = random.Random(seed), []
    for i in range(n):
        variant, trial_seed = VARIANTS[i % 4], rng.getrandbits(62)
        base = task_inputs(mod, False, trial_seed)
        gen = torch.Generator().manual_seed(trial_seed ^ 0x5EED)
        out.append([_old_vary(x, variant, gen) for x in base])
    return out


def test_inputs_without_structure_are_drawn_exactly_as_before():
    for src, name in ((PLAIN, "plain_t"), (ZEROS_H0, "zeros_t")):
        task, mod = _setup(src, name)
        inv = infer_invariants(task, mod, small=False)
        assert not any(i.kept for i in inv.values())  # relu(randn)'s zeros move; an all-zero input is no pattern
        new = make_trials(task, mod, n_trials=5, seed=11, small=False)
        for t, old in zip(new, _old_trials(mod, 5, 11), strict=True):
            assert all(torch.equal(a, b) for a, b in zip(t.inputs, old, strict=True)), (name, t.variant)
            assert "kept" not in t.meta
    task, mod = _setup(PLAIN, "plain_t")
    assert infer_invariants(task, mod, small=False)[0].non_negative  # torch.rand: recorded only...
    assert any(bool((t.inputs[0] < 0).any()) for t in make_trials(task, mod, n_trials=2, seed=2, small=False))


def test_inference_is_cached_per_task_and_leaves_the_global_rng_alone(monkeypatch):
    task, mod = _setup(TRIU.replace("12, 12", "9, 9"), "cache_t")
    calls = []
    real = I._infer
    monkeypatch.setattr(I, "_infer", lambda *a: calls.append(1) or real(*a))
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    make_trials(task, mod, n_trials=2, seed=1, small=False)
    make_trials(task, mod, n_trials=2, seed=2, small=False)
    assert torch.equal(torch.rand(3), expected)
    assert len(calls) == 1


def test_vary_keeps_structure_under_a_declared_domain_too():
    mask = torch.ones(5, 5, dtype=torch.bool).tril(-1)
    keep = I.Invariants(zeros=mask, symmetric=False)
    x = torch.rand(5, 5).triu()
    gen = torch.Generator().manual_seed(0)
    for variant in ("randn", "x100", "x1e-3"):
        assert bool((vary(x, variant, None, gen, keep)[mask] == 0).all())
    fresh = vary(x, "randn", [0.25, 0.75], gen, keep)
    assert bool((fresh[mask] == 0).all()) and bool((fresh[~mask] >= 0.25).all())
    assert vary(x, "x100", [0.25, 0.75], gen, keep) is x  # a domain keeps the task's own values when scaled
    sym = I.Invariants(symmetric=True, zeros=torch.eye(5, dtype=torch.bool).logical_not())
    d = vary(torch.eye(5), "randn", None, gen, sym)
    assert torch.equal(d, torch.diag(torch.diagonal(d))) and bool((torch.diagonal(d) != 0).all())
