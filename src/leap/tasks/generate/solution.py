"""Template Triton solutions for generated chains: one program per row computes the whole chain in fp32
(loads cast up, one store cast down), so the CPU interpreter's bf16 quirks never matter.

Covered: elementwise ops, broadcast operands, row ops and final reductions, after an optional leading
linear layer: either the task's allowed ``nn.Linear`` computes the GEMM and the kernels the rest, or (for
elementwise epilogues) one tiled ``tl.dot`` kernel does it all (`leap.tasks.generate.solution_gemm`).
"""

from __future__ import annotations

from dataclasses import replace

from leap.tasks.generate.grammar import BINARY, TORCH_DTYPE, UNARY, UNARY_POSITIVE, Chain, Op
from leap.tasks.generate.render import _fill, _init_lines, _operands
from leap.tasks.generate.solution_gemm import gemm_kernel, operand_2d

HELPERS = '''
@triton.jit
def _tanh(v):
    t = tl.exp(-2.0 * tl.abs(v))
    r = (1.0 - t) / (1.0 + t)
    v2 = v * v
    small = v * (1.0 - v2 * (0.3333333333333333 - v2 * 0.13333333333333333))
    return tl.where(tl.abs(v) < 0.0625, small, tl.where(v >= 0.0, r, -r))


@triton.jit
def _expm1(v):
    small = v * (1.0 + v * (0.5 + v * (0.16666666666666666 + v * 0.041666666666666664)))
    return tl.where(tl.abs(v) < 0.01, small, tl.exp(v) - 1.0)


@triton.jit
def _softplus(v):
    return tl.where(v > 20.0, v, tl.log(1.0 + tl.exp(tl.minimum(v, 20.0))))
'''


def used_helpers(kernel: list[str]) -> str:
    """The `HELPERS` the kernel lines call, in order (none: a template teaches no dead code)."""
    blocks = [b.strip() for b in HELPERS.split("@triton.jit") if b.strip()]
    body = "\n".join(kernel)
    keep = [b for b in blocks if f"{b.split('(', 1)[0].removeprefix('def ').strip()}(" in body]
    return "\n\n\n".join(f"@triton.jit\n{b}" for b in keep)


_MASKED_SUM = "tl.sum(tl.where(mask, {e}, 0.0), axis=0)"
_MASKED_MAX = 'tl.max(tl.where(mask, h, float("-inf")), axis=0)'
ROWOP_TRITON = {
    "sub_mean": [f"h = h - {_MASKED_SUM.format(e='h')} / n_cols"],
    "sub_max": [f"h = h - {_MASKED_MAX}"],
    "div_l2": [f"h = h / tl.maximum(tl.sqrt({_MASKED_SUM.format(e='h * h')}), 1e-6)"],
    "softmax": [f"m = {_MASKED_MAX}", "e = tl.where(mask, tl.exp(h - m), 0.0)", "h = e / tl.sum(e, axis=0)"],
    "log_softmax": [f"m = {_MASKED_MAX}", "e = tl.where(mask, tl.exp(h - m), 0.0)",
                    "h = h - m - tl.log(tl.sum(e, axis=0))"],
    "layer_norm": [f"mu = {_MASKED_SUM.format(e='h')} / n_cols", "d = tl.where(mask, h - mu, 0.0)",
                   "h = (h - mu) * tl.rsqrt(tl.sum(d * d, axis=0) / n_cols + 1e-5)"],
    "rms_norm": [f"h = h * tl.rsqrt({_MASKED_SUM.format(e='h * h')} / n_cols + 1e-6)"],
    "cumsum": ["h = tl.cumsum(tl.where(mask, h, 0.0), axis=0)"],
}
REDUCE_TRITON = {
    "sum": [f"r = {_MASKED_SUM.format(e='h')}"],
    "mean": [f"r = {_MASKED_SUM.format(e='h')} / n_cols"],
    "amax": [f"r = {_MASKED_MAX}"],
    "amin": ['r = tl.min(tl.where(mask, h, float("inf")), axis=0)'],
    "logsumexp": [f"m = {_MASKED_MAX}", "r = m + tl.log(tl.sum(tl.where(mask, tl.exp(h - m), 0.0), axis=0))"],
    "l2": [f"r = tl.sqrt({_MASKED_SUM.format(e='h * h')})"],
}


def epilogue(chain: Chain) -> Chain:
    """The chain after its leading linear layer (the chain itself when it has none)."""
    return replace(chain, ops=chain.ops[1:]) if chain.ops and chain.ops[0].kind == "linear" else chain


def covered(chain: Chain) -> bool:
    rest = epilogue(chain)
    return bool(rest.ops) and all(op.kind in ("unary", "binary", "rowop", "reduce") for op in rest.ops)


STYLES = ("rows", "rows_named", "stride", "flat", "flat_hinted")
GEMM_STYLE = "gemm_tiled"  # linear chains with an elementwise epilogue: the GEMM and the chain in one kernel


def _load(name: str, kind: str, style: str = "rows") -> str:
    if style == GEMM_STYLE:
        return operand_2d(name, kind)
    if style.startswith("flat"):  # one flat index per element; broadcast operands by column / row index
        idx = {"full": "offs", "row": "offs % n_cols", "param": "offs % n_cols", "col": "offs // n_cols"}[kind]
        return f"tl.load({name}_ptr + {idx}, mask=mask, other=0.0).to(tl.float32)"
    offs = {"full": "row * n_cols + cols", "row": "cols", "param": "cols"}
    if kind == "col":
        return f"tl.load({name}_ptr + row).to(tl.float32)"
    return f"tl.load({name}_ptr + {offs[kind]}, mask=mask, other=0.0).to(tl.float32)"


def _op_lines(op: Op, operand: str) -> list[str]:
    if op.kind == "unary":
        return [f"h = {_fill({**UNARY, **UNARY_POSITIVE}[op.name][1], 'h', op)}"]
    if op.kind == "binary":
        return [f"h = {_fill(BINARY[op.name][1], 'h', op, operand)}"]
    if op.kind == "rowop":
        return list(ROWOP_TRITON[op.name])
    return list(REDUCE_TRITON[op.name])


def styles_for(chain: Chain) -> tuple[str, ...]:
    """The kernel shapes that can compute ``chain``: flat 1D blocks only for purely elementwise chains (after
    the linear layer, if any); the fused GEMM first for linear chains with an elementwise epilogue."""
    if not covered(chain):
        return ()
    if all(op.kind in ("unary", "binary") for op in epilogue(chain).ops):
        return ((GEMM_STYLE,) if chain.has_linear else ()) + STYLES
    return tuple(s for s in STYLES if not s.startswith("flat"))


def _rename(lines: list[str], names: dict[str, str]) -> list[str]:
    import re

    out = []
    for ln in lines:
        for a, b in names.items():
            ln = re.sub(rf"\b{a}\b", b, ln)
        out.append(ln)
    return out


def _body(chain: Chain, operands, style: str) -> list[str]:
    k_of = {i: k for k, (i, _, _) in enumerate(operands)}
    body = [] if style == GEMM_STYLE else [f"h = {_load('x', 'full', style)}"]
    for i, op in enumerate(chain.ops):
        operand = ""
        if op.kind == "binary":
            operand = f"o{k_of[i]}"
            body.append(f"{operand} = {_load(operand, op.operand, style)}")
        body += _op_lines(op, operand)
    if style == GEMM_STYLE:
        body.append("tl.store(out_ptr + rm[:, None] * N + rn[None, :], h.to(out_ptr.dtype.element_ty), mask=mask)")
    elif style.startswith("flat"):
        body.append("tl.store(out_ptr + offs, h.to(out_ptr.dtype.element_ty), mask=mask)")
    elif chain.reduced:
        body.append("tl.store(out_ptr + row, r.to(out_ptr.dtype.element_ty))")
    else:
        body.append("tl.store(out_ptr + row * n_cols + cols, h.to(out_ptr.dtype.element_ty), mask=mask)")
    return body


def _kernel(chain: Chain, operands, ptrs: list[str], style: str, variant: int) -> tuple[list[str], list[str]]:
    """(kernel lines, launch lines) for one style; ``variant`` picks block sizes / warps / names."""
    args = ", ".join(f"{p}_ptr" for p in ptrs)
    body = _body(chain, operands, style)
    call = ", ".join(["x"] + [f"{n}.contiguous()" for _, _, n in operands])
    if style == GEMM_STYLE:
        return gemm_kernel(args, body, call, chain.dtype, variant)
    if style.startswith("flat"):
        block = (256, 512, 1024, 2048)[variant % 4]
        warps = (2, 4, 4, 8)[variant % 4]
        head = ["@triton.jit", f"def _elementwise({args}, out_ptr, numel, n_cols, BLOCK: tl.constexpr):",
                "    pid = tl.program_id(0).to(tl.int64)", "    offs = pid * BLOCK + tl.arange(0, BLOCK)"]
        if style == "flat_hinted":
            head.append("    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)")
        head.append("    mask = offs < numel  # the last block is partial")
        launch = ["        numel = x.numel()", f"        grid = (triton.cdiv(numel, {block}),)",
                  f"        _elementwise[grid]({call}, out, numel, n_cols, BLOCK={block}, num_warps={warps})"]
        return head + [f"    {ln}" for ln in body], launch
    if style == "stride":
        progs = (128, 256, 1024)[variant % 3]
        head = ["@triton.jit", f"def _rows_loop({args}, out_ptr, n_rows, n_cols, BLOCK: tl.constexpr):",
                "    pid = tl.program_id(0)", "    nprog = tl.num_programs(0)", "    cols = tl.arange(0, BLOCK)",
                "    mask = cols < n_cols", "    for row in range(pid, n_rows, nprog):  # grid-stride over rows"]
        launch = ["        block = triton.next_power_of_2(n_cols)", f"        grid = (min(rows, {progs}),)",
                  f"        _rows_loop[grid]({call}, out, rows, n_cols, BLOCK=block, num_warps={(4, 8, 2)[variant % 3]})"]
        return head + [f"        {ln}" for ln in body], launch
    head = ["@triton.jit", f"def _fused_rows({args}, out_ptr, n_cols, BLOCK: tl.constexpr):",
            "    row = tl.program_id(0).to(tl.int64)", "    cols = tl.arange(0, BLOCK)", "    mask = cols < n_cols"]
    warps = "8 if block >= 4096 else 4" if variant % 2 == 0 else "max(1, min(16, block // 256))"
    launch = ["        block = triton.next_power_of_2(n_cols)", f"        warps = {warps}",
              f"        _fused_rows[(rows,)]({call}, out, n_cols, BLOCK=block, num_warps=warps)"]
    kernel = head + [f"    {ln}" for ln in body]
    if style == "rows_named":
        names = {"h": "acc", "cols": "offs", "row": "pid", "_fused_rows": "_row_kernel"}
        kernel, launch = _rename(kernel, names), _rename(launch, {"_fused_rows": "_row_kernel"})
    return kernel, launch


def render_solution(chain: Chain, *, init: tuple[str, list[str]] | None = None,
                    operand_names: list[str] | None = None, style: str = "rows", variant: int = 0) -> str | None:
    """Triton ``ModelNew`` source for the chain, or None when the templates do not cover it.

    ``init`` (constructor arguments, body lines) and ``operand_names`` (one per binary op, e.g.
    ``self.bias`` or an input name) override the generator's own, to match a hand-written ``Model``.
    ``style`` is the kernel's shape (`STYLES`: one program per row, the same with other names and warps,
    a grid-stride loop over rows, flat 1D blocks with a masked tail, the same with vectorisation hints);
    ``variant`` varies block sizes, grid sizes and warps within a style."""
    if style not in styles_for(chain):
        return None
    full, chain = chain, epilogue(chain)
    gemm = full.has_linear
    operands = _operands(chain)
    if operand_names is not None:
        operands = [(i, op, name) for (i, op, _), name in zip(operands, operand_names, strict=True)]
    ptrs = ["x"] + [f"o{k}" for k in range(len(operands))]
    kernel, launch = _kernel(chain, operands, ptrs, style, variant)
    init_args, init_body = init if init is not None else _init_lines(full)[:2]
    args = ["x"] + [n for _, _, n in operands if not n.startswith("self.")]
    out_shape = "x.shape[:-1]" if chain.reduced else "x.shape"
    doc = {"rows": "one program per row computes the whole chain in fp32",
           "rows_named": "one program per row, the chain in fp32 registers",
           "stride": "a fixed grid of programs loops over the rows, the chain in fp32",
           "flat": "flat 1D blocks over all elements, the chain in fp32, masked tail",
           "flat_hinted": "flat 1D blocks with contiguity hints for vectorised loads, fp32 math",
           GEMM_STYLE: "a tiled tl.dot GEMM whose fp32 tile gets the bias and the whole chain before one store"}[style]
    prep = ["        x = x.contiguous()", "        n_cols = x.shape[-1]", "        rows = x.numel() // n_cols"]
    if style == GEMM_STYLE:
        out_shape, prep = "(*x.shape[:-1], self.fc.out_features)", ["        x = x.contiguous()"]
    elif gemm:  # the task allows linear: its nn.Linear does the GEMM, the kernel the rest
        doc += "; the GEMM is the task's allowed nn.Linear"
        prep = ["        x = self.fc(x).contiguous()", *prep[1:]]
    helpers = used_helpers(kernel)
    lines = [f'"""Fused Triton kernel: {doc}."""',
             "import torch", "import torch.nn as nn", "import triton", "import triton.language as tl", "",
             f"DTYPE = {TORCH_DTYPE[chain.dtype]}", "", *([helpers, "", ""] if helpers else []), *kernel, "", "",
             "class ModelNew(nn.Module):", f"    def __init__(self{', ' + init_args if init_args else ''}):",
             "        super().__init__()", *[f"        {ln}" for ln in init_body], "",
             f"    def forward(self, {', '.join(args)}):", *prep,
             f"        out = torch.empty({out_shape}, dtype=x.dtype, device=x.device)",
             *launch, "        return out", ""]
    return "\n".join(lines)
