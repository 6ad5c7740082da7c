"""Caches inside the candidate's view on the GPU: a cupy preloaded by the forkserver saves its kernels in
the candidate's fresh /tmp, and the cuda_inline build cache is reachable by the dropped uid even when the
configured cache dir sits under a home the uid cannot enter (root's 0700 /root). Run:
pytest -q -m gpu tests/gpu/test_sandbox_caches_gpu.py -s"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from sandbox_cases import kernels as K  # noqa: E402

from leap.sandbox import Sandbox, SandboxConfig  # noqa: E402
from leap.sandbox.pool.isolation import _readable_by  # noqa: E402
from leap.tasks.suite import get_builtin  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.fixture
def closed_home():
    """A cache dir under a 0700 parent, like ``~/.cache/leap`` of root."""
    parent = tempfile.mkdtemp(prefix="leap-closed-home-", dir=os.path.expanduser("~"))
    os.chmod(parent, 0o700)
    yield Path(parent) / ".cache" / "leap"
    import shutil

    shutil.rmtree(parent, ignore_errors=True)


def test_nvrtc_with_cupy_preloaded_saves_kernels_in_the_candidates_view():
    relu = get_builtin("relu_fp32")
    with Sandbox(SandboxConfig(workers=1, preload_extra=["cupy"]), device="cuda") as box:
        runs = [box.verify(relu, K.NVRTC_RELU) for _ in range(2)]
    assert [v.status for v in runs] == ["ok", "ok"], [(v.feedback, v.detail[:800]) for v in runs]
    assert all("cache_dirs" not in v.detail for v in runs)


def test_cuda_inline_builds_once_with_the_cache_under_a_closed_home(closed_home):
    relu = get_builtin("relu_fp32")
    cfg = SandboxConfig(workers=1, cache_dir=closed_home)
    with Sandbox(cfg, device="cuda") as box:
        cache = box._sched.ext_cache
        first = box.verify(relu, K.INLINE_RELU)
        again = box.verify(relu, K.INLINE_RELU)
    if os.geteuid() == 0 and cfg.drop_uid is not None:
        assert _readable_by(cache, cfg.drop_uid, cfg.drop_uid), cache  # moved where the uid reaches it
    assert first.status == again.status == "ok", (first.feedback, first.detail[:800], again.detail[:800])
    assert again.stage_seconds["compile"] < 30  # the second build found the first one's cache
