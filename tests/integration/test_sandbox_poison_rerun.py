"""The poison re-run: trial 0 runs twice over differently poisoned memory, and when the bits differ a third
time under the first run's poison. A kernel that differs under the same poison too is nondeterministic
(float atomics summing in another order): it passes when the poison re-run still matches the reference. A
kernel whose bits follow the poison reads memory it did not write: refused, even within tolerance."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sandbox_cases import kernels as K  # noqa: E402

from leap.sandbox import Sandbox, SandboxConfig  # noqa: E402
from leap.tasks.suite import get_builtin  # noqa: E402

SCALED = K.RELU.replace("def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):",
                        "def relu_kernel(x_ptr, y_ptr, n, s, BLOCK: tl.constexpr):").replace(
    "tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=mask)", "tl.store(y_ptr + offs, tl.maximum(x, 0.0) * s, mask=mask)").replace(
    "        super().__init__()\n", "        super().__init__()\n        self.calls = 0\n").replace(
    "relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)",
    "self.calls += 1\n        s = SCALE[self.calls % 3]\n"
    "        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, s, BLOCK=1024)")
# calls 1, 2, 3: trial 0, its poison re-run, the same-poison run: other last bits each time (like atomics) ...
REORDERED = SCALED.replace("class ModelNew", "SCALE = (1.0000002, 1.0, 1.0000001)\n\n\nclass ModelNew")
# ... or right, wrong in the poison re-run, right again (a result that follows the poison)
WRONG_IN_RERUN = SCALED.replace("class ModelNew", "SCALE = (1.0, 1.0, 1.5)\n\n\nclass ModelNew")


def test_nondeterministic_last_bits_pass_and_bits_that_follow_the_poison_do_not():
    relu = get_builtin("relu_fp32")
    with Sandbox(SandboxConfig(workers=1), device="cpu") as sb:
        v = sb.verify(relu, REORDERED)
        assert v.status == "ok", v.feedback
        w = sb.verify(relu, WRONG_IN_RERUN)
        assert w.status == "incorrect" and "reads memory it did not write" in w.feedback, w.feedback
        u = sb.verify(relu, K.RELU_READS_UNINIT)  # hidden within tolerance, deterministic under one poison
        assert u.status == "incorrect" and "did not write" in u.feedback, u.feedback


def test_with_the_checks_in_the_judge_the_poison_rerun_stays_bitwise():
    relu = get_builtin("relu_fp32")
    with Sandbox(SandboxConfig(workers=1, child_checks=False), device="cpu") as sb:
        assert sb.verify(relu, REORDERED).status == "incorrect"
        assert sb.verify(relu, K.RELU).status == "ok"


# float atomics summing three partials (bits follow the program order) plus a read of uninitialised memory hidden
# within tolerance (bits follow the poison): the reversed re-run must not let the order excuse the poison
ATOMIC_PLUS_UNINIT = K.HEADER + '''

@triton.jit
def relu_parts(x_ptr, t_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    part = tl.program_id(1)
    mask = offs < n
    x = tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0)
    w = tl.where(part == 0, 0.3, tl.where(part == 1, 0.3, 0.4))
    t = tl.load(t_ptr + offs, mask=mask)
    tl.atomic_add(y_ptr + offs, x * w + tl.where((part == 2) & (t < 0), 1e-30, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        t = torch.empty_like(x)
        y = torch.zeros_like(x)
        n = x.numel()
        relu_parts[(triton.cdiv(n, 1024), 3)](x, t, y, n, BLOCK=1024)
        return y
'''


def test_order_dependent_bits_do_not_excuse_poison_dependent_ones():
    relu = get_builtin("relu_fp32")
    with Sandbox(SandboxConfig(workers=1), device="cpu") as sb:
        honest = sb.verify(relu, ATOMIC_PLUS_UNINIT.replace("tl.where((part == 2) & (t < 0), 1e-30, 0.0)", "0.0"))
        assert honest.status == "ok", honest.feedback  # the order alone changes the bits: checked, and right
        v = sb.verify(relu, ATOMIC_PLUS_UNINIT)
        assert v.status == "incorrect" and "did not write" in v.feedback, v.feedback
