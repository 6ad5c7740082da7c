"""Episode runner logic with a scripted policy and a rule-based verifier (the real sandbox and model
are exercised in tests/integration/test_rollout_episode_sandbox.py and the eval end-to-end test)."""

from __future__ import annotations

from leap.rollout.episode import EpisodeConfig, EpisodeStats, run_episodes
from leap.rollout.policies.base import Generation, SamplingParams
from leap.sandbox.judge.verdict import Verdict
from leap.tasks.suite import get_builtin


class Scripted:
    """Answers from a script keyed by (number of assistant turns so far); records every context."""

    name = "scripted"

    def __init__(self, answers):
        self.answers, self.seen = answers, []

    def generate(self, prompts, params):
        out = []
        for i, msgs in enumerate(prompts):
            self.seen.append(msgs)
            k = sum(m["role"] == "assistant" for m in msgs)
            text = self.answers(k, i)
            out.append(Generation(text=text, prompt_ids=[1, 2], completion_ids=[3] * len(text),
                                  prompt_tokens=2, completion_tokens=len(text)))
        return out


def rule_verifier(pairs):
    return [Verdict(status="ok", correct=True) if "GOOD" in code
            else Verdict(status="incorrect", compiled=True, feedback=f"mismatch in {len(code)} chars")
            for _, code in pairs]


def code(tag):
    return f"<think>hmm</think>\n```python\nclass ModelNew:\n    {tag} = 1\n```"


def test_turns_feedback_and_default_continue():
    tasks = [get_builtin("relu_fp32"), get_builtin("add_fp32")]
    # turn 1: sample 0 good, others bad; turn 2: still bad; turn 3: good
    pol = Scripted(lambda k, i: code("GOOD") if (k == 0 and i % 3 == 0) or k == 2 else code("BAD"))
    stats = EpisodeStats()
    groups = run_episodes(pol, tasks, 3, rule_verifier,
                          EpisodeConfig(max_turns=3, params=SamplingParams(max_new_tokens=8)), stats=stats)
    assert [g.task for g in groups] == ["relu_fp32", "add_fp32"]
    g = groups[0]
    assert [tr.sample for tr in g.trajectories] == [0, 1, 2]
    assert [len(tr.turns) for tr in g.trajectories] == [1, 3, 3]
    assert [tr.solved_turn for tr in g.trajectories] == [1, 3, 3]
    assert g.expanded
    t2 = g.trajectories[1].turns[1]
    assert t2.index == 1 and "hmm" not in str(t2.messages)
    assert "mismatch in" in t2.messages[-1]["content"] and t2.messages[-2]["role"] == "assistant"
    assert g.trajectories[1].turns[0].code.startswith("class ModelNew")
    assert t2.prompt_ids == [1, 2] and t2.completion_tokens > 0
    assert stats.generations == 6 + 4 + 4 and stats.sandbox_evals == 14 and stats.groups_expanded == 2


def test_continue_hook_prunes_and_missing_code_skips_sandbox():
    tasks = [get_builtin("relu_fp32")]
    pol = Scripted(lambda k, i: "no code here" if (i, k) == (0, 0) else code("BAD"))
    calls = []

    def verifier(pairs):
        calls.append(len(pairs))
        return rule_verifier(pairs)

    seen = []

    def hook(group):
        seen.append(group.n_failed_first_turn())
        return [False, True, False]

    groups = run_episodes(pol, tasks, 3, verifier, EpisodeConfig(max_turns=2), continue_fn=hook)
    assert seen == [3]
    trs = groups[0].trajectories
    assert [len(t.turns) for t in trs] == [1, 2, 1]
    assert trs[0].turns[0].verdict.status == "format_error" and trs[0].turns[0].code is None
    assert calls == [2, 1]
    pruned = run_episodes(pol, tasks, 2, verifier, EpisodeConfig(max_turns=3), continue_fn=lambda g: [False] * 2)
    assert not pruned[0].expanded and all(len(t.turns) == 1 for t in pruned[0].trajectories)


def test_explicit_sample_ids():
    pol = Scripted(lambda k, i: code("GOOD"))
    groups = run_episodes(pol, [get_builtin("relu_fp32")], [[1, 3]], rule_verifier, EpisodeConfig(max_turns=1))
    assert [t.sample for t in groups[0].trajectories] == [1, 3]


def test_dcp_batch_hook_and_keep_solved():
    from leap.rollout.episode import dcp_continue

    tasks = [get_builtin("relu_fp32"), get_builtin("add_fp32"), get_builtin("gelu_fp32")]
    # relu: all fail (cut), add: 1 of 4 pass -> 3 fail (expand), gelu: all pass (cut)
    def answers(k, i):
        if k > 0:
            return code("BAD")
        return code("BAD") if i < 4 else code("GOOD") if i >= 8 or i == 4 else code("BAD")

    pol = Scripted(answers)
    groups = run_episodes(pol, tasks, 4, rule_verifier, EpisodeConfig(max_turns=3),
                          continue_batch=dcp_continue(3))
    assert [g.expanded for g in groups] == [False, True, False]
    assert [len(t.turns) for t in groups[1].trajectories] == [1, 3, 3, 3]
    assert all(len(t.turns) == 1 for g in (groups[0], groups[2]) for t in g.trajectories)
    kept = run_episodes(Scripted(lambda k, i: code("GOOD")), tasks[:1], 2, rule_verifier,
                        EpisodeConfig(max_turns=2, keep_solved=True), continue_fn=lambda g: [True, False])
    assert [len(t.turns) for t in kept[0].trajectories] == [2, 1]


def test_custom_prompt_fn_builds_every_turn_context():
    tasks = [get_builtin("relu_fp32")]
    pol = Scripted(lambda k, i: code("GOOD") if i == 0 and len(pol.seen) in (1, 4) else code("BAD"))

    def prompt(task, turns):
        last = f" after {turns[-1].verdict.feedback}" if turns else ""
        return [{"role": "user", "content": f"{task.name} turn {len(turns) + 1}{last}"}]

    groups = run_episodes(pol, tasks, 2, rule_verifier, EpisodeConfig(max_turns=3, prompt_fn=prompt))
    assert [len(tr.turns) for tr in groups[0].trajectories] == [1, 3]
    contexts = [m[0]["content"] for m in pol.seen]
    assert contexts[:2] == ["relu_fp32 turn 1"] * 2
    assert contexts[2].startswith("relu_fp32 turn 2 after mismatch in") and contexts[3].startswith("relu_fp32 turn 3")
    assert groups[0].trajectories[1].turns[2].messages == pol.seen[3]
