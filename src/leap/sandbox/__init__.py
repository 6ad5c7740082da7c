"""The kernel-verification sandbox: ``from leap.sandbox import Sandbox, SandboxConfig, verify, verify_many``
(and `RemoteSandbox`, the same API over a ``leap sandbox serve`` service).

Names are resolved lazily so light users (e.g. the `Verdict` record, the candidate child) do not import
the whole execution stack.
"""

from __future__ import annotations

__all__ = ["RemoteSandbox", "Sandbox", "SandboxConfig", "Verdict", "verify", "verify_many"]


def __getattr__(name: str):
    if name in ("Sandbox", "verify", "verify_many"):
        from leap.sandbox import api

        return getattr(api, name)
    if name == "RemoteSandbox":
        from leap.sandbox.remote import RemoteSandbox

        return RemoteSandbox
    if name == "SandboxConfig":
        from leap.sandbox.config import SandboxConfig

        return SandboxConfig
    if name == "Verdict":
        from leap.sandbox.judge.verdict import Verdict

        return Verdict
    raise AttributeError(f"module 'leap.sandbox' has no attribute {name!r}")
