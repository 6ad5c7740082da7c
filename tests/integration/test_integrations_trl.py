"""TRL: `LeapReward` inside a real `trl.GRPOTrainer` (2 steps, tiny random model, real sandbox) moves
the parameters; the group hook ranks with LEAP's tournament."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from sandbox_cases import kernels as K

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from trainer_tiny import write_tiny_checkpoint  # noqa: E402

from leap.algorithms.config import RewardConfig  # noqa: E402
from leap.integrations.core import KernelJudge, LeapGroupRewards  # noqa: E402
from leap.sandbox import Sandbox, SandboxConfig  # noqa: E402

trl = pytest.importorskip("trl")


@pytest.fixture(scope="module")
def judge():
    with Sandbox(SandboxConfig(workers=1, prewarm=1), device="cpu") as sb:
        yield KernelJudge(sb, device="cpu")


def test_reward_ranks_a_group_with_the_tournament(judge):
    from leap.integrations.trl import LeapReward

    ok, bad, none = f"```python\n{K.RELU}\n```", f"```python\n{K.RELU_MASK_OFF_BY_ONE}\n```", "no code here"
    reward = LeapReward(judge)
    r = reward(prompts=["p"] * 3, completions=[ok, bad, none], task=["relu_fp32"] * 3)
    assert [v.status for v in reward.last_verdicts] == ["ok", "incorrect", "format_error"]
    assert r == [1.0, 0.0, -1.0]  # ok beats incorrect beats format_error; zero-sum


def test_grpo_trainer_trains_with_leap_reward(judge, tmp_path):
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from leap.integrations.trl import LeapReward

    path = write_tiny_checkpoint(tmp_path / "tiny")
    model = AutoModelForCausalLM.from_pretrained(path)
    tok = AutoTokenizer.from_pretrained(path)
    ds = Dataset.from_list([{"prompt": "write relu", "task": "relu_fp32"}] * 4)
    # random weights write no code: every verdict is format_error, so the length tie-break (characters)
    # is what separates the group — still LEAP's tournament, with token_unsolved switched on
    reward = LeapReward(judge, LeapGroupRewards(reward=RewardConfig(token_unsolved=True, token_margin=0.0)),
                        length="chars")
    args = GRPOConfig(output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=4,
                      num_generations=4, max_completion_length=12, learning_rate=1e-2, logging_steps=1,
                      use_cpu=True, report_to=[], save_strategy="no", bf16=False, beta=0.0)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=args, train_dataset=ds, processing_class=tok)
    trainer.train()
    assert any("rewards/leap_reward/mean" in h or "reward" in h for h in trainer.state.log_history)
    assert all(v.status == "format_error" for v in reward.last_verdicts)
    moved = [n for n, p in trainer.model.named_parameters() if not torch.equal(p.detach().cpu(), before[n])]
    assert moved, "no parameter changed"


def test_group_hook_and_dcp_see_the_whole_group(judge):
    from leap.integrations.core import trajectory

    ok, bad = f"```python\n{K.RELU}\n```", f"```python\n{K.RELU_MASK_OFF_BY_ONE}\n```"
    answers = [ok, bad, bad, bad]
    vs = judge.judge_many(["relu_fp32"] * 4, answers)
    trajs = [trajectory("relu_fp32", k, [a], [v]) for k, (a, v) in enumerate(zip(answers, vs, strict=True))]
    hook = LeapGroupRewards()
    rewards = [r for r, _ in hook.compute_group_rewards(trajs)]
    assert rewards[0] == 1.0 and sum(rewards) == pytest.approx(0.0)
    assert hook.expand(trajs)  # 3 of 4 failed: middling difficulty, DCP expands it
    assert not hook.expand(trajs[1:])  # all failed: pruned


def test_verl_contract(judge):
    """Mirrors verl's interface (verl is not installed here): compute_score(data_source, solution_str,
    ground_truth, extra_info) and an async BaseInteraction-shaped class."""
    import asyncio

    from leap.integrations import verl

    verl._JUDGE = judge
    ok, bad = f"```python\n{K.RELU}\n```", f"```python\n{K.RELU_MASK_OFF_BY_ONE}\n```"
    s = verl.compute_score("leap", ok, "relu_fp32", {})
    assert s["status"] == "ok" and s["score"] > 0 and s["correct"] == 1.0
    assert verl.compute_score("leap", bad, "relu_fp32")["score"] == 0.0

    async def episode():
        it = verl.LeapInteraction({"name": "leap", "max_turns": 3})
        iid = await it.start_interaction(ground_truth="relu_fp32")
        done, fb, score, extra = await it.generate_response(iid, [{"role": "assistant", "content": bad}])
        assert not done and score == 0.0 and fb.startswith("status: incorrect") and extra["status"] == "incorrect"
        done, fb, score, _ = await it.generate_response(iid, [{"role": "assistant", "content": ok}])
        assert done and score > 0 and await it.calculate_score(iid) == score
        await it.finalize_interaction(iid)

    asyncio.run(episode())
