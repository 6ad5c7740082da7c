"""Training rollouts: chunked episodes overlap verification with generation, sampling stays deterministic
whatever the thread timing, and DCP (the runner's batch continue hook) decides which groups get turn 2."""

import itertools
import sys
import threading
import time
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
from trainer_tiny import write_tiny_checkpoint  # noqa: E402

from leap.sandbox.judge.verdict import Verdict  # noqa: E402
from leap.tasks.suite import get_builtin  # noqa: E402
from leap.trainer.config import load_config  # noqa: E402
from leap.trainer.model import load_policy  # noqa: E402
from leap.trainer.rollouts import Rollouts  # noqa: E402


@pytest.fixture(scope="module")
def tiny_path(tmp_path_factory):
    return str(write_tiny_checkpoint(tmp_path_factory.mktemp("tiny") / "model"))


@pytest.fixture
def fenced_short(monkeypatch):
    from leap.rollout import episode
    from leap.rollout.policies.hf import HFPolicy

    monkeypatch.setattr(episode, "build_messages", lambda t, b: [{"role": "user", "content": t.name}])
    original = HFPolicy.generate

    def generate(self, prompts, params):
        EVENTS.append(("gen_start", next(SEQ)))
        gens = original(self, prompts, params)
        for g in gens:
            g.text = "```python\n|" + g.text.replace("`", "'") + "|\n```"
        return gens

    monkeypatch.setattr(HFPolicy, "generate", generate)


SEQ = itertools.count()  # one order for every event, whatever the threads (ordering, not wall time)
EVENTS: list[tuple[str, int]] = []
_EV_LOCK = threading.Lock()


def slow_rule(pairs):
    with _EV_LOCK:
        start = next(SEQ)
    time.sleep(0.4)  # a sandbox-like delay, long against a 4-token generation
    EVENTS.append(("verify", start, next(SEQ)))
    return [Verdict(status="ok" if any("a" <= c <= "z" for c in code[1:5]) else "incorrect",
                    correct=any("a" <= c <= "z" for c in code[1:5])) for _, code in pairs]


def _cfg(path, *extra):
    return load_config(None, [f"model.path={path}", "device=cpu", "rollout.group_size=4",
                              "rollout.tasks_per_step=4", "rollout.max_turns=2", "rollout.sampling.max_new_tokens=4",
                              "rollout.kv_cache=dynamic", *extra])


def _overlapping_generations() -> int:
    """How many generate calls started while some verification was in progress."""
    spans = [(e[1], e[2]) for e in EVENTS if e[0] == "verify"]
    return sum(any(a < e[1] < b for a, b in spans) for e in EVENTS if e[0] == "gen_start")


def _collect(path, cfg, seed):
    EVENTS.clear()
    torch.manual_seed(0)
    policy = load_policy(cfg.model, torch.device("cpu"))
    tasks = [get_builtin(n) for n in ("relu_fp32", "add_fp32", "sigmoid_fp32", "tanh_fp32")]
    torch.manual_seed(seed)
    with Rollouts(policy, cfg, verifier=slow_rule) as ro:
        groups, timing = ro.collect(tasks)
        after = torch.rand(1)
    timing["overlapping_generations"] = _overlapping_generations()
    return groups, timing, after


def test_chunked_rollouts_are_deterministic_and_overlap_verification(tiny_path, fenced_short):
    one = _cfg(tiny_path, "rollout.generation_batch_size=0")
    chunked = _cfg(tiny_path, "rollout.generation_batch_size=4")  # 4 chunks of one task, in threads
    g1, t1, r1 = _collect(tiny_path, chunked, 5)
    g2, t2, r2 = _collect(tiny_path, chunked, 5)
    ids = lambda gs: [[t.completion_ids for tr in g.trajectories for t in tr.turns] for g in gs]  # noqa: E731
    assert ids(g1) == ids(g2) and torch.equal(r1, r2), "sampling depended on thread timing"
    assert [g.task for g in g1] == ["relu_fp32", "add_fp32", "sigmoid_fp32", "tanh_fp32"]
    assert t1["overlapping_generations"] >= 1, EVENTS  # one chunk was verified while another generated
    g3, t3, _ = _collect(tiny_path, one, 5)
    assert t3["overlapping_generations"] == 0, EVENTS  # one chunk: generation and verification alternate
    for g in g1:  # DCP: expanded iff the gate passed; only failing samples of expanded groups continue
        f = g.n_failed_first_turn()
        assert g.expanded == (2 <= f <= 3)
        for tr in g.trajectories:
            assert len(tr.turns) == (2 if g.expanded and not tr.turns[0].solved else 1)


def test_budget_mode_runs_as_one_chunk(tiny_path):
    """dcp_decide ranks all of a step's groups by p(1-p) under the budget, so no chunking then."""
    from leap.tasks.suite import builtin_tasks

    cfg = _cfg(tiny_path, "rollout.generation_batch_size=4", "dcp.eval_budget=40")
    policy = load_policy(cfg.model, torch.device("cpu"))
    tasks = builtin_tasks("train")[:4]
    assert len(Rollouts(policy, cfg, verifier=slow_rule)._chunks(tasks)) == 1
    free = _cfg(tiny_path, "rollout.generation_batch_size=4")
    assert len(Rollouts(policy, free, verifier=slow_rule)._chunks(tasks)) == 4
