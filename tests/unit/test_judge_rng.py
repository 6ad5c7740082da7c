"""The judge runs in its caller's process (a trainer samples from torch's global generators): preparing
a candidate's trials and references must leave those generators exactly where they were."""

from __future__ import annotations

import torch

from leap.sandbox.config import SandboxConfig
from leap.sandbox.judge import verifier as V
from leap.tasks.suite import get_builtin


def test_prepare_leaves_the_global_rng_alone():
    torch.manual_seed(5)
    want = torch.rand(4)
    torch.manual_seed(5)
    prep = V.prepare(get_builtin("layernorm_fp32"), "cpu", SandboxConfig(), None)
    assert len(prep.trials) >= 5
    assert torch.equal(torch.rand(4), want)
