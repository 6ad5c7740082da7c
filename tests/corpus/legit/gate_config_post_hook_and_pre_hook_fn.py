"""LEGIT: a split-K style matmul whose Config pre_hook (a module function) zeroes the fp32 output before the
atomic accumulation and whose autotuner's post_hook is a no-op lambda (as left in generated code)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "matmul"
EXPECT = "ok"
DEVICE = "cpu"


def zero_output(nargs):
    nargs["c_ptr"].zero_()


@triton.autotune(configs=[triton.Config({"BM": 32, "BN": 32, "BK": 32, "SPLIT": 2}, pre_hook=zero_output)],
                 key=["M", "N", "K"], post_hook=lambda nargs, exception: None)
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SPLIT: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    pk = tl.program_id(2)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(pk * BK, K, BK * SPLIT):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * sam + rk[None, :] * sak, mask=(rm[:, None] < M) & (rk[None, :] < K),
                    other=0.0)
        b = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn, mask=(rk[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.atomic_add(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, a, b):
        M, K = a.shape
        _, N = b.shape
        c = torch.empty((M, N), device=a.device, dtype=torch.float32)
        grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]), meta["SPLIT"])
        matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1))
        return c
