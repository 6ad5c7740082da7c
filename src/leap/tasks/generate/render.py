"""Render a `Chain` as a KernelBench task source and, where the templates cover it, as a Triton
``ModelNew`` that computes the whole chain in one row-wise kernel (fp32 inside the kernel)."""

from __future__ import annotations

from leap.tasks.generate.grammar import BINARY, REDUCES, ROWOPS, TORCH_DTYPE, UNARY, Chain, Op

CHAIN_MARK = "# leap-chain: "


def chain_from_source(source: str) -> Chain | None:
    """The chain a generated task was rendered from (its ``# leap-chain:`` line), or None."""
    for line in source.splitlines()[:5]:
        if line.startswith(CHAIN_MARK):
            try:
                return Chain.from_json(line[len(CHAIN_MARK):])
            except (ValueError, KeyError, TypeError):
                return None
    return None


def _fill(template: str, h: str, op: Op, operand: str = "") -> str:
    params = {f"p{i}": repr(v) for i, v in enumerate(op.params)}
    return template.format(h=h, o=operand, **params)


def _operands(chain: Chain) -> list[tuple[int, Op, str]]:
    """(op index, op, name) of every binary operand: inputs ``y0..`` and parameters ``self.w0..``."""
    out, n_in, n_par = [], 0, 0
    for i, op in enumerate(chain.ops):
        if op.kind == "binary":
            if op.operand == "param":
                out.append((i, op, f"self.w{n_par}"))
                n_par += 1
            else:
                out.append((i, op, f"y{n_in}"))
                n_in += 1
    return out


def _init_lines(chain: Chain) -> tuple[str, list[str], list[str]]:
    """(constructor arguments, body lines, get_init_inputs items)."""
    lines, args, init_inputs = [], [], []
    params = [name for _, op, name in _operands(chain) if op.operand == "param"]
    if chain.has_linear or params:
        args.append("cols: int")
        init_inputs.append("COLS")
    if chain.has_linear:
        args.append("in_features: int")
        init_inputs.append("IN")
        lines.append("self.fc = nn.Linear(in_features, cols).to(DTYPE)")
    for name in params:
        lines.append(f"{name} = nn.Parameter(torch.randn(cols, dtype=DTYPE))")
    return ", ".join(args), lines, init_inputs


def _shape_exprs(chain: Chain, small: bool) -> dict[str, str]:
    s = chain.shapes
    lead = ", ".join(str(r) for r in s.small_rows) if small else ", ".join(_lead_names(chain))
    cols = str(s.small_cols) if small else "COLS"
    feat = (str(s.in_features) if small else "IN") if chain.has_linear else cols
    return {"x": f"{lead}, {feat}", "full": f"{lead}, {cols}", "row": f"{cols}", "col": f"{lead}, 1"}


def _lead_names(chain: Chain) -> list[str]:
    return ["ROWS"] if len(chain.shapes.gpu_rows) == 1 else ["BATCH", "SEQ"]


def _input_list(chain: Chain, small: bool) -> str:
    shapes = _shape_exprs(chain, small)
    items = [f"torch.randn({shapes['x']}, dtype=DTYPE)"]
    items += [f"torch.randn({shapes[op.operand]}, dtype=DTYPE)"
              for _, op, name in _operands(chain) if not name.startswith("self.")]
    return "[" + ", ".join(items) + "]"


def describe(chain: Chain) -> str:
    return " -> ".join(op.name + (f"({op.operand})" if op.operand else "") for op in chain.ops)


def render_task(chain: Chain, name: str, split: str = "train") -> str:
    """KernelBench-format source of the chain's reference (half dtypes compute in fp32 inside)."""
    names = {i: n for i, _, n in _operands(chain)}
    args = ["x"] + [n for n in names.values() if not n.startswith("self.")]
    half = chain.dtype != "fp32"
    body: list[str] = ["h = x.float()"] if half and not chain.has_linear else []
    cur = "h" if body else "x"
    for i, op in enumerate(chain.ops):
        if op.kind == "linear":
            expr = f"self.fc({cur})"
        elif op.kind == "unary":
            expr = _fill(UNARY[op.name][0], cur, op)
        elif op.kind == "binary":
            expr = _fill(BINARY[op.name][0], cur, op, names[i])
        elif op.kind == "rowop":
            expr = _fill(ROWOPS[op.name], cur, op)
        else:
            expr = _fill(REDUCES[op.name], cur, op)
        body.append(f"h = {expr}")
        cur = "h"
        if half and op.kind == "linear":
            body.append("h = h.float()")
    body.append("return h.to(x.dtype)" if half else "return h")
    init_args, init_body, init_inputs = _init_lines(chain)
    tags = ["generated", f"difficulty:{chain.difficulty()}"] + sorted({op.kind for op in chain.ops})
    lead_names, lead_vals = _lead_names(chain), chain.shapes.gpu_rows
    consts = [f"{', '.join(lead_names + ['COLS'])} = {', '.join(str(v) for v in lead_vals + (chain.shapes.cols,))}"]
    if chain.has_linear:
        consts.append(f"IN = {chain.shapes.in_features}")
    meta = ["LEAP_LEVEL = 2", f"LEAP_TAGS = {tags!r}".replace("'", '"'), f'LEAP_SPLIT = "{split}"',
            f'LEAP_DTYPE = "{chain.dtype}"', f'LEAP_DIFFICULTY = "{chain.difficulty()}"']
    if chain.has_linear:
        meta.append('LEAP_ALLOWED_OPS = ["linear", "matmul"]')
    lines = [f'"""Generated fused task: {describe(chain)} ({chain.dtype})."""', f"{CHAIN_MARK}{chain.to_json()}",
             "import torch", "import torch.nn as nn"]
    if "F." in "\n".join(body):
        lines.append("import torch.nn.functional as F")
    lines += ["", *meta, "", f"DTYPE = {TORCH_DTYPE[chain.dtype]}", *consts, "", "",
              "class Model(nn.Module):", f"    def __init__(self{', ' + init_args if init_args else ''}):",
              "        super().__init__()", *[f"        {ln}" for ln in init_body], "",
              f"    def forward(self, {', '.join(args)}):", *[f"        {ln}" for ln in body], "", "",
              "def get_inputs():", f"    return {_input_list(chain, False)}", "", "",
              "def get_small_inputs():", f"    return {_input_list(chain, True)}", "", "",
              "def get_init_inputs():", f"    return [{', '.join(init_inputs)}]", ""]
    return "\n".join(lines)

