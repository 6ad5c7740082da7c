"""GPU poisoning (`leap.sandbox.worker.poison`): every block the caching allocator holds free carries the
run's poison, also when earlier runs' outputs pin parts of earlier segments (the child keeps them for the
bitwise comparison), so a third run under run 0's poison sees run 0's poison wherever it allocates."""

from __future__ import annotations

import struct

import pytest
import torch

from leap.sandbox.worker.poison import POISONS, fill_free_blocks, pattern, poison

pytestmark = pytest.mark.gpu


def _as_int32(bits: int) -> int:
    return struct.unpack("<i", struct.pack("<I", bits))[0]


@pytest.mark.parametrize("numel", [100, 1 << 16, (1 << 22) + 3])  # small pool, large pool, odd size
def test_allocations_after_poison_hold_that_runs_poison(numel):
    kept = []
    for run in (0, 1, 0, 1):
        assert poison("cuda", 256 << 20, run) >= 256 << 20
        t = torch.empty(numel, device="cuda")  # served best-fit from whichever free block fits
        want = _as_int32(pattern(POISONS[run]))
        assert bool((t.view(torch.int32) == want).all()), (run, t[:4])
        kept.append(torch.empty(numel, device="cuda"))  # pin this segment, as a kept output does
        del t


def test_fill_free_blocks_leaves_live_tensors_alone():
    live = torch.arange(1 << 20, device="cuda", dtype=torch.float32)
    scratch = torch.empty(1 << 20, device="cuda")
    del scratch
    assert fill_free_blocks(pattern(-7.0)) > 0
    assert bool((live == torch.arange(1 << 20, device="cuda", dtype=torch.float32)).all())
