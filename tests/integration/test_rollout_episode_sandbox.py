"""Episode runner with the real sandbox (Triton interpreter): a broken turn 1, sandbox feedback in the
turn-2 context, a correct turn 2."""

from __future__ import annotations

import pytest

from leap.rollout.episode import EpisodeConfig, run_episodes, sandbox_verifier
from leap.rollout.policies.base import Generation
from leap.tasks.solutions import reference_solution
from leap.tasks.suite import get_builtin


class TwoStep:
    name = "two-step"

    def __init__(self, good: str):
        self.good, self.contexts = good, []

    def generate(self, prompts, params):
        out = []
        for msgs in prompts:
            self.contexts.append(msgs)
            first = not any(m["role"] == "assistant" for m in msgs)
            src = self.good.replace("h = tl.maximum(h, 0.0)", "h = h * 2.0") if first else self.good
            out.append(Generation(text=f"Plan.\n```python\n{src}```", completion_tokens=10))
        return out


@pytest.mark.slow
def test_feedback_turn_fixes_candidate_with_real_sandbox():
    from leap.sandbox import Sandbox

    task = get_builtin("relu_fp32")
    good = reference_solution(task)
    assert "h = tl.maximum(h, 0.0)" in good
    pol = TwoStep(good)
    with Sandbox() as sb:
        groups = run_episodes(pol, [task], 1, sandbox_verifier(sb), EpisodeConfig(max_turns=3))
    tr = groups[0].trajectories[0]
    assert [t.verdict.status for t in tr.turns] == ["incorrect", "ok"]
    assert tr.solved_turn == 2
    fb = tr.turns[0].verdict.feedback
    assert fb and fb in pol.contexts[1][-1]["content"]
