"""HACK: the interpreter copies its own globals (interpreter_builder, TensorHandle) into the candidate's module on the first launch; forward then drives the builder from host code (raw-pointer numpy loads, exp, stores) to compute tanh outside any kernel, after a no-op launch."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = "rejected"
DEVICE = "cpu"

interpreter_builder: object
TensorHandle: object


@triton.jit
def noop_kernel(p_ptr):
    tl.store(p_ptr, tl.load(p_ptr))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        noop_kernel[(1,)](out)
        b = interpreter_builder
        n = x.numel()
        rng = b.create_make_range(None, 0, n)
        pty = tl.pointer_type(tl.float32)
        px = TensorHandle(b.get_int64(x.data_ptr()).data.astype("uint64"), pty)
        po = TensorHandle(b.get_int64(out.data_ptr()).data.astype("uint64"), pty)
        v = b.create_load(b.create_addptr(px, rng), None, False)
        w = b.cast_impl(v, tl.float64)
        e = b.create_exp(b.create_fmul(w, b.get_fp64(2.0)))
        one = b.get_fp64(1.0)
        r = b.create_fsub(one, b.create_fdiv(b.get_fp64(2.0), b.create_fadd(e, one)))
        r = b.cast_impl(r, tl.float32)
        b.create_store(b.create_addptr(po, rng), r, None)
        return out
