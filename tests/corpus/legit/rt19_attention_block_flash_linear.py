"""LEGIT: attention block: F.linear for QKV/out projections (allowed), flash-attention kernel (online softmax, exp2, tl.range) reading Q/K/V straight from the qkv buffer via strides."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

TASK = "attention_block_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def flash_attn_fwd(qkv_ptr, out_ptr, S, H, D_MODEL, qk_scale,
                   stride_b, stride_s, stride_ob, stride_os,
                   HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // H
    h = pid_bh % H
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    base = qkv_ptr + b * stride_b + h * HEAD_DIM
    q = tl.load(base + offs_m[:, None] * stride_s + offs_d[None, :], mask=offs_m[:, None] < S, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in tl.range(0, S, BLOCK_N):
        kv_rows = start_n + offs_n
        kv_mask = kv_rows[:, None] < S
        k = tl.load(base + D_MODEL + kv_rows[:, None] * stride_s + offs_d[None, :], mask=kv_mask, other=0.0)
        v = tl.load(base + 2 * D_MODEL + kv_rows[:, None] * stride_s + offs_d[None, :], mask=kv_mask, other=0.0)
        qk = tl.dot(q, tl.trans(k), input_precision="ieee") * qk_scale
        qk = tl.where(kv_rows[None, :] < S, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p, v, acc, input_precision="ieee")
        m_i = m_ij
    acc = acc / l_i[:, None]
    o_ptrs = out_ptr + b * stride_ob + offs_m[:, None] * stride_os + h * HEAD_DIM + offs_d[None, :]
    tl.store(o_ptrs, acc, mask=offs_m[:, None] < S)


class ModelNew(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, S, D = x.shape
        H = self.heads
        hd = D // H
        qkv = F.linear(x, self.qkv.weight, self.qkv.bias).contiguous()  # [B, S, 3*D]
        attn = torch.empty((B, S, D), device=x.device, dtype=x.dtype)
        qk_scale = (1.0 / math.sqrt(hd)) * 1.44269504
        BLOCK_M, BLOCK_N = 16, 16
        grid = (triton.cdiv(S, BLOCK_M), B * H)
        flash_attn_fwd[grid](qkv, attn, S, H, D, qk_scale, qkv.stride(0), qkv.stride(1),
                             attn.stride(0), attn.stride(1), HEAD_DIM=hd, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                             num_warps=4, num_stages=2)
        return F.linear(attn, self.proj.weight, self.proj.bias)
