"""A trial where the reference itself misses the tolerance (red-team 23b F2: attention at x100) is judged
against the exact answer: a float64 twin of the reference on the same inputs. An output within the tolerance
of it, widened by the reference's own error and the exact answer's spread under fp32 rounding noise, passes;
one farther off fails; random forwards, integer outputs and twins that cannot run keep the plain verdict."""

from __future__ import annotations

import threading
import time

import torch

from leap.sandbox.config import SandboxConfig
from leap.sandbox.judge import verdicts
from leap.sandbox.judge import verifier as V
from leap.sandbox.judge.compare import EXACT_MAX_REF_MISS, compare_outputs
from leap.sandbox.judge.reference import PERTURB, exact_reference, perturbation
from leap.sandbox.judge.task_module import build_model, load_task_module
from leap.tasks.module import float_keeps_double
from leap.tasks.task import parse_task

# fp32 cancellation on one column: (x + 1e7) - 1e7 rounds x to a whole number there (errors up to 0.5,
# far beyond fp32's 1e-4 tolerance); the other columns are exact. The exact answer is x itself.
ILL = """
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        big = torch.zeros_like(x)
        big[:, 0] = 1e7
        return (x + big) - big{extra}
def get_inputs():
    return [torch.randn(16, 8)]
def get_init_inputs():
    return []
"""
RANDOM = ILL.format(extra=" + 1e-6 * torch.rand_like(x)")  # noise within the tolerance, but no exact answer


def _rounded(x: torch.Tensor) -> torch.Tensor:
    """What the reference computes."""
    big = torch.zeros_like(x)
    big[:, 0] = 1e7
    return (x + big) - big


def _ill_case():
    src = ILL.format(extra="")
    mod = load_task_module(src, "ill")
    x = torch.randn(16, 8, generator=torch.Generator().manual_seed(0)) * 3
    with torch.no_grad():
        ref = build_model(mod, [], 42)(x.clone())
    return src, mod, x, ref


def test_the_reference_misses_the_tolerance_and_the_exact_answer_rescues_a_more_accurate_output():
    _, mod, x, ref = _ill_case()
    found = exact_reference(mod, [], [x])
    exact = found.output
    assert found.why == "" and exact.dtype == torch.float64 and torch.equal(exact, x.double())
    assert float((found.spread / x.double().abs()).max()) < 1e-5  # well conditioned: rounding noise moves it little
    assert not compare_outputs(ref, x.clone()).ok  # right answer, wrong against the rounded reference
    res = compare_outputs(ref, x.clone(), exact=exact)
    assert res.ok and "float64" in res.exact and res.max_abs_error > 1e-2  # errors still reported vs ref
    mirrored = 2 * x - ref  # exactly as far from exact as the reference, on the other side
    assert compare_outputs(ref, mirrored, exact=exact).ok
    worse = x + 3 * (ref - x)  # farther from exact than the reference plus the tolerance
    bad = compare_outputs(ref, worse, exact=exact, spread=found.spread)
    assert not bad.ok and "farther from the float64 answer" in bad.exact
    off = x.clone()
    off[3, 5] += 0.01  # a wrong value where the reference is exact: no slack there
    assert not compare_outputs(ref, off, exact=exact).ok


def test_the_exact_answer_is_not_used_where_it_cannot_be_trusted():
    ref = torch.randn(64)
    out = ref + 0.5
    assert not compare_outputs(ref, out, exact=torch.zeros(64, dtype=torch.float64)).ok  # disagrees everywhere
    far = ref.double().clone()
    far[: int(64 * EXACT_MAX_REF_MISS) + 2] += 10.0
    res = compare_outputs(ref, ref + 5.0 * (torch.arange(64) < 4), exact=far)
    assert not res.ok and "not used" in res.exact
    nan_exact = ref.double().clone()
    nan_exact[0] = float("nan")
    assert not compare_outputs(ref, ref + 1.0, exact=nan_exact).ok
    ints = torch.arange(8)
    assert not compare_outputs(ints, ints + 1, exact=ints.double() + 1).ok  # integers are exact, always
    assert not compare_outputs(ref, ref[:32], exact=ref.double()).ok  # structure first
    pair = (ref, torch.arange(3))
    assert not compare_outputs(pair, (ref, torch.arange(3) + 1), exact=(ref.double(), None)).ok


def test_the_spread_widens_only_where_the_exact_answer_is_ill_conditioned():
    exact = torch.linspace(-3, 3, 200, dtype=torch.float64)
    ref = exact.float()  # the reference is right everywhere...
    spread = torch.zeros_like(exact)
    spread[17] = 0.2  # ...but rounding noise in the inputs moves the exact answer at 17 by 0.2
    out = ref.clone()
    out[17] += 0.15  # a kernel whose rounding landed there
    assert not compare_outputs(ref, out).ok and not compare_outputs(ref, out, exact=exact).ok
    res = compare_outputs(ref, out, exact=exact, spread=spread)
    assert res.ok and "widening applies on 1" in res.exact
    out[17] += 0.2  # beyond the spread
    assert not compare_outputs(ref, out, exact=exact, spread=spread).ok
    out = ref.clone()
    out[18] += 0.15  # no spread there: no slack
    assert not compare_outputs(ref, out, exact=exact, spread=spread).ok
    wide = torch.full_like(exact, 1.0)  # ill-conditioned everywhere: nothing can be judged, the copy is not used
    res = compare_outputs(ref, ref + 0.5, exact=exact, spread=wide)
    assert not res.ok and "not used" in res.exact


def test_the_spread_is_measured_on_inputs_with_fp32_rounding_noise():
    src = ILL.format(extra="").replace("return (x + big) - big", "return torch.sin(x * 1e6) + x")
    mod = load_task_module(src, "chaotic")
    x = torch.randn(16, 8, generator=torch.Generator().manual_seed(1))
    found = exact_reference(mod, [], [x])
    moved = (x.double() * 1e6 * PERTURB).abs()  # d sin(1e6 x) = 1e6 dx, dx ~ PERTURB * |x|
    assert float(found.spread.median()) > 0.1 * float(moved.median())
    assert torch.equal(found.output, torch.sin(x.double() * 1e6) + x.double())


def test_the_noise_follows_the_reference_working_precision():
    x32, x16 = torch.ones(3), torch.ones(3, dtype=torch.bfloat16)
    assert perturbation([x32, torch.arange(3)], x32) == PERTURB == 4 * 2.0 ** -24
    assert perturbation([x16], x16) == 2.0 ** -8  # one unit of bf16 roundoff
    assert perturbation([x32], (x32, x16.half())) == 2.0 ** -11  # the least precise output: fp16


def _prepared(src: str, name: str, task_kw: dict | None = None):
    task = parse_task(src, name).model_copy(update=task_kw or {})
    return task, V.prepare(task, "cpu", SandboxConfig(trials=5), None)


def _judge(task, prep, candidate, tmp_path):
    recs = []
    for i, t in enumerate(prep.trials):
        path = tmp_path / f"o{i}.pt"
        torch.save(candidate(*[x.clone() for x in t.inputs]), path)
        recs.append({"out": str(path), "inputs_unchanged": True, "poison_identical": True})
    base = {"task": task.name, "device": "cpu"}
    bad, cmp = V.judge_outputs(task, prep, {"trials": recs}, str(tmp_path), SandboxConfig(trials=5), base)
    v = bad or verdicts.ok(base, trials=len(prep.trials), feedback="ok")
    stages: dict = {}
    return V.stamp(v, stages, time.monotonic()), stages


def test_the_judge_accepts_the_exact_answer_and_says_so_in_the_detail(tmp_path):
    task, prep = _prepared(ILL.format(extra=""), "ill_j")
    v, stages = _judge(task, prep, lambda x: x.clone(), tmp_path)
    assert v.status == "ok", v.feedback
    assert "accepted against the float64 reference" in v.detail and "trial 0 (task)" in v.detail
    assert stages.get("exact_reference", 0) > 0
    v, _ = _judge(task, prep, lambda x: 2 * x - _rounded(x), tmp_path)  # as far off as the reference
    assert v.status == "ok", v.feedback
    v, _ = _judge(task, prep, lambda x: x + 3 * (_rounded(x) - x), tmp_path)  # 3x the reference's error
    assert v.status == "incorrect" and "float64 reference: " in v.detail and "farther" in v.detail
    v, stages = _judge(task, prep, lambda x: (x + 1e7) - 1e7, tmp_path)  # rounded everywhere: 8x the misses
    assert v.status == "incorrect" and "float64" not in v.detail  # > EXACT_MAX_BAD_SHARE wrong: no twin run
    assert "exact_reference" not in stages


def test_random_forwards_and_twins_that_fail_keep_the_plain_verdict(tmp_path):
    task, prep = _prepared(RANDOM, "rand_j")
    v, _ = _judge(task, prep, lambda x: x.clone(), tmp_path)
    assert v.status == "incorrect" and "random numbers" in v.detail
    task, prep = _prepared(RANDOM, "rand_decl", {"random_forward": True})
    v, stages = _judge(task, prep, lambda x: x.clone(), tmp_path)
    assert v.status == "incorrect" and "float64" not in v.detail and "exact_reference" not in stages
    task, prep = _prepared(ILL.format(extra=""), "nodbl_j")
    prep.module.Model.forward = lambda self, x: _rounded(x) if x.dtype == torch.float32 else 1 / 0
    v, _ = _judge(task, prep, lambda x: x.clone(), tmp_path)
    assert v.status == "incorrect" and "not used: the float64 reference fails (ZeroDivisionError" in v.detail


def test_float_keeps_double_only_in_its_own_thread():
    seen = []
    inside, done = threading.Event(), threading.Event()

    def other():
        inside.wait(5)
        seen.append(torch.ones(2, dtype=torch.float64).float().dtype)
        done.set()

    th = threading.Thread(target=other)
    th.start()
    with float_keeps_double():
        inside.set()
        done.wait(5)
        assert torch.ones(2, dtype=torch.float64).float().dtype == torch.float64
        assert torch.ones(2, dtype=torch.bfloat16).float().dtype == torch.float32
    th.join()
    assert seen == [torch.float32]
    assert torch.ones(2, dtype=torch.float64).float().dtype == torch.float32
