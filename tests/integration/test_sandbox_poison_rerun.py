"""The poison re-run: trial 0 runs twice over differently poisoned memory. Outputs that differ only as float
atomics summing in another order do (both runs still match the reference) pass; an output that is right
in one run and wrong in the other is refused as reading memory it did not write — with the bitwise check
in the child (default) and in the judge."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from sandbox_cases import kernels as K  # noqa: E402

from leap.sandbox import Sandbox, SandboxConfig  # noqa: E402
from leap.tasks.suite import get_builtin  # noqa: E402

SCALED = K.RELU.replace("def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):",
                        "def relu_kernel(x_ptr, y_ptr, n, s, BLOCK: tl.constexpr):").replace(
    "tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=mask)", "tl.store(y_ptr + offs, tl.maximum(x, 0.0) * s, mask=mask)").replace(
    "        super().__init__()\n", "        super().__init__()\n        self.calls = 0\n").replace(
    "relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)",
    "self.calls += 1\n        s = SECOND if self.calls == 2 else 1.0\n"
    "        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, s, BLOCK=1024)")
# the second call is trial 0's re-run: a last-bit difference (another summation order) or a wrong answer
REORDERED = SCALED.replace("class ModelNew", "SECOND = 1.0000001\n\n\nclass ModelNew")
WRONG_IN_RERUN = SCALED.replace("class ModelNew", "SECOND = 1.5\n\n\nclass ModelNew")


@pytest.mark.parametrize("child_checks", [True, False])
def test_a_rerun_that_differs_in_the_last_bits_passes_and_a_wrong_one_does_not(child_checks):
    relu = get_builtin("relu_fp32")
    with Sandbox(SandboxConfig(workers=1, child_checks=child_checks), device="cpu") as sb:
        v = sb.verify(relu, REORDERED)
        assert v.status == "ok", v.feedback
        w = sb.verify(relu, WRONG_IN_RERUN)
        assert w.status == "incorrect" and "reads memory it did not write" in w.feedback, w.feedback
