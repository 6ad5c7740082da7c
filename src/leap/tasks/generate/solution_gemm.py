"""Template Triton solutions with a matrix product: a tiled ``tl.dot`` kernel that applies a linear chain's
elementwise epilogue to its fp32 accumulator (bias, activations and broadcast operands in one kernel, no
intermediate in memory), and the plain products of the built-in matmul tasks (``mm``, ``bmm``, ``mv``).

fp32 products ask ``tl.dot`` for IEEE precision (its default on a GPU is TF32, ~1e-3 relative error).
"""

from __future__ import annotations

TILES = ((64, 64, 32, 4), (32, 64, 32, 4), (64, 32, 64, 4), (128, 64, 32, 8))  # BM, BN, BK, warps
_LOAD_2D = {"full": ("rm[:, None] * N + rn[None, :]", "mask"), "row": ("rn[None, :]", "rn[None, :] < N"),
            "param": ("rn[None, :]", "rn[None, :] < N"), "col": ("rm[:, None]", "rm[:, None] < M")}


def dot(dtype: str) -> str:
    return 'tl.dot(a, b, input_precision="ieee")' if dtype == "fp32" else "tl.dot(a, b)"


def operand_2d(name: str, kind: str) -> str:
    """Load of a broadcast operand over the (BM, BN) output tile, as fp32."""
    idx, mask = _LOAD_2D[kind]
    return f"tl.load({name}_ptr + {idx}, mask={mask}, other=0.0).to(tl.float32)"


def gemm_kernel(args: str, body: list[str], call: str, dtype: str, variant: int) -> tuple[list[str], list[str]]:
    """(kernel lines, launch lines) of ``out = epilogue(x @ fc.weight.T + fc.bias)``: ``body`` is the
    epilogue on ``h`` (fp32, the tile), ending in its store."""
    bm, bn, bk, warps = TILES[variant % len(TILES)]
    head = ["@triton.jit",
            f"def _gemm_epilogue({args}, w_ptr, b_ptr, out_ptr, M, N, K,",
            "                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):",
            *_tile_loop("x_ptr", ("K", "1"), "w_ptr", ("1", "K"), dtype,
                        "  # x is (M, K), the weight (N, K): both read along K"),
            "    mask = (rm[:, None] < M) & (rn[None, :] < N)",
            "    h = acc + tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]"]
    if dtype != "fp32":
        head.append("    h = h.to(out_ptr.dtype.element_ty).to(tl.float32)  # the reference's linear output is DTYPE")
    launch = ["        k_in = x.shape[-1]", "        m, n = x.numel() // k_in, self.fc.out_features",
              f"        grid = (triton.cdiv(m, {bm}), triton.cdiv(n, {bn}))",
              f"        _gemm_epilogue[grid]({call}, self.fc.weight, self.fc.bias, out, m, n, k_in,",
              f"                             BM={bm}, BN={bn}, BK={bk}, num_warps={warps})"]
    return head + [f"    {ln}" for ln in body], launch


_HEADER = ['"""{doc}"""', "import torch", "import torch.nn as nn", "import triton", "import triton.language as tl", ""]


def _module(doc: str, kernel: list[str], forward_args: str, forward: list[str]) -> str:
    lines = [ln.format(doc=doc) for ln in _HEADER] + ["", *kernel, "", "", "class ModelNew(nn.Module):",
                                                     "    def __init__(self):", "        super().__init__()", "",
                                                     f"    def forward(self, {forward_args}):",
                                                     *[f"        {ln}" for ln in forward], ""]
    return "\n".join(lines)


def _tile_loop(a: str, sa: tuple[str, str], b: str, sb: tuple[str, str], dtype: str, note: str = "") -> list[str]:
    """The body of a tiled product up to its fp32 accumulator ``acc``: (BM, BN) tile of ``a @ b`` for program
    (pid_m, pid_n), K in BK steps. ``sa`` / ``sb``: the (row, K) and (K, column) strides, as source text."""
    def at(idx: str, stride: str) -> str:
        return idx if stride == "1" else f"{idx} * {stride}"

    return ["    pid_m = tl.program_id(0)", "    pid_n = tl.program_id(1)",
            "    rm = pid_m * BM + tl.arange(0, BM)", "    rn = pid_n * BN + tl.arange(0, BN)",
            "    rk = tl.arange(0, BK)", "    acc = tl.zeros((BM, BN), dtype=tl.float32)",
            f"    for k in range(0, K, BK):{note}",
            f"        a = tl.load({a} + {at('rm[:, None]', sa[0])} + {at('(k + rk)[None, :]', sa[1])},",
            "                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)",
            f"        b = tl.load({b} + {at('(k + rk)[:, None]', sb[0])} + {at('rn[None, :]', sb[1])},",
            "                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)",
            f"        acc += {dot(dtype)}"]


def _mm_kernel(dtype: str, batched: bool) -> list[str]:
    bat = ", sab, sbb, scb" if batched else ""
    offs = ["    pid_b = tl.program_id(2)", "    a_ptr += pid_b * sab", "    b_ptr += pid_b * sbb",
            "    c_ptr += pid_b * scb"] if batched else []
    return ["@triton.jit",
            f"def _matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn{bat},",
            "            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):", *offs,
            *_tile_loop("a_ptr", ("sam", "sak"), "b_ptr", ("sbk", "sbn"), dtype),
            "    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(c_ptr.dtype.element_ty),",
            "             mask=(rm[:, None] < M) & (rn[None, :] < N))"]


def render_matmul(kind: str, dtype: str, variant: int = 0) -> str:
    """``ModelNew`` for ``forward(a, b)``: ``a @ b`` (kind ``mm``), ``torch.bmm(a, b)`` (``bmm``) or
    ``torch.mv(a, v)`` (``mv``); ``variant`` picks tiles and warps."""
    bm, bn, bk, warps = TILES[variant % len(TILES)]
    if kind == "mv":
        rows = (64, 32, 128, 16)[variant % 4]
        kernel = ["@triton.jit", "def _matvec(a_ptr, v_ptr, y_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):",
                  "    rm = tl.program_id(0) * BM + tl.arange(0, BM)", "    rk = tl.arange(0, BK)",
                  "    acc = tl.zeros((BM,), dtype=tl.float32)", "    for k in range(0, K, BK):",
                  "        kk = k + rk",
                  "        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K),",
                  "                    other=0.0).to(tl.float32)",
                  "        v = tl.load(v_ptr + kk, mask=kk < K, other=0.0).to(tl.float32)",
                  "        acc += tl.sum(a * v[None, :], axis=1)",
                  "    tl.store(y_ptr + rm, acc.to(y_ptr.dtype.element_ty), mask=rm < M)"]
        forward = ["a, v = a.contiguous(), v.contiguous()", "m, k = a.shape",
                   "y = torch.empty(m, dtype=a.dtype, device=a.device)",
                   f"_matvec[(triton.cdiv(m, {rows}),)](a, v, y, m, k, BM={rows}, BK=128, num_warps={warps})",
                   "return y"]
        return _module("Matrix-vector product: each program reduces a block of rows over K in fp32.", kernel,
                       "a, v", forward)
    if kind == "bmm":
        forward = ["nb, m, k = a.shape", "n = b.shape[2]",
                   "c = torch.empty((nb, m, n), dtype=a.dtype, device=a.device)",
                   f"grid = (triton.cdiv(m, {bm}), triton.cdiv(n, {bn}), nb)",
                   "_matmul[grid](a, b, c, m, n, k, a.stride(1), a.stride(2), b.stride(1), b.stride(2),",
                   "              c.stride(1), c.stride(2), a.stride(0), b.stride(0), c.stride(0),",
                   f"              BM={bm}, BN={bn}, BK={bk}, num_warps={warps})", "return c"]
        return _module("Batched matmul: one (BM, BN) tile per program, the batch on grid axis 2, fp32 accumulation.",
                       _mm_kernel(dtype, True), "a, b", forward)
    forward = ["m, k = a.shape", "n = b.shape[1]", "c = torch.empty((m, n), dtype=a.dtype, device=a.device)",
               f"grid = (triton.cdiv(m, {bm}), triton.cdiv(n, {bn}))",
               "_matmul[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),",
               f"              c.stride(0), c.stride(1), BM={bm}, BN={bn}, BK={bk}, num_warps={warps})", "return c"]
    return _module("Tiled matmul: one (BM, BN) tile per program, K in BK steps, fp32 accumulation.",
                   _mm_kernel(dtype, False), "a, b", forward)
