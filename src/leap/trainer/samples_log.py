"""What the policy wrote, per training step: one JSON line per turn in ``rollouts/step-N.jsonl`` of the run
folder (task, sample, turn, completion, the extracted code, the verdict, reward, advantage; `leap sft-data
pass-rates` and `harvest` read them as they read `leap eval` results), and a one-line
verdict breakdown for the console (``step 3: 128 samples  ok 12  incorrect 30 ...  reward 0.12  gen 20.1s``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from leap.algorithms.credit import batch_credits
from leap.algorithms.scalar import trajectory_reward
from leap.rollout.records import Group
from leap.trainer.config import TrainConfig

STATUS_ORDER = ("ok", "incorrect", "compile_error", "runtime_error", "format_error", "rejected", "timeout")


class RolloutRow(BaseModel):
    """One generated turn as the trainer saw it."""

    step: int
    task: str
    sample: int
    turn: int  # 1-based
    completion: str
    status: str
    correct: bool
    feedback: str
    speedup_eager: float | None = None
    reward: float  # the trajectory's scalar reward (Kevin's score), whatever the advantage estimator
    advantage: float  # this turn's credit (what the loss multiplies)
    completion_tokens: int
    group_expanded: bool
    code: str | None = None  # the code the sandbox judged (None: no code block found)
    verdict: dict = Field(default_factory=dict)  # the verdict's public fields (as `leap eval` results keep them)


def rollout_rows(step: int, groups: Sequence[Group], cfg: TrainConfig) -> list[RolloutRow]:
    """Rows for every turn of every trajectory of the step's groups (advantages as `train_on_groups` uses)."""
    credits = batch_credits(groups, cfg.reward, cfg.credit)
    rows = []
    for g, cg in zip(groups, credits, strict=True):
        for tr, ct in zip(g.trajectories, cg, strict=True):
            reward = float(trajectory_reward(tr, cfg.reward))
            for turn, adv in zip(tr.turns, ct, strict=True):
                v = turn.verdict
                rows.append(RolloutRow(step=step, task=g.task, sample=tr.sample, turn=turn.index + 1,
                                       completion=turn.completion, status=v.status, correct=v.correct,
                                       feedback=v.feedback, speedup_eager=v.speedup_eager, reward=reward,
                                       advantage=float(adv), completion_tokens=turn.completion_tokens,
                                       group_expanded=g.expanded, code=turn.code, verdict=v.public_dict()))
    return rows


def write_rollouts(run_dir: str | Path, step: int, rows: Sequence[RolloutRow]) -> Path:
    """Write ``run_dir/rollouts/step-N.jsonl`` (replaced if a resumed run repeats the step)."""
    path = Path(run_dir) / "rollouts" / f"step-{step}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".jsonl.tmp")
    tmp.write_text("".join(r.model_dump_json() + "\n" for r in rows))
    tmp.replace(path)
    return path


def status_line(step: int, rows: Sequence[RolloutRow], timing: dict[str, float]) -> str:
    """``step N: S samples  ok a  incorrect b ...  reward r  gen Xs sandbox Ys train Zs``."""
    counts = Counter(r.status for r in rows)
    order = [s for s in STATUS_ORDER if counts.get(s)] + sorted(s for s in counts if s not in STATUS_ORDER)
    trajs = {(r.task, r.sample): r.reward for r in rows}
    reward = sum(trajs.values()) / len(trajs) if trajs else 0.0
    parts = [f"step {step}: {len(rows)} samples"] + [f"{s} {counts[s]}" for s in order]
    parts.append(f"reward {reward:.3g}")
    times = " ".join(f"{label} {timing[key]:.1f}s" for label, key in
                     (("gen", "generate"), ("sandbox", "sandbox"), ("train", "train")) if key in timing)
    return "  ".join(parts) + ("  " + times if times else "")
