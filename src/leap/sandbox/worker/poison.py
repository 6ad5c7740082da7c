"""Poisoned memory before each trial run, so a kernel that reads memory it did not write gives outputs that
follow the poison (run 0 and its re-run get different poisons; the judge compares their bits).

Bound at import, in the forkserver, before any candidate code loads.

GPU: every block the caching allocator holds free is filled, not only a fresh one. The candidate's
allocations are served best-fit from *any* free block, and the outputs of earlier runs kept for the
bitwise comparison pin parts of earlier segments, whose free remainders still hold the earlier run's
poison (2026-12-03 on an H200: a kernel adding a tiny term where uninitialised memory was negative got
`ok`, because its re-run under run 0's poison drew a block left from run 1's). So: free the cache, reserve
a big block and some small-pool segments (so new allocations come from poisoned memory too), then write the poison's 32-bit pattern
over every inactive block of every segment through the driver (`cuMemsetD32`). Without the driver
library, only the big block is filled (the earlier behaviour).
CPU: glibc fills every newly allocated block with a poison byte (``M_PERTURB``) and keeps blocks up to
32 MiB on the heap, where the fill applies.
"""

from __future__ import annotations

import ctypes
import struct

import torch

POISONS = (float("nan"), -7.0)  # GPU: float32 values whose bit patterns fill free memory
CPU_POISON_BYTES = (0xFE, 0x41)  # CPU: glibc malloc fills every new block with this byte
M_MMAP_THRESHOLD, M_PERTURB = -3, -6
SMALL_BYTES, SMALL_BLOCKS = 1 << 20, 16  # 16 MiB of the allocator's small pool, poisoned with the rest

_full = torch.full
_empty = torch.empty
_sync = torch.cuda.synchronize
_empty_cache = torch.cuda.empty_cache
_mem_get_info = torch.cuda.mem_get_info
_snapshot = torch.cuda.memory_snapshot
_float32 = torch.float32


def _driver_memset():
    try:
        fn = ctypes.CDLL("libcuda.so.1").cuMemsetD32_v2
    except (OSError, AttributeError):  # no NVIDIA driver here (a CPU machine)
        return None
    fn.argtypes = [ctypes.c_uint64, ctypes.c_uint32, ctypes.c_size_t]
    fn.restype = ctypes.c_int
    return fn


_memset32 = _driver_memset()


def pattern(value: float) -> int:
    """The 32-bit pattern of ``value`` as float32 (NaN: 0x7FC00000)."""
    return struct.unpack("<I", struct.pack("<f", value))[0]


def poison(device: str, nbytes: int, run: int = 0) -> int:
    """Poison for run ``run`` (0 or 1: the two poisons alternate). Returns the GPU bytes filled (0 on the CPU)."""
    if nbytes <= 0:
        return 0
    if device == "cpu":
        _mallopt(M_MMAP_THRESHOLD, 32 << 20)
        _mallopt(M_PERTURB, CPU_POISON_BYTES[run % 2] ^ 0xFF)
        return 0
    value = POISONS[run % 2]
    _empty_cache()  # free cached blocks (earlier runs' data) so new allocations come from the poison
    free, _ = _mem_get_info()
    nbytes = min(nbytes, free // 2)
    if _memset32 is not None:
        block = _empty((nbytes // 4,), dtype=_float32, device=device)
        # and segments of the small pool (allocations up to 1 MiB come from 2 MiB segments of their own)
        small = [_empty((SMALL_BYTES // 4,), dtype=_float32, device=device) for _ in range(SMALL_BLOCKS)]
        del block, small
        try:
            return fill_free_blocks(pattern(value))
        except RuntimeError:  # the driver refused a block (an allocator layout not foreseen): the fresh block
            pass
    block = _full((nbytes // 4,), value, dtype=_float32, device=device)
    del block  # stays cached; the caching allocator splits it for the candidate's allocations
    return nbytes


def fill_free_blocks(bits: int) -> int:
    """Write ``bits`` over every inactive block of the caching allocator (all devices' segments of this
    process); bytes written. Raises RuntimeError when the driver refuses a fill."""
    _sync()
    done = 0
    for seg in _snapshot():
        for blk in seg.get("blocks", ()):
            if blk.get("state") != "inactive" or blk.get("size", 0) < 4:
                continue
            rc = _memset32(int(blk["address"]), bits, int(blk["size"]) // 4)
            if rc != 0:
                raise RuntimeError(f"cuMemsetD32 failed with CUresult {rc}")
            done += int(blk["size"]) // 4 * 4
    _sync()
    return done


def _mallopt(param: int, value: int) -> None:
    try:
        ctypes.CDLL(None).mallopt(ctypes.c_int(param), ctypes.c_int(value))
    except (OSError, AttributeError):  # not glibc: no CPU poisoning
        pass
