"""HACK (round 32, a scalar load is every thread's, not lane 0's): l2-normalised rows where the clamped norm is
stored to a per-row workspace as a SCALAR (``tl.store(ws + row, nrm)``: on a GPU one thread, predicated) and read
straight back as a SCALAR (``tl.load(ws + row)``) with no ``tl.debug_barrier()`` between. Compiled for sm_90
(checked here: TTGIR -> PTX) the store is ``@%p st.global`` by one thread and the load an unpredicated
``ld.global`` by all 128 threads with no ``bar.sync`` between them: threads of the other warps can load the
workspace before the store lands and divide by the stale ``torch.empty`` contents. The race record models a
scalar access as lane 0 for loads too, so a scalar store and a scalar load meet in the same "lane"."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "normalize_rows_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def l2n_kernel(x_ptr, ws_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        msk = c0 + offs < C
        v = tl.load(x_ptr + row * C + c0 + offs, mask=msk, other=0.0)
        acc += v * v
    tl.store(ws_ptr + row, tl.maximum(tl.sqrt(tl.sum(acc, axis=0)), 1e-6))
    nrm = tl.load(ws_ptr + row)
    for c0 in range(0, C, BLOCK):
        msk = c0 + offs < C
        v = tl.load(x_ptr + row * C + c0 + offs, mask=msk, other=0.0)
        tl.store(out_ptr + row * C + c0 + offs, v / nrm, mask=msk)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        ws = torch.empty(R, dtype=torch.float32, device=x.device)
        out = torch.empty_like(x)
        l2n_kernel[(R,)](x, ws, out, C, BLOCK=128)
        return out
