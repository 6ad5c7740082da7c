"""The Ray executor on a local Ray cluster (CPU): same verdict statuses as the local pool, and a killed
actor's candidates are retried on another actor."""

from __future__ import annotations

import pytest
from sandbox_cases import kernels as K

from leap.sandbox import Sandbox, SandboxConfig
from leap.tasks.suite import get_builtin

ray = pytest.importorskip("ray")

CFG = SandboxConfig(workers=1, prewarm=1)


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _pairs():
    relu = get_builtin("relu_fp32")
    return [(relu, K.RELU), (relu, K.RELU_MASK_OFF_BY_ONE), (relu, K.RELU_SYNTAX_ERROR),
            (relu, K.RELU_PY_ERROR), (relu, K.RELU + "\n# 2\n"), (relu, K.RELU_BAD_TRITON)]


def test_ray_matches_local_pool_and_retries_a_killed_actor(cluster):
    from leap.integrations.ray_executor import RayExecutor

    pairs = _pairs()
    with Sandbox(CFG, device="cpu") as sb:
        local = {i: v.status for i, v in sb.verify_many(pairs)}
    assert local[0] == "ok" and local[1] == "incorrect"
    with RayExecutor(CFG, device="cpu", actors=2, cpus_per_actor=1, actor_concurrency=1) as ex:
        got = {}
        stream = ex.verify_many(pairs)
        i, v = next(stream)
        got[i] = v.status
        busy = [s for s, held in ex.in_flight.items() if held]
        assert busy, "both actors should hold work while candidates remain"
        ray.kill(ex.actors[busy[0]])  # mid-batch: this actor holds an unfinished candidate
        for i, v in stream:
            got[i] = v.status
        assert ex.retried >= 1
        assert got == local
        assert ex.verify(pairs[0][0], pairs[0][1]).status == "ok"  # the surviving actor still serves
