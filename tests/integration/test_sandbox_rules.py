"""`SandboxConfig.rules`: under "kernelbench" a ModelNew that launches a kernel and keeps some PyTorch
compute passes (as KernelBench allows), with LEAP's stricter verdict reported beside it; under LEAP's own
rules the same candidate is rejected."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sandbox_cases import kernels as K  # noqa: E402

from leap.sandbox import Sandbox, SandboxConfig  # noqa: E402
from leap.tasks.suite import get_builtin  # noqa: E402

PARTIAL = K.RELU.replace("        return y\n", "        return torch.clamp(y, min=0.0)  # PyTorch compute kept\n")


def test_partial_pytorch_passes_only_under_kernelbench_rules():
    relu = get_builtin("relu_fp32")
    assert PARTIAL != K.RELU
    with Sandbox(SandboxConfig(workers=1, rules="kernelbench"), device="cpu") as kb:
        v = kb.verify(relu, PARTIAL)
        assert v.status == "ok", v.feedback
        assert v.strict_gate and v.strict_gate.startswith("rejected"), v.strict_gate
    with Sandbox(SandboxConfig(workers=1), device="cpu") as strict:
        s = strict.verify(relu, PARTIAL)
        assert s.status == "rejected" and s.strict_gate is None
