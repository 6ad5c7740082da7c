"""What the call, expression and launch handlers (`static_dataflow_calls`, `static_dataflow_lib`,
`static_launch`) see of the data-path analysis: `leap.sandbox.gate.static_dataflow.DataPath` implements
this interface, the handlers depend on it alone (so none imports the analysis that imports them)."""

from __future__ import annotations

import ast
from typing import Any, Protocol

from leap.sandbox.gate.static_index import ModuleIndex
from leap.sandbox.gate.static_kinds import Kind


class Analysis(Protocol):
    """The state and callbacks of one data-path analysis run."""

    ix: ModuleIndex
    plan: Any                                  # static_plan.Plan
    sigs: dict[str, Any]                       # kernel name -> static_jit.KernelSig
    cur_cls: str | None
    mode: str                                  # "path" | "import" | "init"
    funcs: dict[tuple[str | None, str], Any]   # (class or None, name) -> the function's record
    callables: dict[str, set[str]]             # lambda / nested def id -> kernels it launches
    callable_rets: dict[str, Kind]             # lambda / nested def id -> what it returns
    backend: str | None                        # the backend the task asks for (None: any)
    sink: set[str]                             # where the launches seen now are recorded
    seen: Any                                  # static_plan.Book: (function key, parameter) -> kind
    rets: Any                                  # function key -> return kind
    mutates: Any                               # (function key, parameter) -> kind stored into it
    kargs: Any                                 # (kernel, parameter) -> kind launched with
    module: Any                                # module-level name -> kind
    prune_fns: set[str]                        # module functions given to an autotuner as early_config_prune

    def _kind(self, e: ast.AST | None, env: dict[str, Kind], stmt: ast.AST | None) -> Kind: ...

    def self_kind(self, cls: str | None, attr: str) -> Kind: ...

    def store_self(self, cls: str | None, attr: str, k: Kind) -> None: ...

    def module_kind(self, name: str) -> Kind: ...

    def mutate(self, target: ast.expr, item: Kind, env: dict[str, Kind], at: ast.AST) -> None: ...

    def compute(self, node: ast.AST, name: str, what: str, deferred: bool = False) -> None: ...

    def unknown(self, node: ast.AST, what: str) -> None: ...

    def flag(self, node: ast.AST, msg: str, rule: str | None = None) -> None: ...
