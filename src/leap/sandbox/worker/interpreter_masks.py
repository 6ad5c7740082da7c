"""Boolean masks for Triton's CPU interpreter (CPU checks only).

A mask built from a block comparison and a scalar one (``(offs < W) & (ih >= 0)``, ``ih`` from
``tl.program_id``: every convolution and pooling kernel's bounds test) is ``int1`` on a GPU, but Triton's
interpreter (3.9) types the scalar comparison's data as int32, and its native ``load``/``store`` then refuse
the mask ("mask has unsupported dtype"): a correct kernel got the candidate's ``runtime_error`` (a red-team
pass, 2026-12-05). `install` hands the native calls a boolean mask (non-zero is true, as the GPU's i1 is).
Installed by the harness before candidate code runs, in interpreter mode only.
"""

from __future__ import annotations

import numpy as np

from leap.sandbox.worker.interpreter_bf16 import patch_once


@patch_once
def install() -> None:
    """Patch the interpreter's masked memory ops (once)."""
    import triton.language as tl
    from triton.runtime import interpreter as interp

    builder, handle = interp.InterpreterBuilder, interp.TensorHandle

    def boolean(mask):
        data = getattr(mask, "data", None)
        if isinstance(data, np.ndarray) and data.dtype != np.bool_ and data.dtype.kind in "iu":
            return handle(data != 0, tl.int1)
        return mask

    load, store, rmw = builder.create_masked_load, builder.create_masked_store, builder.create_atomic_rmw

    def create_masked_load(self, ptrs, mask, *args, **kwargs):
        return load(self, ptrs, boolean(mask), *args, **kwargs)

    def create_masked_store(self, ptrs, value, mask, *args, **kwargs):
        return store(self, ptrs, value, boolean(mask), *args, **kwargs)

    def create_atomic_rmw(self, op, ptr, val, mask, *args, **kwargs):
        return rmw(self, op, ptr, val, boolean(mask), *args, **kwargs)

    builder.create_masked_load, builder.create_masked_store = create_masked_load, create_masked_store
    builder.create_atomic_rmw = create_atomic_rmw
