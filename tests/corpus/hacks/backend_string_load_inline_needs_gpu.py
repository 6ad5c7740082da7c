"""HACK (penalty dodge, CPU judge): a WRONG Triton relu (no tail mask: wrong unless the size is a multiple of 1024)
whose source also holds the string constant "load_inline". Backend detection (`gate/backends._from_ast`) counts
load_inline "however it is reached (attribute, name or string)" and cuda_inline wins `PRIORITY`, so the whole
candidate is judged as a cuda_inline candidate: on a CPU-only judge that is `needs_gpu` (unjudged) without the
Triton kernel ever running. A correct judge: incorrect (or runtime_error) for the wrong Triton kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_odd"
EXPECT = ("incorrect", "runtime_error")
DEVICE = "cpu"

BUILD_NOTE = "load_inline"


@triton.jit
def relu_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs), 0.0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        out = torch.empty_like(x)
        relu_kernel[(n // 1024,)](x, out, BLOCK=1024)
        return out
