"""Output comparison: exact type/shape/dtype/structure checks, NaN/Inf positions, dtype tolerances."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from leap.sandbox.judge.compare import (
    CHUNK,
    bit_identical,
    check_inputs_unchanged,
    check_poison_identical,
    compare_outputs,
    tolerance_for,
)


def _ref(dtype=torch.float32, n=1000):
    g = torch.Generator().manual_seed(0)
    return torch.randn(n, generator=g).to(dtype)


def test_identical_passes_and_reports_zero_error():
    r = _ref()
    res = compare_outputs(r, r.clone())
    assert res.ok and res.max_abs_error == 0.0 and res.reason == ""


@pytest.mark.parametrize("dtype,ok_rel,bad_rel", [
    (torch.bfloat16, 1e-3, 5e-2), (torch.float16, 1e-3, 3e-2), (torch.float32, 1e-5, 1e-3)])
def test_dtype_tolerances(dtype, ok_rel, bad_rel):
    r = _ref(dtype)
    assert compare_outputs(r, (r.float() * (1 + ok_rel)).to(dtype)).ok
    res = compare_outputs(r, (r.float() * (1 + bad_rel)).to(dtype))
    assert not res.ok and res.reason == "value"
    assert res.max_rel_error == pytest.approx(bad_rel, rel=0.3)
    assert res.mismatches and res.mismatches[0].output == "output"
    assert "max abs error" in res.message and "expected" in res.message


def test_tolerance_scales_with_rms_not_absolute():
    r = _ref() * 1e4
    assert compare_outputs(r, r + 0.5).ok  # 0.5 << 1e-4 * rms(1e4)
    assert not compare_outputs(r / 1e8, r / 1e8 + 0.5).ok


def test_overrides():
    r = _ref()
    out = r * 1.01
    assert not compare_outputs(r, out).ok
    assert compare_outputs(r, out, rtol=0.02, atol=0.02).ok
    assert compare_outputs(r, out, tolerances={"fp32": 0.02}).ok
    assert tolerance_for(torch.bfloat16) == 1.6e-2 and tolerance_for(torch.float16, {"fp16": 0.5}) == 0.5


def test_integers_exact():
    r = torch.arange(100)
    assert compare_outputs(r, r.clone()).ok
    out = r.clone()
    out[7] += 1
    res = compare_outputs(r, out, rtol=0.5, atol=0.5)
    assert not res.ok and res.mismatches[0].index == (7,) and res.mismatches[0].expected == 7


def test_nan_and_inf_positions():
    r = _ref()
    r[3] = float("nan")
    r[5] = float("inf")
    ok = r.clone()
    assert compare_outputs(r, ok).ok
    moved = r.clone()
    moved[3], moved[4] = 0.0, float("nan")
    res = compare_outputs(r, moved)
    assert not res.ok and res.reason == "nan" and res.mismatches[0].index == (3,)
    neg = r.clone()
    neg[5] = float("-inf")
    assert compare_outputs(r, neg).reason == "inf"
    nan_everywhere = torch.full_like(r, float("nan"))
    assert not compare_outputs(r, nan_everywhere).ok


@pytest.mark.parametrize("out,reason", [
    (torch.zeros(3, 2), "shape"), (torch.zeros(2, 3, dtype=torch.float64), "dtype"),
    (torch.nn.Parameter(torch.zeros(2, 3)), "type"), ([torch.zeros(2, 3)], "type"), (3.0, "type"),
])
def test_exact_checks(out, reason):
    res = compare_outputs(torch.zeros(2, 3), out)
    assert not res.ok and res.reason == reason


def test_structure():
    a, b = torch.ones(2), torch.arange(3.0)
    assert compare_outputs((a, b), (a.clone(), b.clone())).ok
    assert compare_outputs((a, b), [a, b]).reason == "structure"
    assert compare_outputs((a, b), (a,)).reason == "structure"
    res = compare_outputs((a, b), (a, b + 1))
    assert not res.ok and res.mismatches[0].output == "output[1]"


def test_tensor_subclass_rejected():
    class Sneaky(torch.Tensor):
        pass
    r = torch.ones(4)
    assert compare_outputs(r, r.clone().as_subclass(Sneaky)).reason == "type"


def test_bit_identity_and_inputs():
    x = torch.randn(10)
    assert bit_identical([x, 3], [x.clone(), 3])
    y = x.clone()
    y[0] = -y[0]
    assert not bit_identical(x, y)
    z = torch.tensor([0.0])
    assert not bit_identical(z, -z)  # same value, different bits
    n1 = torch.tensor([float("nan")])
    assert bit_identical(n1, n1.clone())
    assert bit_identical(torch.ones(3, dtype=torch.bfloat16), torch.ones(3, dtype=torch.bfloat16))
    assert not bit_identical(torch.ones(3), torch.ones(3, dtype=torch.float64))
    assert check_inputs_unchanged([x], [x.clone()]).ok
    assert check_inputs_unchanged([x], [y]).reason == "modified"
    assert check_poison_identical(x, y).reason == "nondeterministic"


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=3),
       dtype=st.sampled_from([torch.float32, torch.float16, torch.bfloat16]), data=st.data())
def test_one_wrong_value_is_found_where_it_is(shape, dtype, data):
    g = torch.Generator().manual_seed(data.draw(st.integers(0, 1000)))
    ref = torch.randn(shape, generator=g).to(dtype)
    assert compare_outputs(ref, ref.clone()).ok
    flat = data.draw(st.integers(0, ref.numel() - 1))
    idx = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), ref.shape))
    out = ref.clone()
    tol = tolerance_for(dtype)
    rms = float(ref.float().square().mean().sqrt())
    out[idx] = float(ref[idx]) + 20 * tol * (rms + abs(float(ref[idx]))) + 0.1
    res = compare_outputs(ref, out)
    assert not res.ok and res.mismatches[0].index == idx and res.n_bad == 1


def test_overflow_at_the_edge_of_fp16_is_rounding_not_a_bug():
    r = torch.tensor([1.0, float("inf"), 65504.0, -float("inf"), 2.0], dtype=torch.float16)
    near = torch.tensor([1.0, 65504.0, float("inf"), -65504.0, 2.0], dtype=torch.float16)
    assert compare_outputs(r, near).ok
    far = near.clone()
    far[1] = 60000.0
    res = compare_outputs(r, far)
    assert res.reason == "inf" and res.mismatches[0].index == (1,)
    flipped = r.clone()
    flipped[1] = -float("inf")
    assert not compare_outputs(r, flipped).ok
    c = torch.randn(8, dtype=torch.complex64)
    assert compare_outputs(c, c.clone()).ok and not compare_outputs(c, c * 1j).ok


def test_structure_is_checked_before_any_value():
    a, b = torch.ones(4), torch.zeros(3)
    res = compare_outputs((a, b), (a + 1, torch.zeros(2)))  # output[0] is wrong, output[1] has the wrong shape
    assert res.reason == "shape" and "output[1]" in res.message
    assert compare_outputs({"x": a, "y": 1}, {"x": a + 1, "y": 1.0}).reason == "type"


def test_big_outputs_first_mismatches_and_counts():
    n = CHUNK * 2 + 5
    r = torch.randn(n, generator=torch.Generator().manual_seed(3))
    out = r.clone()
    out[n - 2] += 10.0  # only in the last chunk
    res = compare_outputs(r, out)
    assert res.reason == "value" and res.n_bad == 1 and res.mismatches[0].index == (n - 2,)
    part = r[: 2 * CHUNK].view(2, -1)[:, 1:]  # not contiguous
    everything = compare_outputs(part, part + 5)
    assert everything.n_bad == part.numel() and [m.index for m in everything.mismatches] == [(0, i) for i in range(5)]


def test_inputs_are_not_modified_and_fp32_overflowing_norm():
    r = _ref() * 1e30  # squares overflow fp32: the RMS falls back to float64
    out = r * (1 + 1e-6)
    r0, o0 = r.clone(), out.clone()
    res = compare_outputs(r, out)
    assert res.ok and res.max_rel_error == pytest.approx(1e-6, rel=0.2)
    assert torch.equal(r, r0) and torch.equal(out, o0)
    out[17] *= 1.5
    bad = compare_outputs(r, out)
    assert bad.reason == "value" and bad.n_bad == 1 and bad.mismatches[0].index == (17,)


def test_float64_and_nonfinite_mixed():
    r = _ref(torch.float64)
    r[::10] = float("inf")
    out = r * (1 + 1e-6)
    assert compare_outputs(r, out).ok
    out[11] += 1.0
    res = compare_outputs(r, out)
    assert res.reason == "value" and res.mismatches[0].index == (11,) and res.n_bad == 1
