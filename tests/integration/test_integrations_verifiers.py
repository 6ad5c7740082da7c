"""verifiers (v1 API, installed for the tests): ``load_environment`` / ``vf.load_environment`` build LEAP's
kernel environment; its user turns, stop rule and rubric (scalar score and tournament) on real sandbox
verdicts. TRL's `KernelEnvironment` contract (what `GRPOTrainer(environment_factory=...)` probes and calls)
on the same verdicts."""

from __future__ import annotations

import inspect
import sys

import pytest
from sandbox_cases import kernels as K

from leap.integrations.core import KernelJudge
from leap.sandbox import Sandbox, SandboxConfig

OK, BAD = f"```python\n{K.RELU}\n```", f"```python\n{K.RELU_MASK_OFF_BY_ONE}\n```"
NONE = "I would write a kernel here."


@pytest.fixture(scope="module")
def judge():
    with Sandbox(SandboxConfig(workers=1, prewarm=1), device="cpu") as sb:
        yield KernelJudge(sb, device="cpu")


@pytest.fixture(scope="module")
def verdicts(judge):
    return dict(zip(("ok", "bad", "none"), judge.judge_many(["relu_fp32"] * 3, [OK, BAD, NONE]), strict=True))


def _vf():
    if sys.version_info < (3, 11):
        pytest.skip("verifiers needs Python >= 3.11")
    return pytest.importorskip("verifiers.v1")


def test_vf_load_environment_builds_the_kernel_env():
    vf = _vf()
    from leap.integrations.verifiers_env import KernelEnv, load_environment
    from leap.rollout.prompts import build_messages
    from leap.tasks.suite import get_builtin

    env = load_environment(task_filter=["relu_fp32", "add_fp32"], max_turns=2, reward="tournament", group_size=4)
    assert isinstance(env, KernelEnv) and env.config.env_id == "leap-vf"
    assert env.config.agent.harness.id == "null" and env.config.max_turns == 2 and env.config.group_size == 4
    tasks = {t.data.task: t for t in env.taskset}
    assert set(tasks) == {"relu_fp32", "add_fp32"}
    system, user = build_messages(get_builtin("relu_fp32"), "triton")
    assert tasks["relu_fp32"].data.prompt == user["content"] and tasks["relu_fp32"].data.system_prompt == system["content"]
    # the CLI's path: an env config naming the taskset id resolves to the same classes
    same = vf.load_environment(vf.resolve_env_config({"taskset": {"id": "leap-vf", "task_filter": ["add_fp32"]}}))
    assert type(same) is KernelEnv and [t.data.task for t in same.taskset] == ["add_fp32"]


def test_env_response_stop_rule_and_rubric_on_real_verdicts(verdicts, judge):
    _vf()
    from leap.integrations.verifiers_env import done, env_response, load_environment, score_attempts

    ok, bad, none = verdicts["ok"], verdicts["bad"], verdicts["none"]
    assert (ok.status, bad.status, none.status) == ("ok", "incorrect", "format_error")
    text = env_response(bad, 1)
    assert text.startswith("Your turn-1 solution was checked by the sandbox:\nstatus: incorrect")
    assert bad.feedback.strip()[:40] in text
    assert not done([bad], 3) and done([bad, ok], 3) and done([bad, bad, bad], 3) and not done([], 3)

    attempts = [([OK], [ok]), ([BAD, OK], [bad, ok]), ([BAD, BAD], [bad, bad]), ([NONE], [none])]
    scalar = score_attempts("relu_fp32", attempts)
    assert [r["leap_score"] for r in scalar] == [0.3, 0.3, 0.0, 0.0]  # CPU: correct, no speedup measured
    assert [r["solved_turn"] for r in scalar] == [1.0, 2.0, 0.0, 0.0]
    ranks = [r["leap_tournament"] for r in score_attempts("relu_fp32", attempts, "tournament")]
    # earlier success > later success > compiled but incorrect > no code; zero-sum
    assert ranks == [1.0, pytest.approx(1 / 3), pytest.approx(-1 / 3), -1.0]
    with pytest.raises(ValueError, match="group_size >= 2"):
        score_attempts("relu_fp32", attempts[:1], "tournament")

    env = load_environment(task_filter=["relu_fp32"])
    env.judge = judge
    (task,) = list(env.taskset)
    assert env.leap_task(task.data).name == "relu_fp32"
    assert judge.judge(env.leap_task(task.data), OK).correct


def test_trl_kernel_environment_contract(judge):
    from transformers.utils import get_json_schema

    from leap.integrations.trl import KernelEnvironment

    KernelEnvironment.judge = judge
    env = KernelEnvironment()
    # what GRPOTrainer probes: a reset, a get_reward, and the other public functions become tools
    names = [n for n, _ in inspect.getmembers(type(env), predicate=inspect.isfunction) if not n.startswith("_")]
    assert sorted(names) == ["get_reward", "reset", "submit_kernel"]
    schema = get_json_schema(env.submit_kernel)
    assert schema["function"]["name"] == "submit_kernel"
    assert schema["function"]["parameters"]["required"] == ["code"]

    assert env.submit_kernel(K.RELU).startswith("error: no task")
    env.reset(task="relu_fp32", prompt="ignored")
    assert env.get_reward() == 0.0
    first = env.submit_kernel(K.RELU_MASK_OFF_BY_ONE)
    assert first.startswith("status: incorrect") and len(first.splitlines()) > 1
    assert env.submit_kernel(K.RELU).startswith("status: ok")
    assert env.get_reward() == pytest.approx(0.3)  # the best submission's scalar score
    env.reset(task="relu_fp32")
    assert env.get_reward() == 0.0 and env.scores == []
