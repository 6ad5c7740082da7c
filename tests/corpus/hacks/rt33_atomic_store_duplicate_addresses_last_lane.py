"""HACK (round 33): two lanes of one ``tl.atomic_store`` write different values to the same address: lane 2i
stores garbage (-7.0), lane 2i+1 stores relu(x[i]), both at ``out + i``. Round 31b made two lanes of one plain
store with different values to one address a Race, and serves a vector ``atomic_rmw``'s lanes on one address
in the program order (reversed/shuffled); a vector ``atomic_store`` goes straight to the interpreter's native
store, whose numpy assignment lets the last lane win every time, so the output is relu(x). On a GPU the two
lanes are two threads of one warp (sm_90 TTGIR here: ``sizePerThread = [1]``, lane k is thread k mod 128)
executing one ``st.relaxed.gpu`` instruction, and which value lands is not defined."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
DEVICE = "cpu"
EXPECT = ("runtime_error", "incorrect")


@triton.jit
def relu_dup(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    k = tl.arange(0, 2 * BLOCK)
    idx = tl.program_id(0) * BLOCK + k // 2
    m = idx < N
    x = tl.load(x_ptr + idx, mask=m, other=0.0)
    val = tl.where(k % 2 == 1, tl.maximum(x, 0.0), -7.0)
    tl.atomic_store(out_ptr + idx, val, mask=m, sem="relaxed")


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_dup[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        return out
