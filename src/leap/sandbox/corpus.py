"""The hack/fault/legit corpus: load cases, run them through the sandbox, score expected vs got.

A case is one candidate file under ``<corpus>/{hacks,faults,legit}/<name>.py`` whose module-level
constants (read statically, never executed) say what it is:

``TASK``    a task file next to the corpus (``<corpus>/tasks/<TASK>.py``) or a built-in task name;
``EXPECT``  the verdict status, or a tuple of acceptable statuses (e.g. ``("incorrect", "rejected")``);
``DEVICE``  ``"cpu"`` (runs in CI through the Triton interpreter or is decided by the static gate) or
            ``"cuda"`` (needs the GPU);
``BACKEND`` optional: the backend to verify with (default: detected);
``EXPECT_GPU`` optional: what a GPU run expects instead of ``EXPECT`` (a case decided differently by the
            CPU interpreter, e.g. ``needs_gpu`` there and ``ok`` on a GPU).

The first line of the module docstring describes the case.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from leap.tasks.task import Task, TaskError, load_task_file

KINDS = ("hacks", "faults", "legit")
DEFAULT_CORPUS = Path(__file__).resolve().parents[3] / "tests" / "corpus"


@dataclass(frozen=True)
class Case:
    name: str
    kind: str
    path: Path
    task: str
    expect: tuple[str, ...]
    device: str = "cpu"
    backend: str | None = None
    doc: str = ""
    expect_gpu: tuple[str, ...] | None = None

    def on(self, device: str) -> Case:
        """This case as a run on ``device`` judges it (``EXPECT_GPU`` on a GPU, when given)."""
        return replace(self, expect=self.expect_gpu) if device != "cpu" and self.expect_gpu else self

    @property
    def id(self) -> str:
        return f"{self.kind}/{self.name}"

    @property
    def source(self) -> str:
        return self.path.read_text()


@dataclass
class CaseResult:
    case: Case
    got: str
    seconds: float = 0.0
    feedback: str = ""
    detail: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.got in self.case.expect


_META = ("TASK", "EXPECT", "EXPECT_GPU", "DEVICE", "BACKEND")


def _head(text: str) -> str:
    """The docstring and the metadata lines of a case too deep for Python's parser (a case about exactly that)."""
    lines = text.splitlines()
    end = next((i for i, ln in enumerate(lines) if ln.startswith(("import ", "from "))), len(lines))
    return "\n".join([*lines[:end], *(ln for ln in lines[end:] if ln.startswith(tuple(f"{k} = " for k in _META)))])


def load_case(path: Path, kind: str) -> Case:
    text = path.read_text()
    try:
        tree = ast.parse(text, filename=str(path))
    except (RecursionError, MemoryError):
        tree = ast.parse(_head(text), filename=str(path))
    meta: dict = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in _META:
                meta[node.targets[0].id] = ast.literal_eval(node.value)
    missing = [k for k in ("TASK", "EXPECT") if k not in meta]
    if missing:
        raise TaskError(f"{path}: corpus case lacks {', '.join(missing)}")
    expect = meta["EXPECT"]
    expect = (expect,) if isinstance(expect, str) else tuple(expect)
    gpu = meta.get("EXPECT_GPU")
    doc = (ast.get_docstring(tree) or "").splitlines()
    return Case(path.stem, kind, path, meta["TASK"], expect, meta.get("DEVICE", "cpu"), meta.get("BACKEND"),
                doc[0] if doc else "", (gpu,) if isinstance(gpu, str) else tuple(gpu) if gpu else None)


def load_corpus(root: str | Path | None = None, kinds: Iterable[str] = KINDS) -> list[Case]:
    root = Path(root) if root else DEFAULT_CORPUS
    if not root.is_dir():
        raise TaskError(f"{root}: corpus directory not found")
    cases = []
    for kind in kinds:
        for f in sorted((root / kind).glob("*.py")):
            cases.append(load_case(f, kind))
    return cases


def case_task(case: Case, root: str | Path | None = None) -> Task:
    """The case's task: a file in ``<corpus>/tasks/`` or a built-in task."""
    root = Path(root) if root else case.path.parents[1]
    f = root / "tasks" / f"{case.task}.py"
    if f.is_file():
        return load_task_file(f)
    from leap.tasks.suite import get_builtin

    return get_builtin(case.task.removeprefix("builtin:"))


def gate_only(case: Case, root=None) -> CaseResult:
    """Decide a case with the static gate alone (no runtime): "rejected"/"format_error", or "passed_gate"."""
    from leap.sandbox.gate.static_gate import check_source

    t0 = time.monotonic()
    task = case_task(case, root)
    g = check_source(case.source, case.backend, allowed_ops=task.allowed_ops)
    got = g.status if not g.ok else "passed_gate"
    return CaseResult(case, got, time.monotonic() - t0, g.reason, g.detail)


def run_cases(cases: list[Case], device: str = "cpu", config=None, root=None,
              parallel: bool = False, sandbox=None) -> Iterator[CaseResult]:
    """Verify each case in one warm `Sandbox` (faults included: the pool must stay healthy).

    Sequential by default (in order); ``parallel`` pipelines them through ``verify_many`` (compiles
    overlap) and yields results as they complete. ``sandbox``: an open one to use (else one is opened)."""
    from contextlib import nullcontext

    from leap.sandbox import Sandbox

    with nullcontext(sandbox) if sandbox is not None else Sandbox(config, device=device) as sb:
        if parallel:  # one pipelined batch per backend a case names (most name none: detected)
            for backend in dict.fromkeys(c.backend for c in cases):
                group = [c for c in cases if c.backend == backend]
                pairs = [(case_task(c, root), c.source) for c in group]
                for i, v in sb.verify_many(pairs, backend=backend or "auto", device=device):
                    st = v.stage_seconds
                    busy = st.get("total", 0.0) - sum(x for k, x in st.items() if k.endswith("_wait"))
                    yield CaseResult(group[i].on(device), v.status, max(busy, 0.0), v.feedback, v.detail, {"stage_seconds": st})
            return
        for case in cases:
            t0 = time.monotonic()
            task = case_task(case, root)
            v = sb.verify(task, case.source, backend=case.backend or "auto", device=device)
            yield CaseResult(case.on(device), v.status, time.monotonic() - t0, v.feedback, v.detail,
                             {"stage_seconds": v.stage_seconds})


def runnable_on(case: Case, device: str) -> bool:
    """CPU runs take the cases marked cpu; a GPU run takes them all."""
    return device == "cuda" or case.device == "cpu"
