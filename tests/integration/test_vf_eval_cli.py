"""``vf-eval leap-vf`` end to end against `leap serve` on loopback (a tiny model built from a config): two
turns, the second user turn is the sandbox's feedback, the rubric's reward and metrics land in the trace.

Opt-in (``LEAP_VF_EVAL=1``): verifiers' chat harness installs ``uv`` and its own Python packages from PyPI
the first time it runs, which CI should not depend on. Ran on the CPU machine on 2026-12-02 (about 50 s
after the first, package-installing run).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from loopback import leap_server

pytestmark = pytest.mark.slow
if os.environ.get("LEAP_VF_EVAL") != "1":
    pytest.skip("set LEAP_VF_EVAL=1 (verifiers' harness installs uv and packages at run time)",
                allow_module_level=True)
pytest.importorskip("verifiers.v1")

SRC = str(Path(__file__).resolve().parents[2] / "src")


def test_vf_eval_runs_the_kernel_env_against_leap_serve(tmp_path):
    from leap.models.tiny import save_tiny

    model = save_tiny(tmp_path / "tiny", max_positions=8192)
    env = {**os.environ, "PYTHONPATH": SRC, "OPENAI_API_KEY": "x"}
    with leap_server(["serve", str(model), "--device", "cpu", "--name", "tiny", "--cache", "dynamic"],
                     tmp_path / "serve_stderr.log", env=env) as (base, _):
        out = subprocess.run(
            ["vf-eval", "leap-vf", "-m", "tiny", "--client.base-url", f"{base}/v1",
             "--client.api-key-var", "OPENAI_API_KEY", "-n", "1", "-r", "1", "--env.max-turns", "2",
             "--env.device", "cpu", "--env.taskset.task-filter", '["relu_fp32"]', "--sampling.max-tokens", "32"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    (traces,) = list(tmp_path.glob("outputs/*/traces.jsonl"))
    episode = json.loads(traces.read_text().splitlines()[0])
    trace = episode["traces"][0]
    assert "leap_score" in trace["rewards"] and trace["metrics"]["turns"] == 2.0
    assert len(trace["info"]["leap_statuses"]) == 2
    assert "checked by the sandbox:\\nstatus: " in json.dumps(trace["nodes"])
