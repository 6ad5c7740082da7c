"""What the call and expression handlers (`static_dataflow_calls`, `static_dataflow_exprs`) see of the
data-path analysis: `leap.sandbox.gate.static_dataflow.DataPath` implements this interface, the handlers
depend on it alone (so neither imports the analysis that imports them)."""

from __future__ import annotations

import ast
from typing import Any, Protocol

from leap.sandbox.gate.static_index import ModuleIndex
from leap.sandbox.gate.static_kinds import Kind


class Analysis(Protocol):
    """The state and callbacks of one data-path analysis run."""

    ix: ModuleIndex
    cur_cls: str | None
    module_kinds: dict[str, Kind]
    funcs: dict[tuple[str | None, str], Any]  # (class or None, name) -> the function's record
    callables: dict[str, set[str]]             # lambda / nested def id -> kernels it launches
    sink: set[str]                             # where the launches seen now are recorded

    def _kind(self, e: ast.AST | None, env: dict[str, Kind], stmt: ast.AST | None) -> Kind: ...

    def self_kind(self, cls: str | None, attr: str) -> Kind: ...

    def store_self(self, cls: str | None, attr: str, k: Kind) -> None: ...

    def compute(self, node: ast.AST, name: str, what: str) -> None: ...

    def unknown(self, node: ast.AST, what: str) -> None: ...
