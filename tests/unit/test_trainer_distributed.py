"""Pure parts of the multi-process path: merging per-rank metrics and each rank's sandbox GPU."""

from __future__ import annotations

import torch

from leap.trainer.distributed import merge_metrics, rank_gpus


def test_merge_metrics_sums_counts_and_averages_the_rest():
    a = {"reward/mean": 0.5, "step/groups": 2, "dcp/evals_spent": 10, "note": "r0", "only_a": 1.0}
    b = {"reward/mean": -0.5, "step/groups": 3, "dcp/evals_spent": 6, "note": "r1"}
    m = merge_metrics([a, b])
    assert m["reward/mean"] == 0.0 and m["step/groups"] == 5 and m["dcp/evals_spent"] == 16
    assert m["note"] == "r0" and m["only_a"] == 1.0 and m["dist/world_size"] == 2


def test_rank_gpus(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "1")
    assert rank_gpus(None) is None and rank_gpus([3]) == [3]
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert rank_gpus([0, 1]) == [0, 1]  # configured wins
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 4)
    assert rank_gpus(None) == [1]  # the rank's own GPU, not all four
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert rank_gpus(None) is None


def test_sandbox_executor_key():
    import pytest

    from leap.trainer.config import ConfigError, load_config

    cfg = load_config(None, ["model.path=m", "sandbox.executor=ray", "sandbox.ray_actors=3"])
    assert cfg.sandbox.executor == "ray" and cfg.sandbox.ray_actors == 3
    assert "executor" not in cfg.sandbox.for_rollout(cfg.rollout).model_dump()
    with pytest.raises(ConfigError):
        load_config(None, ["model.path=m", "sandbox.executor=dask"])
