"""The demo's task family: elementwise op chains over one fp32 tensor.

Each task's ``forward`` applies a short chain of elementwise ops, one per line, and its Triton template
solution is a deterministic function of the chain (one ``tl`` line per op inside one fused kernel), so a
tiny policy can learn the mapping from a few hundred verified pairs, while longer chains stay hard.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

from leap.tasks.task import Task, parse_task

# op name -> (PyTorch line in Model.forward, Triton line inside the kernel)
_UNARY: dict[str, tuple[str, str]] = {
    "relu": ("x = torch.relu(x)", "x = tl.maximum(x, 0.0)"),
    "sigmoid": ("x = torch.sigmoid(x)", "x = tl.sigmoid(x)"),
    "abs": ("x = torch.abs(x)", "x = tl.abs(x)"),
    "neg": ("x = -x", "x = -x"),
    "square": ("x = x * x", "x = x * x"),
    "sin": ("x = torch.sin(x)", "x = tl.sin(x)"),
    "cos": ("x = torch.cos(x)", "x = tl.cos(x)"),
    "clamp": ("x = torch.clamp(x, -1.0, 1.0)", "x = tl.minimum(tl.maximum(x, -1.0), 1.0)"),
}
_CONSTS = ("0.5", "2.0", "3.0", "0.1", "1.5")
OPS: tuple[str, ...] = tuple(_UNARY) + tuple(f"mul{c}" for c in _CONSTS) + tuple(f"add{c}" for c in _CONSTS) \
    + tuple(f"sub{c}" for c in _CONSTS[:3])

Chain = tuple[str, ...]


def op_lines(op: str) -> tuple[str, str]:
    """(PyTorch line, Triton line) for one op."""
    if op.startswith("mul"):
        return f"x = x * {op[3:]}", f"x = x * {op[3:]}"
    if op.startswith("add"):
        return f"x = x + {op[3:]}", f"x = x + {op[3:]}"
    if op.startswith("sub"):
        return f"x = x - {op[3:]}", f"x = x - {op[3:]}"
    return _UNARY[op]


def sample_chain(rng: random.Random, min_len: int = 1, max_len: int = 4) -> Chain:
    """A random chain with no op repeated back to back."""
    n = rng.randint(min_len, max_len)
    chain: list[str] = []
    while len(chain) < n:
        op = rng.choice(OPS)
        if not chain or chain[-1] != op:
            chain.append(op)
    return tuple(chain)


def chain_name(chain: Sequence[str]) -> str:
    digest = hashlib.sha1("|".join(chain).encode()).hexdigest()[:8]
    return f"chain{len(chain)}_{digest}"


def task_source(chain: Sequence[str], split: str = "train") -> str:
    """KernelBench-format source of the task for ``chain`` (GPU shapes plus CPU-sized small inputs)."""
    body = "\n".join("        " + op_lines(op)[0] for op in chain)
    return f'''"""Elementwise chain: {' -> '.join(chain)}."""
import torch
import torch.nn as nn

LEAP_LEVEL = 2
LEAP_TAGS = ["elementwise", "chain", "demo"]
LEAP_SPLIT = "{split}"
LEAP_DTYPE = "fp32"

BATCH, DIM = 4096, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
{body}
        return x


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_small_inputs():
    return [torch.randn(8, 129)]


def get_init_inputs():
    return []
'''


def make_task(chain: Sequence[str], split: str = "train") -> Task:
    task = parse_task(task_source(chain, split), name=chain_name(chain), origin="demo")
    return task


def solution(chain: Sequence[str]) -> str:
    """The template Triton ``ModelNew`` for ``chain`` (loads, computes in fp32, stores)."""
    body = "\n".join("    " + op_lines(op)[1] for op in chain)
    return f'''import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fused_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
{body}
    tl.store(out_ptr + offs, x, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        grid = (triton.cdiv(n, 1024),)
        fused_kernel[grid](x, out, n, BLOCK=1024)
        return out
'''


def compact_spec(chain: Sequence[str]) -> str:
    """The part of the task a tiny policy needs: the forward's op lines."""
    return "\n".join(op_lines(op)[0] for op in chain)


def perturb(chain: Chain, rng: random.Random) -> Chain:
    """A plausible wrong chain (an op dropped, repeated or swapped), for repair examples."""
    chain = list(chain)
    kind = rng.choice(("drop", "repeat", "swap")) if len(chain) > 1 else rng.choice(("repeat", "swap"))
    i = rng.randrange(len(chain))
    if kind == "drop":
        del chain[i]
    elif kind == "repeat":
        chain.insert(i, chain[i])
    else:
        chain[i] = rng.choice([o for o in OPS if o != chain[i]])
    return tuple(chain)


def split_chains(seed: int, n_train: int, n_eval: int, max_len: int = 4) -> tuple[list[Chain], list[Chain]]:
    """Disjoint train and held-out chains (distinct op signatures), reproducible from ``seed``."""
    rng = random.Random(seed)
    seen: set[Chain] = set()
    held: list[Chain] = []
    # held-out first, weighted toward lengths 2..max_len (length-1 chains are all in training)
    while len(held) < n_eval:
        c = sample_chain(rng, 2, max_len)
        if c not in seen:
            seen.add(c)
            held.append(c)
    train: list[Chain] = [(op,) for op in OPS]
    seen.update(train)
    attempts = 0
    while len(train) < n_train and attempts < 100 * n_train:
        attempts += 1
        c = sample_chain(rng, 2, max_len)
        if c not in seen:
            seen.add(c)
            train.append(c)
    return train, held
