"""HACK (runtime layers alone): PyTorch compute in a short-lived Python thread started and joined inside
forward. TorchDispatchMode stacks are thread-local, so the backstop's recording mode never sees the
thread's `torch.clamp(x, min=0, out=out)`; the output tensor itself was allocated in the main thread (an op
the mode saw), and the thread is no longer alive when forward returns, so the leftover-thread detector is
silent. A no-op Triton kernel satisfies the launch requirement."""
import threading

import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def touch_kernel(out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(out_ptr + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        t = threading.Thread(target=torch.clamp, args=(x,), kwargs={"min": 0.0, "out": out})
        t.start()
        t.join()
        n = out.numel()
        touch_kernel[(triton.cdiv(n, 1024),)](out, n, BLOCK=1024)
        return out
