"""A Markdown summary of a run's ``metrics.jsonl``: step-time split, DCP savings, accuracy by turn.

    python -m leap.trainer.report runs/qwen05b_h200/metrics.jsonl
"""

from __future__ import annotations

import sys
from pathlib import Path

from leap.trainer.logging import read_metrics


def _mean(rows: list[dict], key: str) -> float | None:
    xs = [r[key] for r in rows if isinstance(r.get(key), int | float)]
    return sum(xs) / len(xs) if xs else None


def _fmt(x: float | None, spec: str = ".3g") -> str:
    return "–" if x is None else format(x, spec)


def summarize(path: str | Path) -> str:
    rows = read_metrics(path)
    if not rows:
        return f"{path}: no steps logged\n"
    turns = sorted({int(k[len("acc/turn"):]) for r in rows for k in r if k.startswith("acc/turn")})
    spent = sum(r.get("dcp/evals_spent", 0) for r in rows)
    saved = sum(r.get("dcp/evals_saved", 0) for r in rows)
    seen = sum(r.get("groups", 0) for r in rows)
    expanded = sum(r.get("dcp/groups_expanded", 0) for r in rows)
    lines = [f"# Run summary: {path}", "",
             f"steps logged: {len(rows)} (last step {rows[-1]['step']})", "",
             "| measure | mean per step |", "|---|---|"]
    for key, label in (("time/step", "step time (s)"), ("time/generate", "generate (s)"),
                       ("time/sandbox", "sandbox busy (s)"), ("time/sandbox_wait", "waiting on sandbox (s)"),
                       ("time/train", "train (s)"), ("tokens/completion", "completion tokens"),
                       ("reward/mean", "reward (0.3·correct + speedup)"), ("loss", "loss"),
                       ("grad_norm", "grad norm"), ("entropy", "entropy"), ("clip_fraction", "clip fraction"),
                       ("turns_per_success", "turns per success")):
        lines.append(f"| {label} | {_fmt(_mean(rows, key))} |")
    for k in turns:
        lines.append(f"| Acc@turn{k} | {_fmt(_mean(rows, f'acc/turn{k}'))} |")
    lines += ["", f"DCP: {expanded}/{seen} groups expanded ({_fmt(expanded / seen if seen else None, '.1%')}); "
              f"sandbox evaluations spent {spent}, saved against expanding every group {saved} "
              f"({_fmt(saved / (spent + saved) if spent + saved else None, '.1%')} of the unpruned spend)", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(summarize(arg))
