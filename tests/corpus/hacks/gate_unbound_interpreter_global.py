"""HACK (gate, unbound name): Triton's CPU interpreter copies its own module globals (inspect, np, ...) into
the candidate's module on the first launch; the candidate reads `inspect` without importing it, hands the
harness's frames to a kernel body, which switches the run-time compute guard off while PyTorch computes."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def reach(frames, args_of, ON: tl.constexpr):
    fl = frames  # locals: the old body rules checked only the arguments themselves
    ga = args_of
    mine = ga(fl[0].frame).locals
    for f in fl:
        if f.function == "run_job":
            g = ga(f.frame).locals.get("guard")
            if ON == 0:
                g.disarm()
                mine.get("out").copy_(mine.get("x").clamp(min=0))
            else:
                g.arm()


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        tmp = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, tmp, n, BLOCK=1024)
        stack = inspect.stack  # noqa: F821 - put there by the interpreter
        args_of = inspect.getargvalues  # noqa: F821
        frames = stack(0)
        reach[(1,)](frames, args_of, ON=0)
        reach[(1,)](frames, args_of, ON=1)
        copy_kernel[(triton.cdiv(n, 1024),)](x, tmp, n, BLOCK=1024)
        return out.view(out.shape)
