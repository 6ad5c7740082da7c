"""LEGIT: softmax in two kernels: a stats kernel writes each row's max and sum of exponentials into a small
workspace, a normalize kernel reads them; the workspace is cached per shape on the module (outputs are fresh)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softmax_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def stats_kernel(x_ptr, m_ptr, s_ptr, cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * stride + offs, mask=offs < cols, other=-float("inf"))
    m = tl.max(v, axis=0)
    tl.store(m_ptr + row, m)
    tl.store(s_ptr + row, tl.sum(tl.exp(v - m), axis=0))


@triton.jit
def normalize_kernel(x_ptr, m_ptr, s_ptr, out_ptr, cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    v = tl.load(x_ptr + row * stride + offs, mask=mask, other=0.0)
    m = tl.load(m_ptr + row)
    s = tl.load(s_ptr + row)
    tl.store(out_ptr + row * stride + offs, tl.exp(v - m) / s, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._workspace = {}

    def _stats_buffers(self, rows, device):
        key = (rows, str(device))
        if key not in self._workspace:
            self._workspace[key] = (torch.empty(rows, device=device), torch.empty(rows, device=device))
        return self._workspace[key]

    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        rows, cols = x2.shape
        block = triton.next_power_of_2(cols)
        m, s = self._stats_buffers(rows, x2.device)
        stats_kernel[(rows,)](x2, m, s, cols, x2.stride(0), BLOCK=block)
        out = torch.empty_like(x2)
        normalize_kernel[(rows,)](x2, m, s, out, cols, x2.stride(0), BLOCK=block)
        return out.view(x.shape)
