"""Shared GPU test pieces."""

from __future__ import annotations

import pytest


@pytest.fixture
def side_stream_forward():
    """A forward whose only work on the measured stream is ``inp * 2`` while 8 4096x4096 matmuls (~20 ms)
    run on a side stream it never joins: ``(fn, args)``."""
    import torch

    a = torch.randn(4096, 4096, device="cuda")
    side = torch.cuda.Stream()

    def sneaky(inp):
        out = inp * 2
        with torch.cuda.stream(side):
            for _ in range(8):
                torch.mm(a, a)
        return out

    return sneaky, [torch.randn(1024, device="cuda")]
