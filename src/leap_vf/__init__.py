"""LEAP's kernel tasks as a verifiers environment package: ``vf-eval leap-vf`` (see docs/INTEGRATIONS.md).

verifiers resolves an environment id to a top-level package that exports its `Taskset` and `Env`
subclasses through ``__all__``; the code lives in `leap.integrations.verifiers_env`.
"""

from leap.integrations.verifiers_env import (
    KernelData,
    KernelEnv,
    KernelEnvConfig,
    KernelTask,
    KernelTaskset,
    KernelTasksetConfig,
    load_environment,
)

__all__ = ["KernelData", "KernelEnv", "KernelEnvConfig", "KernelTask", "KernelTaskset", "KernelTasksetConfig",
           "load_environment"]
