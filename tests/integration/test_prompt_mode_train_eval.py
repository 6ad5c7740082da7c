"""`rollout.prompt: kernelbench` in a training config gives the policy the same turn-1 messages as
`leap eval --prompt kernelbench` on the same task and kernel backend (a KernelBench-shaped task and a
self-written KernelBench-style template checkout); an unusable checkout is one config error line."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

from leap.cli.main import app
from leap.rollout.policies.base import Generation
from leap.rollout.policies.hf import HFPolicy
from leap.sandbox.judge.verdict import Verdict
from leap.tasks.task import load_task_file
from leap.trainer.config import ConfigError, load_config
from leap.trainer.model import load_policy
from leap.trainer.rollouts import Rollouts

TASK = Path(__file__).resolve().parents[1] / "fixtures" / "kernelbench_like" / "level1" / "3_LeakyGate.py"
TOML = '''
[shared]
problem_statement = "STATEMENT {backend_display}"
instruction = "INSTRUCTION {backend_display}"
few_shot_example_arch = "ex.py"
[backends.triton]
backend_display = "TRITON KERNELS"
one_shot_new_arch = "ex_triton.py"
[backends.cuda]
backend_display = "CUDA KERNELS"
one_shot_new_arch = "ex_cuda.py"
[precision.fp32]
precision_display = "FP32"
[templates.common]
arch_block = "ARCH\\n{ref_arch_src}\\n"
example_intro_one_shot = "INTRO {backend_display}"
example_entry_template = "{example_label}\\nIN\\n{input_code}\\nOUT {backend_display}\\n{output_code}"
precision_note = "NOTE {precision_display}"
'''


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    from leap.models.tiny import save_tiny

    return save_tiny(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    root = tmp_path_factory.mktemp("kb_checkout")
    (root / "src/kernelbench/prompts").mkdir(parents=True)
    (root / "src/kernelbench/prompts/prompts.toml").write_text(TOML)
    (root / "ex.py").write_text("EXAMPLE_IN")
    (root / "ex_triton.py").write_text("EXAMPLE_OUT_TRITON")
    (root / "ex_cuda.py").write_text("EXAMPLE_OUT_CUDA")
    return root


@pytest.fixture
def recorded(monkeypatch):
    """Every prompt any HFPolicy is asked to complete (answers carry no code: nothing to verify)."""
    seen: list = []

    def generate(self, prompts, params):
        seen.extend(prompts)
        return [Generation(text="no code here", prompt_tokens=1, completion_tokens=1) for _ in prompts]

    monkeypatch.setattr(HFPolicy, "generate", generate)
    return seen


@pytest.mark.parametrize("kernel,display", [("triton", "TRITON KERNELS"), ("cuda_inline", "CUDA KERNELS")])
def test_train_config_prompt_equals_eval_prompt(tiny_dir, checkout, recorded, tmp_path, kernel, display):
    r = CliRunner().invoke(app, ["eval", "--model", str(tiny_dir), "--backend", "hf", "--tasks", str(TASK),
                                 "--samples", "1", "--turns", "1", "--max-new-tokens", "4", "--device", "cpu",
                                 "--kernel", kernel, "--prompt", "kernelbench", "--kernelbench-root", str(checkout),
                                 "--out", str(tmp_path / "eval")])
    assert r.exit_code == 0, r.output
    assert len(recorded) == 1
    eval_msgs = recorded.pop()

    cfg = load_config(None, [f"model.path={tiny_dir}", "device=cpu", "rollout.group_size=2", "rollout.max_turns=1",
                             "rollout.sampling.max_new_tokens=4", f"rollout.kernel_backend={kernel}",
                             "rollout.prompt=kernelbench", f"rollout.kernelbench_root={checkout}"])
    policy = load_policy(cfg.model, torch.device("cpu"))
    with Rollouts(policy, cfg, verifier=lambda pairs: [Verdict(status="incorrect") for _ in pairs]) as ro:
        ro.collect([load_task_file(TASK)])
    assert len(recorded) == 2 and recorded[0] == recorded[1]
    assert recorded[0] == eval_msgs
    text = eval_msgs[-1]["content"]
    assert [m["role"] for m in eval_msgs] == ["user"] and f"STATEMENT {display}" in text
    assert "class Model" in text and "ARCH" in text  # the task's own source inside the template


def test_train_config_leap_prompt_differs_and_bad_checkout_is_one_line(tiny_dir, tmp_path, recorded):
    base = [f"model.path={tiny_dir}", "device=cpu", "rollout.group_size=2", "rollout.max_turns=1",
            "rollout.sampling.max_new_tokens=4"]
    with pytest.raises(ConfigError, match="kernelbench_root.*prompts.toml") as err:
        load_config(None, [*base, "rollout.prompt=kernelbench", f"rollout.kernelbench_root={tmp_path}"])
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="rollout.prompt"):
        load_config(None, [*base, "rollout.prompt=kevin"])
    policy = load_policy(load_config(None, base).model, torch.device("cpu"))
    for mode in ("leap", "kernelbench"):
        cfg = load_config(None, [*base, f"rollout.prompt={mode}"])
        with Rollouts(policy, cfg, verifier=lambda pairs: [Verdict(status="incorrect") for _ in pairs]) as ro:
            ro.collect([load_task_file(TASK)])
    leap_msgs, kb_msgs = recorded[0], recorded[2]
    assert leap_msgs != kb_msgs and [m["role"] for m in kb_msgs] == ["user"]
