"""Compile a Triton candidate's kernels before its GPU work starts (runs inside the candidate's child).

A Triton kernel compiles on its first launch: seconds of CPU (ttir -> ptx -> cubin). If that happens
during the first trial, the child holds its GPU's shared lock the whole time, and every other candidate's
timing (which needs the GPU alone) waits for it. `compile_kernels` runs one forward in which every Triton
launch compiles but does not run (``warmup=True``; an autotuned kernel compiles each of its configs and
records no choice), so the trials that follow find their kernels compiled and hold the lock only for GPU
work. Errors are left to the real trial, which reports them as usual.
"""

from __future__ import annotations

try:  # bound when the forkserver imports the harness, before any candidate code
    from triton.runtime.autotuner import Autotuner as _Autotuner
    from triton.runtime.jit import JITFunction as _JITFunction

    _JIT_RUN = _JITFunction.run
except ImportError:  # pragma: no cover - no triton: nothing to compile ahead
    _JITFunction = _Autotuner = _JIT_RUN = None


def _compile_only(self, *args, grid, warmup, **kwargs):
    return _JIT_RUN(self, *args, grid=grid, warmup=True, **kwargs)


def _tune_compile_only(self, *args, **kwargs):
    """Compile every config an autotuned kernel would benchmark; choose none (its cache stays empty)."""
    try:
        self.nargs = dict(zip(self.arg_names, args, strict=False))
        configs = self.prune_configs(kwargs)
    except Exception:  # noqa: BLE001 - an older/newer autotuner: compile them all
        configs = list(self.configs)
    finally:
        self.nargs = None
    for config in configs:
        try:
            self.fn.run(*args, **{**kwargs, **config.all_kwargs()})
        except Exception:  # noqa: BLE001 - the real run reports it
            pass


def compile_kernels(model, inputs) -> bool:
    """One compile-only forward of ``model`` on ``inputs``; True when it returned without an error.
    The outputs are garbage (no kernel ran) and are dropped; the caller passes inputs it will not reuse."""
    if _JIT_RUN is None:
        return False
    import torch

    saved = (_JITFunction.run, _Autotuner.run)
    _JITFunction.run, _Autotuner.run = _compile_only, _tune_compile_only
    try:
        with torch.no_grad():
            model(*inputs)
        return True
    except Exception:  # noqa: BLE001 - the real trial reports it
        return False
    finally:
        _JITFunction.run, _Autotuner.run = saved
