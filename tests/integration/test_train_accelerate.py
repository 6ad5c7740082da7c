"""`accelerate launch --multi_gpu --num_processes 2 ... leap train device=cpu`: two CPU ranks (gloo) train
2 steps with the real sandbox, stay in sync (identical weights after each step) and log metrics gathered
from both ranks. (accelerate's ``--cpu`` flag starts a single process unless MPI is set up, so the
torchrun launcher is used with the trainer's ``device: cpu``.)"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from leap.trainer.logging import read_metrics

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("accelerate") is None, reason="accelerate CLI not installed")
def test_two_cpu_ranks_stay_in_sync(tmp_path):
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "TRITON_INTERPRET": "1", "OMP_NUM_THREADS": "1"}
    cmd = ["accelerate", "launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1", "--mixed_precision", "no",
           "--dynamo_backend", "no", "-m", "leap.cli.main", "train", "--config", str(ROOT / "configs/leap_tiny_cpu.yaml"),
           "steps=2", "rollout.tasks_per_step=1", "rollout.max_turns=1", "rollout.sampling.max_new_tokens=24",
           f"logging.dir={tmp_path}/log", "logging.progress=false", f"checkpoint.dir={tmp_path}/ck",
           "checkpoint.every=0"]
    r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    rows = read_metrics(next((tmp_path / "log").rglob("metrics.jsonl")))
    assert [row["step"] for row in rows] == [1, 2]
    for row in rows:
        assert row.get("dist/world_size") == 2, row
        assert row["step/groups"] == 2  # one group per rank, summed
        assert row["dist/param_checksum_spread"] == 0.0
    trained = torch.load(tmp_path / "ck" / "step-2" / "trainable.pt", map_location="cpu")
    assert trained and all(torch.isfinite(t).all() for t in trained.values())
    saved = sorted((tmp_path / "runs" / "leap_tiny_cpu" / "policy").glob("*.safetensors"))  # rank 0 only
    assert saved and all(torch.isfinite(t).all() for t in load_file(saved[-1]).values())
