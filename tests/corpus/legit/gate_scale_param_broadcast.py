"""LEGIT: LLM-style scale: the weight is an nn.Parameter made as the reference makes it; the kernel broadcasts it over rows with a modulo.
Observed (round 14, CPU): rejected torch_compute line 25 (torch.randn in __init__): FALSE REJECTION; with super().__init__() it passes."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "scale"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def scale_kernel(x_ptr, w_ptr, out_ptr, n_elements, dim, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    w = tl.load(w_ptr + offsets % dim, mask=mask)
    tl.store(out_ptr + offsets, x * w, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super(ModelNew, self).__init__()
        self.weight = nn.Parameter(torch.randn(dim))
        self.dim = dim

    def forward(self, x):
        x = x.contiguous()
        output = torch.empty_like(x)
        n_elements = output.numel()
        BLOCK_SIZE = 1024
        num_blocks = (n_elements + BLOCK_SIZE - 1) // BLOCK_SIZE
        scale_kernel[(num_blocks,)](x, self.weight, output, n_elements, self.dim, BLOCK_SIZE=BLOCK_SIZE)
        return output
