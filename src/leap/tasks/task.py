"""The `Task` record and loaders for KernelBench-format task files.

A task file is Python source with ``class Model(nn.Module)``, ``get_inputs()`` and
``get_init_inputs()``; it may add ``get_small_inputs()`` (CPU-sized shapes) and module-level
metadata constants, read statically (the file is never executed to load it):

``LEAP_LEVEL`` (int), ``LEAP_TAGS`` (list[str]), ``LEAP_SPLIT`` ("train"|"eval"),
``LEAP_RTOL`` / ``LEAP_ATOL`` (float), ``LEAP_ALLOWED_OPS`` (list of torch op names the candidate's
forward may call, e.g. ``["matmul", "conv2d"]``), ``LEAP_INPUT_DOMAINS`` (dict: input index ->
"any" | "positive" | "unit" | [lo, hi]), ``LEAP_DTYPE`` ("fp32"|"bf16"|"fp16") and
``LEAP_DIFFICULTY`` ("easy"|"medium"|"hard", set by the generator), ``LEAP_RANDOM_FORWARD`` (bool: the
forward draws random numbers on purpose, e.g. dropout; validation notes it instead of warning).
"""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

Domain = Literal["any", "positive", "unit"] | tuple[float, float]
REQUIRED = ("Model", "get_inputs", "get_init_inputs")
_KB_NAME = re.compile(r"^(\d+)_(.+)\.py$")
_LEVEL_DIR = re.compile(r"^level_?(\d+)$", re.IGNORECASE)
HUB_LEVEL = 4  # KernelBench level 4: whole Hugging Face models built from hub configs
HUB_CALLS = ("from_pretrained", "from_config")


class TaskError(ValueError):
    """A task file that cannot be used; the message is one line naming the file and the problem."""


class Task(BaseModel):
    """One kernel-writing problem: a PyTorch reference and its metadata."""

    name: str
    source: str
    level: int = 1
    dtype: Literal["fp32", "bf16", "fp16", "int"] = "fp32"
    tags: list[str] = Field(default_factory=list)
    split: Literal["train", "eval"] | None = None
    rtol: float | None = None
    atol: float | None = None
    allowed_ops: list[str] = Field(default_factory=list)
    input_domains: dict[int, Domain] = Field(default_factory=dict)
    difficulty: Literal["easy", "medium", "hard"] | None = None
    has_small_inputs: bool = False
    random_forward: bool = False
    leap_metadata: bool = False  # declares LEAP_* constants (LEAP's own tasks; foreign files have none)
    origin: str = ""
    # why LEAP cannot run this task (KernelBench level 4's hub models); only loaders asked to keep such
    # tasks (``keep_unavailable``: listing and validation) return one, every other loader refuses the file
    unavailable: str | None = None

    @property
    def source_hash(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()[:16]


def _literal(node: ast.AST, path: str, field: str) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError as exc:
        raise TaskError(f"{path}: {field} must be a literal value ({exc})") from None


def parse_task(source: str, name: str, origin: str = "", level: int | None = None,
               keep_unavailable: bool = False) -> Task:
    """Build a `Task` from source text, checking the KernelBench contract statically. A task LEAP cannot
    run (a hub model) raises `TaskError`, or with ``keep_unavailable`` comes back with ``unavailable`` set."""
    where = origin or name
    try:
        tree = ast.parse(source, filename=where)
    except SyntaxError as exc:
        raise TaskError(f"{where}: not valid Python (line {exc.lineno}: {exc.msg})") from None
    defined: set[str] = set()
    meta: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef):
            defined.add(node.name)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id.startswith("LEAP_"):
                meta[target.id] = _literal(node.value, where, target.id)
    hub = _hub_call(tree)
    unavailable = None
    if hub:
        unavailable = (f"{where}: builds a Hugging Face model from the hub ({hub}; KernelBench level 4), which "
                       "LEAP does not run: it needs network access or a local hub cache, and real weights")
        if not keep_unavailable:
            raise TaskError(unavailable)
    missing = [n for n in REQUIRED if n not in defined]
    if missing:
        raise TaskError(f"{where}: missing {', '.join(missing)} (a KernelBench task defines "
                        "class Model, get_inputs() and get_init_inputs())")
    fields: dict[str, Any] = {
        "name": name, "source": source, "origin": origin,
        "has_small_inputs": "get_small_inputs" in defined, "leap_metadata": bool(meta), "unavailable": unavailable,
    }
    keys = {"LEAP_LEVEL": "level", "LEAP_TAGS": "tags", "LEAP_SPLIT": "split", "LEAP_RTOL": "rtol",
            "LEAP_ATOL": "atol", "LEAP_ALLOWED_OPS": "allowed_ops", "LEAP_DTYPE": "dtype",
            "LEAP_INPUT_DOMAINS": "input_domains", "LEAP_DIFFICULTY": "difficulty",
            "LEAP_RANDOM_FORWARD": "random_forward"}
    unknown = sorted(set(meta) - set(keys))
    if unknown:
        raise TaskError(f"{where}: unknown metadata {unknown[0]} (expected one of {sorted(keys)})")
    fields.update({keys[k]: v for k, v in meta.items()})
    if level is not None and "LEAP_LEVEL" not in meta:
        fields["level"] = level
    try:
        return Task(**fields)
    except ValueError as exc:  # pydantic.ValidationError is a ValueError
        err = exc.errors()[0] if hasattr(exc, "errors") else {"loc": ("?",), "msg": str(exc)}
        loc = ".".join(str(p) for p in err["loc"])
        raise TaskError(f"{where}: field {loc}: {err['msg']}") from None


def _hub_call(tree: ast.AST) -> str | None:
    """The first ``X.from_pretrained`` / ``X.from_config`` call of a task source that imports transformers
    (level 4's hub models)."""
    imports = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imports |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    if "transformers" not in imports:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in HUB_CALLS:
            owner = node.func.value.id if isinstance(node.func.value, ast.Name) else "..."
            return f"{owner}.{node.func.attr}"
    return None


def folder_level(path: str | Path) -> int | None:
    """The level a folder's name gives (``level1``, ``level_2``), else None."""
    m = _LEVEL_DIR.match(Path(path).name)
    return int(m.group(1)) if m else None


def load_task_file(path: str | Path, level: int | None = None, keep_unavailable: bool = False) -> Task:
    """Load one task file; the task is named after the file's stem."""
    p = Path(path)
    try:
        source = p.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskError(f"{p}: cannot read task file ({exc.__class__.__name__}: {exc})") from None
    return parse_task(source, name=p.stem, origin=str(p), level=level, keep_unavailable=keep_unavailable)


def load_task_dir(path: str | Path, level: int | None = None, keep_unavailable: bool = False) -> list[Task]:
    """Load every ``*.py`` task in a directory (sorted; files starting with ``_`` are skipped). A folder
    named ``levelN`` gives its tasks level N unless ``level`` says otherwise; a level-4 folder (hub
    models) is refused in one line, unless ``keep_unavailable`` (listing, validation): then its tasks come
    back at level 4, each with the reason it cannot run in ``unavailable``."""
    p = Path(path)
    if not p.is_dir():
        raise TaskError(f"{p}: not a directory of task files")
    level = level if level is not None else folder_level(p)
    if level == HUB_LEVEL and not keep_unavailable:
        raise TaskError(f"{p}: KernelBench level 4 builds Hugging Face models from hub configs "
                        "(from_pretrained), which LEAP does not run; use levels 1-3")
    files = sorted(f for f in p.glob("*.py") if not f.name.startswith("_"))
    return [load_task_file(f, level=level, keep_unavailable=keep_unavailable)
            for f in sorted(files, key=_kernelbench_order)]


def _kernelbench_order(f: Path) -> tuple[int, str]:
    m = _KB_NAME.match(f.name)
    return (int(m.group(1)), f.name) if m else (10**9, f.name)


def load_kernelbench(root: str | Path, levels: tuple[int, ...] = (1, 2, 3)) -> list[Task]:
    """Load a KernelBench checkout (``root/KernelBench/level{N}/N_name.py`` or ``root/level{N}/``).

    Task names are ``kb_l{level}_{N}_{name}``, so they never collide with built-in tasks.
    """
    base = Path(root)
    if (base / "KernelBench").is_dir():
        base = base / "KernelBench"
    tasks: list[Task] = []
    for level in levels:
        folder = base / f"level{level}"
        if not folder.is_dir():
            continue
        for task in load_task_dir(folder, level=level):
            task.name = f"kb_l{level}_{task.name}"
            tasks.append(task)
    if not tasks:
        raise TaskError(f"{root}: no KernelBench tasks found (expected level1/, level2/, level3/ folders)")
    return tasks
