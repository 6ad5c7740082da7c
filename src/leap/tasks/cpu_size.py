"""CPU-sized inputs for a task that has no ``get_small_inputs()`` (any KernelBench problem, unedited).

The rule (docs/TASKS.md, "CPU sizes"):

1. Size knobs are the integer literals the task's shapes come from: module-level constants
   (``batch_size = 4096``, ``N = 2048 * 2``, ``a, b = 64, 128``, ``input_shape = (32768,)``; an
   arithmetic expression of literals counts as one knob) and integer literals written inside ``get_inputs`` /
   ``get_init_inputs``. Only knobs of at least `MIN_KNOB` are scaled (batch sizes, named so, from 2), so
   kernel sizes, strides, paddings, reduction dims, head counts and the like stay as written.
2. Sizes are measured without allocating anything: the source is executed in a fresh module under a
   torch function mode that sends every tensor factory (and ``.to``/``.cuda``/``.cpu``) to the ``meta``
   device; the measure is the elements of the inputs, the model's parameters and buffers and (when the
   forward runs on ``meta``) its outputs, plus the forward's FLOPs. ``Tensor.item()`` on ``meta`` gives 0
   (hyper-parameters such as drop-path rates drawn from ``linspace``); the real CPU run of rule 4 checks
   the result.
3. While the measure is above `ELEMENT_TARGET` elements or `FLOP_TARGET` FLOPs, every knob is halved
   together (keeps relations such as ``2 * width == out_channels``); once such a joint step fails, the
   largest knob alone is halved (per floor), and every knob that divides it in the original file (equal values included) shrinks with it
   to keep dividing it (``embed_dim % num_heads``, broadcasting of equal sizes), first down to `FLOORS[0]`, then
   `FLOORS[1]`. A step that does not cut by a tenth what is over its target (`_progress`; weights count
   only for single-knob steps), or after which the forward fails on ``meta``, is undone and that knob frozen.
4. The result is the task source with the new literal values spliced in (nothing else changes; derived
   constants such as ``dim2 = dim * 2`` follow). Its reference is then run for real on the CPU; if it
   fails there, steps are undone one at a time (shrinking less) until it runs. Too large for a CPU check
   at all: inputs + outputs over 4,000,000 elements or weights over `WEIGHT_LIMIT`.

`cpu_sizing` never allocates the full-size inputs. Results are cached per task source.
"""

from __future__ import annotations

import ast
import math
import types
from dataclasses import dataclass, field
from functools import lru_cache

import torch
from torch.overrides import TorchFunctionMode

from leap.tasks.module import tensors_in

ELEMENT_TARGET = 1 << 18  # inputs + parameters + outputs, in elements
WEIGHT_LIMIT = 1 << 28    # parameters + buffers a derived size may keep (1 GiB of fp32; VGG19 has 144M)
FLOP_TARGET = 1 << 28
MIN_KNOB = 16
FLOORS = (16, 4)
MAX_STEPS = 200
_SIZE_FUNCS = ("get_inputs", "get_init_inputs")


@dataclass(frozen=True)
class Knob:
    """One integer literal of the source: where it sits (byte offsets) and its value."""

    label: str
    value: int
    start: int
    end: int


@dataclass
class CpuSizing:
    """The outcome: ``source`` to run on the CPU (the task's own when nothing changed), the knob changes
    (label -> (old, new)), the measure at that size, and ``error`` when no CPU size could be found."""

    source: str
    changes: dict[str, tuple[int, int]] = field(default_factory=dict)
    elements: int | None = None
    flops: int | None = None
    error: str | None = None

    @property
    def note(self) -> str:
        if not self.changes:
            return ""
        parts = ", ".join(f"{k} {a}->{b}" for k, a, b in ((k, *v) for k, v in self.changes.items()))
        return f"CPU check on derived sizes ({parts})"


def _offsets(source: str) -> list[int]:
    starts, pos = [0], 0
    for line in source.encode().splitlines(keepends=True):
        pos += len(line)
        starts.append(pos)
    return starts


_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
        ast.FloorDiv: lambda a, b: a // b if b else None, ast.Pow: lambda a, b: a ** b if 0 <= b <= 64 else None,
        ast.LShift: lambda a, b: a << b if 0 <= b <= 64 else None}


def _int_const(node: ast.AST) -> int | None:
    """The value of an integer literal or of arithmetic on integer literals (``8192 * 2``), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        a, b = _int_const(node.left), _int_const(node.right)
        return _OPS[type(node.op)](a, b) if a is not None and b is not None else None
    return None


def find_knobs(source: str) -> list[Knob]:
    """The size knobs of ``source`` (rule 1), in source order."""
    tree = ast.parse(source)
    lines = _offsets(source)
    knobs: list[Knob] = []

    def add(label: str, node: ast.AST) -> None:
        v = _int_const(node)
        if v is not None and (v >= MIN_KNOB or (v >= 2 and "batch" in label.lower())):
            knobs.append(Knob(label, v, lines[node.lineno - 1] + node.col_offset,
                              lines[node.end_lineno - 1] + node.end_col_offset))

    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) > 1 and all(isinstance(t, ast.Name) for t in targets):  # height = width = 128
                add("=".join(t.id for t in targets), node.value)
                continue
            for t in targets:
                if isinstance(t, ast.Name) and isinstance(node.value, ast.Tuple | ast.List):
                    for i, v in enumerate(node.value.elts):  # input_shape = (32768,)
                        add(f"{t.id}[{i}]", v)
                elif isinstance(t, ast.Name):
                    add(t.id, node.value)
                elif isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                        and len(t.elts) == len(node.value.elts):
                    for n, v in zip(t.elts, node.value.elts, strict=True):
                        if isinstance(n, ast.Name):
                            add(n.id, v)
        elif isinstance(node, ast.FunctionDef) and node.name in _SIZE_FUNCS:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Constant):
                    add(f"{node.name}:{sub.lineno}:{sub.col_offset}", sub)
    return knobs


def splice(source: str, knobs: list[Knob], values: dict[str, int]) -> str:
    """``source`` with each knob's literal replaced by ``values[label]`` (knobs not in it are kept)."""
    data = source.encode()
    for k in sorted(knobs, key=lambda k: k.start, reverse=True):
        if k.label in values and values[k.label] != k.value:
            data = data[:k.start] + str(values[k.label]).encode() + data[k.end:]
    return data.decode()


class _OnMeta(TorchFunctionMode):
    """Every tensor factory allocates on ``meta``; device moves are no-ops (shapes only, no memory)."""

    def __init__(self):
        super().__init__()
        from torch.utils._device import _device_constructors

        self.factories = _device_constructors()

    def __torch_function__(self, func, types_, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in self.factories:
            kwargs["device"] = "meta"
            kwargs.pop("pin_memory", None)
        elif func in (torch.Tensor.cuda, torch.Tensor.cpu):
            return args[0]
        elif func is torch.Tensor.item and args[0].is_meta:  # a value for sizing only (e.g. drop-path rates)
            return False if args[0].dtype is torch.bool else 0 if not args[0].is_floating_point() else 0.0
        elif func is torch.Tensor.to:
            rest = [a.dtype if isinstance(a, torch.Tensor) else a for a in args[1:]
                    if not isinstance(a, str | torch.device | int) or isinstance(a, bool)]
            kwargs.pop("device", None)
            return func(args[0], *rest, **kwargs) if rest or kwargs else args[0]
        return func(*args, **kwargs)


@dataclass
class Measure:
    elements: int
    flops: int | None  # None: the forward has no meta kernel (then outputs are not counted)
    forward_ok: bool
    weights: int = 0   # of `elements`: the model's parameters and buffers

    @property
    def activations(self) -> int:
        """Inputs, init tensors and outputs: what the CPU check moves and computes on every trial."""
        return self.elements - self.weights


def measure(source: str) -> Measure:
    """Sizes of ``source``'s inputs, weights and outputs, on ``meta`` (raises if its inputs or model
    cannot be built there)."""
    from torch.utils.flop_counter import FlopCounterMode

    mod = types.ModuleType("leap_cpu_size")
    with _OnMeta():
        exec(compile(source, "<task>", "exec"), mod.__dict__)  # noqa: S102 - trusted task source
        init = list(mod.get_init_inputs())
        inputs = list(mod.get_inputs())
        model = mod.Model(*init)
        w = sum(p.numel() for p in model.parameters()) + sum(b.numel() for b in model.buffers())
        n = w + sum(t.numel() for t in tensors_in(inputs) + tensors_in(init))
        try:
            counter = FlopCounterMode(display=False)
            with torch.no_grad(), counter:
                out = model(*inputs)
            return Measure(n + sum(t.numel() for t in tensors_in(out)), int(counter.get_total_flops()), True, w)
        except Exception:  # noqa: BLE001 - no meta kernel for some op (or the size is invalid)
            return Measure(n, None, False, w)


def _within(m: Measure, hard_limit: int) -> bool:
    """Small enough to run on the CPU at all: inputs and outputs under ``hard_limit``, weights under
    `WEIGHT_LIMIT` (a whole network's layers are literals in its class, which no size knob reaches)."""
    return m.activations <= hard_limit and m.weights <= WEIGHT_LIMIT


def _fits(m: Measure) -> bool:
    return m.elements <= ELEMENT_TARGET and (m.flops is None or m.flops <= FLOP_TARGET)


def _progress(m: Measure, current: Measure, joint: bool) -> bool:
    """A step helps when it cuts by at least a tenth what is still over its target: inputs and outputs,
    FLOPs, or (one knob at a time, so the image is not halved along with the class count) the weights. A
    network's layer widths are rarely size knobs: halving its image or class count trims its weights by a
    few percent, and chasing them would shrink a ResNet's 224 x 224 input to 7 x 7; likewise a step that
    only trims a small output is no help when the input cannot shrink."""
    def cut(new: int | None, old: int | None, target: int) -> bool:
        return (old or 0) > target and (new or 0) <= 0.9 * (old or 0)

    return (cut(m.activations, current.activations, ELEMENT_TARGET) or cut(m.flops, current.flops, FLOP_TARGET)
            or (not joint and cut(m.weights, current.weights, ELEMENT_TARGET)))


def _divisibility(knobs: list[Knob]) -> list[tuple[str, str]]:
    """(a, b) pairs where knob a's value divides knob b's in the original file (equal values both ways)."""
    return [(a.label, b.label) for a in knobs for b in knobs
            if a.label != b.label and a.value <= b.value and b.value % a.value == 0]


def _step(labels: list[str], values: dict[str, int], pairs: list[tuple[str, str]], floor: int
          ) -> dict[str, int] | None:
    """Knob values after halving ``labels``; a knob that must divide a shrunk one shrinks with it (to their
    gcd), so ``embed_dim % num_heads`` or ``x * y`` broadcasting of equal sizes keep holding. None when a
    knob would go below ``floor``."""
    new = dict(values)
    for label in labels:
        new[label] = values[label] // 2
    for _ in range(4 * len(values) + 4):
        bad = next(((a, b) for a, b in pairs if new[b] % new[a]), None)
        if bad is None:
            break
        a, b = bad
        new[a] = math.gcd(new[a], new[b])
    else:
        return None
    if any(new[k] < min(floor, values[k]) for k in new if new[k] != values[k]):
        return None
    return new


def _try(source: str, knobs: list[Knob], trial: dict[str, int] | None, current: Measure, base: Measure,
         joint: bool) -> tuple[dict[str, int], Measure] | None:
    """(values, measure) of a step when it is valid and shrinks the measure, else None."""
    if trial is None:
        return None
    try:
        m = measure(splice(source, knobs, trial))
    except Exception:  # noqa: BLE001 - this size breaks the inputs or the model
        return None
    if not _progress(m, current, joint) or (base.forward_ok and not m.forward_ok):
        return None
    return trial, m


def _shrink(source: str, knobs: list[Knob], base: Measure) -> tuple[list[dict[str, int]], Measure]:
    """Rule 3: the history of knob settings (first = original) and the measure of the last one."""
    values = {k.label: k.value for k in knobs}
    pairs = _divisibility(knobs)
    history = [dict(values)]
    current = base
    for floor in FLOORS:
        frozen: set[str] = set()
        joint = True
        for _ in range(MAX_STEPS):
            if _fits(current):
                return history, current
            live = [k for k in values if k not in frozen and values[k] > floor]
            if not live:
                break
            label = max(live, key=lambda k: values[k])
            every = [k for k in values if values[k] > floor]
            for labels in ([every] if joint else []) + [[label]]:
                got = _try(source, knobs, _step(labels, values, pairs, floor), current, base, labels is every)
                if got is not None:
                    values, current = got
                    history.append(dict(values))
                    break
                joint = False  # a joint step failed once: single steps from here on
            else:
                frozen.add(label)
    return history, current


def _runs_on_cpu(source: str) -> str | None:
    """None if the reference builds and runs a forward on the CPU at this size, else why not."""
    mod = types.ModuleType("leap_cpu_size_check")
    try:
        exec(compile(source, "<task>", "exec"), mod.__dict__)  # noqa: S102 - trusted task source
        model = mod.Model(*mod.get_init_inputs())
        with torch.no_grad():
            model(*mod.get_inputs())
    except Exception as exc:  # noqa: BLE001 - reported
        return f"{type(exc).__name__}: {str(exc)[:160]}"
    return None


@lru_cache(maxsize=512)
def cpu_sizing(source: str, hard_limit: int = 4_000_000) -> CpuSizing:
    """CPU-sized version of a task ``source`` without ``get_small_inputs()`` (see the module docstring)."""
    try:
        base = measure(source)
    except Exception as exc:  # noqa: BLE001
        return CpuSizing(source, error=f"cannot size get_inputs() without running it at full size (it fails on "
                                       f"the meta device: {type(exc).__name__}: {str(exc)[:120]}); add "
                                       "get_small_inputs()")
    if _fits(base):
        return CpuSizing(source, elements=base.elements, flops=base.flops)
    knobs = find_knobs(source)
    history, last = _shrink(source, knobs, base)
    if not _within(last, hard_limit):
        return CpuSizing(source, elements=base.elements, error=(
            f"get_inputs() is too large for a CPU check ({base.activations:,} elements of inputs and outputs, "
            f"{base.weights:,} of weights) and scaling its size constants only reaches {last.activations:,} and "
            f"{last.weights:,} (limits {hard_limit:,} and {WEIGHT_LIMIT:,}); add get_small_inputs()"))
    why = None
    for values in reversed(history):  # rule 4: back off until the reference runs on the CPU (the task's
        # own size last: a model no knob can shrink, e.g. a Swin whose image size is fixed by its windows)
        text = splice(source, knobs, values)
        try:
            m = measure(text)
        except Exception:  # noqa: BLE001
            continue
        if not _within(m, hard_limit):
            break
        why = _runs_on_cpu(text)
        if why is None:
            changes = {k.label: (k.value, values[k.label]) for k in knobs if values[k.label] != k.value}
            return CpuSizing(text, changes, m.elements, m.flops)
    return CpuSizing(source, elements=base.elements, error=(
        "get_inputs() is too large for a CPU check and no scaled size runs on the CPU"
        + (f" ({why})" if why else "") + "; add get_small_inputs()"))


def cpu_source(source: str, has_small_inputs: bool) -> str:
    """The source the CPU should run: the task's own when it has ``get_small_inputs`` or already fits, the
    derived one otherwise (the task's own when no size can be derived: the check then reports it)."""
    if has_small_inputs:
        return source
    return cpu_sizing(source).source


def cpu_task(task):
    """``task`` as the CPU should run it (a `leap.tasks.task.Task` copy with the derived source, or ``task``
    itself when it has ``get_small_inputs``, already fits, or no size can be derived)."""
    if task.has_small_inputs:
        return task
    sizing = cpu_sizing(task.source)
    if sizing.error or not sizing.changes:
        return task
    return task.model_copy(update={"source": sizing.source})
