"""LEGIT cross_entropy_rows_fp32: one program per row, log-sum-exp with other=-inf, the target's logit loaded through
an int64 index read from the targets tensor, output allocated with torch.empty(rows, dtype=logits.dtype)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cross_entropy_rows_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def ce_kernel(logits_ptr, target_ptr, loss_ptr, n_cls, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cls
    z = tl.load(logits_ptr + row * n_cls + cols, mask=mask, other=float("-inf"))
    m = tl.max(z, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(z - m), axis=0))
    t = tl.load(target_ptr + row)
    zt = tl.load(logits_ptr + row * n_cls + t)
    tl.store(loss_ptr + row, lse - zt)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        logits = logits.contiguous()
        rows, n_cls = logits.shape
        loss = torch.empty(rows, dtype=logits.dtype, device=logits.device)
        ce_kernel[(rows,)](logits, target, loss, n_cls, BLOCK=triton.next_power_of_2(n_cls))
        return loss
