"""Quick GPU smoke of the sandbox: one verdict per line, flushed at once, each case bounded in time.

Run on a GPU machine: `timeout 300 python3 scripts/gpu_smoke.py [CASE ...]`."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration"))
from sandbox_cases import kernels as K  # noqa: E402

from leap.sandbox import Sandbox, SandboxConfig  # noqa: E402
from leap.tasks.suite import get_builtin  # noqa: E402

CASES = [("RELU", "triton"), ("NVRTC_RELU", "cuda_nvrtc"), ("RELU_MASK_OFF_BY_ONE", "auto"),
         ("NVRTC_ILLEGAL_ADDRESS", "auto"), ("RELU", "triton"), ("INLINE_RELU", "cuda_inline")]


def main(names: list[str]) -> None:
    cases = [c for c in CASES if not names or c[0] in names]
    task = get_builtin("relu_fp32")
    t0 = time.time()
    with Sandbox(SandboxConfig(workers=2, run_timeout_s=90), device="cuda") as box:
        print(f"sandbox up in {time.time() - t0:.1f}s", flush=True)
        for name, backend in cases:
            t = time.time()
            v = box.verify(task, getattr(K, name), backend=backend)
            print(f"{name:24s} {backend:12s} -> {v.status:14s} {time.time() - t:6.1f}s "
                  f"speedup={v.speedup_eager} compile={v.speedup_compile} rt={v.runtime_us} ref={v.ref_runtime_us}",
                  flush=True)
            print(f"   stages={v.stage_seconds}\n   feedback={v.feedback[:400]!r}\n   detail={v.detail[:1200]!r}",
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
