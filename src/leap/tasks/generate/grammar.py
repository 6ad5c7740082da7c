"""The operator grammar of the task generator and a sampler of operator chains.

A chain works on one tensor ``h`` of shape (rows, cols) or (batch, seq, cols), row-wise along the last
dimension: an optional leading linear layer, elementwise unary ops, binary ops with a broadcast operand
(a full tensor, a per-column vector, a per-row column, or a learned parameter), row operations that
reduce and broadcast back in the middle of a chain (softmax, norms, centring), and an optional final
reduction over the last dimension. Each op carries its PyTorch expression (reference) and its Triton
expression in fp32 (template solution); ``{h}`` is the current value, ``{o}`` the binary operand.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field

# name -> (torch expression, triton expression, parameter choices)
UNARY: dict[str, tuple[str, str, tuple]] = {
    "relu": ("torch.relu({h})", "tl.maximum({h}, 0.0)", ()),
    "gelu": ("F.gelu({h})", "0.5 * {h} * (1.0 + tl.erf({h} * 0.7071067811865476))", ()),
    "gelu_tanh": ('F.gelu({h}, approximate="tanh")',
                  "0.5 * {h} * (1.0 + _tanh(0.7978845608028654 * ({h} + 0.044715 * {h} * {h} * {h})))", ()),
    "silu": ("F.silu({h})", "{h} / (1.0 + tl.exp(-{h}))", ()),
    "sigmoid": ("torch.sigmoid({h})", "1.0 / (1.0 + tl.exp(-{h}))", ()),
    "tanh": ("torch.tanh({h})", "_tanh({h})", ()),
    "abs": ("torch.abs({h})", "tl.abs({h})", ()),
    "square": ("{h} * {h}", "{h} * {h}", ()),
    "softplus": ("F.softplus({h})", "_softplus({h})", ()),
    "mish": ("F.mish({h})", "{h} * _tanh(_softplus({h}))", ()),
    "hardswish": ("F.hardswish({h})", "{h} * tl.minimum(tl.maximum({h} + 3.0, 0.0), 6.0) / 6.0", ()),
    "elu": ("F.elu({h})", "tl.where({h} > 0.0, {h}, _expm1(tl.minimum({h}, 0.0)))", ()),
    "leaky_relu": ("F.leaky_relu({h}, {p0})", "tl.where({h} >= 0.0, {h}, {h} * {p0})", ((0.01,), (0.1,), (0.2,))),
    "clamp": ("torch.clamp({h}, {p0}, {p1})", "tl.minimum(tl.maximum({h}, {p0}), {p1})",
              ((-1.0, 1.0), (-0.5, 0.5), (0.0, 6.0), (-2.0, 2.0))),
    "scale": ("{h} * {p0}", "{h} * {p0}", ((0.5,), (2.0,), (3.0,), (-1.5,))),
    "shift": ("{h} + {p0}", "{h} + {p0}", ((0.5,), (-0.5,), (1.0,))),
    "sin": ("torch.sin({h})", "tl.sin({h})", ()),
    "cos": ("torch.cos({h})", "tl.cos({h})", ()),
    "exp": ("torch.exp({h})", "tl.exp({h})", ()),
}
# Ops for positive inputs only: used by built-in solutions, never sampled (inputs are signed).
UNARY_POSITIVE: dict[str, tuple[str, str, tuple]] = {
    "log": ("torch.log({h})", "tl.log({h})", ()),
    "rsqrt": ("torch.rsqrt({h})", "tl.rsqrt({h})", ()),
}
BINARY: dict[str, tuple[str, str]] = {
    "add": ("{h} + {o}", "{h} + {o}"),
    "sub": ("{h} - {o}", "{h} - {o}"),
    "mul": ("{h} * {o}", "{h} * {o}"),
    "maximum": ("torch.maximum({h}, {o})", "tl.maximum({h}, {o})"),
    "minimum": ("torch.minimum({h}, {o})", "tl.minimum({h}, {o})"),
}
OPERANDS = ("full", "row", "col", "param")  # shape of the operand: like h, (cols,), (..., 1), learned (cols,)
# Row ops in the middle of a chain (reduce over the last dim and broadcast back).
ROWOPS: dict[str, str] = {
    "sub_mean": "{h} - {h}.mean(dim=-1, keepdim=True)",
    "sub_max": "{h} - {h}.amax(dim=-1, keepdim=True)",
    "div_l2": "{h} / torch.linalg.vector_norm({h}, dim=-1, keepdim=True).clamp_min(1e-6)",
    "softmax": "torch.softmax({h}, dim=-1)",
    "log_softmax": "torch.log_softmax({h}, dim=-1)",
    "layer_norm": "F.layer_norm({h}, {h}.shape[-1:])",
    "rms_norm": "{h} * torch.rsqrt({h}.pow(2).mean(dim=-1, keepdim=True) + 1e-6)",
    "cumsum": "torch.cumsum({h}, dim=-1)",
}
# Final reductions over the last dim.
REDUCES: dict[str, str] = {
    "sum": "{h}.sum(dim=-1)",
    "mean": "{h}.mean(dim=-1)",
    "amax": "{h}.amax(dim=-1)",
    "amin": "{h}.amin(dim=-1)",
    "logsumexp": "torch.logsumexp({h}, dim=-1)",
    "l2": "torch.linalg.vector_norm({h}, dim=-1)",
}
DTYPES = ("fp32", "bf16", "fp16")
TORCH_DTYPE = {"fp32": "torch.float32", "bf16": "torch.bfloat16", "fp16": "torch.float16"}
ELEMS = {"fp32": 1 << 26, "bf16": 1 << 27, "fp16": 1 << 27}  # GPU elements of h: >= 256 MiB per tensor


@dataclass(frozen=True)
class Op:
    """One step of a chain: kind in {linear, unary, binary, rowop, reduce}."""

    kind: str
    name: str
    params: tuple = ()
    operand: str | None = None  # binary ops only

    @property
    def token(self) -> str:
        p = ",".join(repr(v) for v in self.params)
        return f"{self.name}({p})" + (f"[{self.operand}]" if self.operand else "")


@dataclass(frozen=True)
class Shapes:
    cols: int
    gpu_rows: tuple[int, ...]  # leading dims of h on the GPU: (rows,) or (batch, seq)
    small_rows: tuple[int, ...]
    small_cols: int
    in_features: int = 0  # linear chains only


@dataclass(frozen=True)
class Chain:
    ops: tuple[Op, ...]
    dtype: str
    shapes: Shapes
    tags: tuple[str, ...] = field(default=())

    @property
    def signature(self) -> str:
        return f"{self.dtype}:" + "-".join(op.token for op in self.ops)

    @property
    def has_linear(self) -> bool:
        return any(op.kind == "linear" for op in self.ops)

    @property
    def reduced(self) -> bool:
        return bool(self.ops) and self.ops[-1].kind == "reduce"

    def to_json(self) -> str:
        return json.dumps({"ops": [[o.kind, o.name, list(o.params), o.operand] for o in self.ops],
                           "dtype": self.dtype, "shapes": asdict(self.shapes)}, separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> Chain:
        d = json.loads(text)
        sh = d["shapes"]
        shapes = Shapes(sh["cols"], tuple(sh["gpu_rows"]), tuple(sh["small_rows"]), sh["small_cols"],
                        sh.get("in_features", 0))
        return Chain(tuple(Op(k, n, tuple(p), o) for k, n, p, o in d["ops"]), d["dtype"], shapes)

    def difficulty(self) -> str:
        kinds = [op.kind for op in self.ops]
        score = (len(kinds) + 2 * kinds.count("rowop") + kinds.count("reduce") + 2 * kinds.count("linear")
                 + 0.5 * kinds.count("binary") + (1 if self.dtype != "fp32" else 0))
        return "easy" if score <= 3.5 else "medium" if score <= 6 else "hard"


def _choice(rng: random.Random, weights: dict):
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def _elementwise(rng: random.Random) -> Op:
    if rng.random() < 0.35:
        operand = _choice(rng, {"full": 0.35, "row": 0.25, "col": 0.15, "param": 0.25})
        return Op("binary", rng.choice(list(BINARY)), (), operand)
    name = rng.choice(list(UNARY))
    choices = UNARY[name][2]
    return Op("unary", name, rng.choice(choices) if choices else ())


def sample_chain(rng: random.Random) -> Chain:
    """Draw one chain: 2 to 7 ops, at least one of them not linear."""
    dtype = _choice(rng, {"fp32": 0.6, "bf16": 0.25, "fp16": 0.15})
    linear = rng.random() < 0.15
    ops: list[Op] = [_elementwise(rng) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.4:
        ops.insert(rng.randint(0, len(ops)), Op("rowop", rng.choice(list(ROWOPS))))
    if rng.random() < 0.3:
        ops.append(Op("reduce", rng.choice(list(REDUCES))))
    if linear:
        ops.insert(0, Op("linear", "linear"))
    if len(ops) < 2:
        ops.append(_elementwise(rng))
    fixed_cols = linear or any(op.operand == "param" for op in ops)
    if fixed_cols:
        cols = rng.choice((1024, 2048))
        small_cols = cols
    else:
        cols = rng.choice((1024, 2048, 4096, 8192))
        small_cols = rng.randint(33, 300)
    in_features = rng.choice((256, 512, 1024)) if linear else 0
    rows = (16384 if dtype == "fp32" else 131072) if linear else ELEMS[dtype] // cols
    three_d = rng.random() < 0.25
    if three_d:
        batch = rng.choice((8, 16, 32))
        gpu_rows, small_rows = (batch, rows // batch), (2, rng.randint(2, 5))
    else:
        gpu_rows, small_rows = (rows,), (rng.randint(3, 12) if not linear else 4,)
    return Chain(tuple(ops), dtype, Shapes(cols, gpu_rows, small_rows, small_cols, in_features))
