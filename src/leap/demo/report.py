"""`report.md` and PNG plots for a demo run (matplotlib, headless)."""

from __future__ import annotations

import platform
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def _acc_plot(summary: dict, path: Path) -> None:
    sft, rl = summary["eval_sft"]["acc_at_turn"], summary["eval_rl"]["acc_at_turn"]
    xs = range(1, len(sft) + 1)
    fig, ax = plt.subplots(figsize=(5, 3.2))
    w = 0.38
    ax.bar([x - w / 2 for x in xs], sft, w, label="after SFT")
    ax.bar([x + w / 2 for x in xs], rl, w, label="after LEAP RL")
    for x, a, b in zip(xs, sft, rl, strict=True):
        ax.text(x - w / 2, a + 0.01, f"{a:.2f}", ha="center", fontsize=8)
        ax.text(x + w / 2, b + 0.01, f"{b:.2f}", ha="center", fontsize=8)
    ax.set_xticks(list(xs), [f"turn {x}" for x in xs])
    ax.set_ylabel("held-out Acc@turn")
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _reward_plot(rows: list[dict], path: Path) -> None:
    steps = [r["step"] for r in rows]
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.plot(steps, [r["reward"] for r in rows], marker="o", label="solved fraction (any turn)")
    ax.plot(steps, [r["acc_at_turn"][0] for r in rows], marker="s", label="solved at turn 1")
    ax.set_xlabel("RL step")
    ax.set_ylabel("training groups")
    ax.set_ylim(0, 1)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _dcp_plot(rows: list[dict], path: Path) -> None:
    steps = [r["step"] for r in rows]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.2))
    a1.bar(steps, [r["groups"] for r in rows], color="#ddd", label="groups")
    a1.bar(steps, [r["groups_expanded"] for r in rows], label="expanded by DCP")
    a1.set_xlabel("RL step")
    a1.set_ylabel("groups")
    a1.legend()
    a2.plot(steps, [r["evals_all_expanded"] for r in rows], marker="o", label="if every group expanded")
    a2.plot(steps, [r["evals_spent"] for r in rows], marker="s", label="spent (DCP)")
    a2.fill_between(steps, [r["evals_spent"] for r in rows], [r["evals_all_expanded"] for r in rows],
                    alpha=0.2, label="saved")
    a2.set_xlabel("RL step")
    a2.set_ylabel("sandbox evaluations")
    a2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _fmt(xs: list[float]) -> str:
    return " / ".join(f"{x:.3f}" for x in xs)


def _pool(cfg: dict, n: int) -> str:
    kind = cfg.get("rl_pool", "sft")
    what = {"sft": "the SFT tasks", "fresh": "fresh generated tasks, disjoint from the SFT tasks",
            "mixed": "the SFT tasks plus fresh generated tasks"}.get(kind, kind)
    return f"{what}: {n} tasks, none of them held out"


def _se(sft: dict, rl: dict, n: int) -> float:
    a, b = sft["acc_at_turn"][0], rl["acc_at_turn"][0]
    return ((a * (1 - a) + b * (1 - b)) / max(1, n)) ** 0.5


def write_report(summary: dict, out: str | Path) -> Path:
    """Write plots and ``report.md`` into ``out``; returns the report's path."""
    out = Path(out)
    rows = summary["rl"]
    _acc_plot(summary, out / "acc_at_turn.png")
    if rows:
        _reward_plot(rows, out / "reward.png")
        _dcp_plot(rows, out / "dcp.png")
    cfg, sft, rl = summary["config"], summary["eval_sft"], summary["eval_rl"]
    spent = sum(r["evals_spent"] for r in rows)
    allx = sum(r["evals_all_expanded"] for r in rows)
    expanded = sum(r["groups_expanded"] for r in rows)
    groups = sum(r["groups"] for r in rows)
    d1 = rl["acc_at_turn"][0] - sft["acc_at_turn"][0]
    verdict = ("held-out Acc@turn1 rose after RL" if d1 > 0 else
               "held-out Acc@turn1 did NOT rise after RL in this run")
    n = sft["tasks"] * sft["samples_per_task"]
    secs = summary["seconds"]
    lines = [
        "# LEAP demo report", "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} · {platform.node()} · "
        f"{platform.processor() or platform.machine()} · device `{cfg['device']}` · variant `{cfg['variant']}` · "
        f"seed {cfg['seed']}", "",
        "A tiny kernel-writing policy trained from scratch (its own tokenizer, "
        f"{summary['params'] / 1e6:.2f}M parameters, nothing downloaded) on {summary['sft_pairs']} "
        "sandbox-verified (prompt, Triton solution) pairs, then post-trained with LEAP "
        "(tournament reward, Difficulty-Conditioned Pruning, turn credit, clipped policy loss) against the "
        "sandbox. Tasks: generated elementwise op chains (KernelBench format); "
        f"{summary['train_tasks']} SFT tasks (RL draws its tasks from {_pool(cfg, summary.get('rl_tasks', 0))}), "
        f"{sft['tasks']} held-out tasks (op chains disjoint from all training tasks), "
        f"{sft['samples_per_task']} samples per held-out task, up to {cfg['max_turns']} turns with "
        "sandbox feedback.", "",
        f"**Result: {verdict}: {sft['acc_at_turn'][0]:.3f} -> {rl['acc_at_turn'][0]:.3f} "
        f"({d1:+.3f}, {n} samples each; binomial s.e. of the difference ≈ {_se(sft, rl, n):.3f}).**", "",
        "| held-out | Acc@turn 1 / 2 / 3 | tasks solved at turn 1 (any sample) |",
        "|---|---|---|",
        f"| after SFT | {_fmt(sft['acc_at_turn'])} | {sft['tasks_solved_turn1_any']}/{sft['tasks']} |",
        f"| after RL ({len(rows)} steps) | {_fmt(rl['acc_at_turn'])} | "
        f"{rl['tasks_solved_turn1_any']}/{rl['tasks']} |", "",
        "Turn-1 accuracy by chain length (ops per task): after SFT "
        + ", ".join(f"{k}: {v:.2f}" for k, v in sft["acc1_by_chain_length"].items())
        + "; after RL " + ", ".join(f"{k}: {v:.2f}" for k, v in rl["acc1_by_chain_length"].items()) + ".", "",
        "![Acc@turn](acc_at_turn.png)", "",
        "## RL", "",
        f"{len(rows)} steps × {cfg['tasks_per_step']} tasks × G={cfg['group_size']} samples at temperature "
        f"{cfg['temperature']}; AdamW lr {cfg['rl_lr']:g}, {cfg.get('rl_passes', 1)} pass(es) over each step's "
        f"turn samples in minibatches of {cfg.get('rl_minibatch') or 'all'}. "
        f"DCP expanded {expanded}/{groups} groups ({(expanded / groups if groups else 0):.0%}); "
        f"sandbox evaluations spent {spent} vs {allx} if every group with a failure had been expanded "
        f"(saved {allx - spent}, {((allx - spent) / allx if allx else 0):.0%}; the counterfactual counts "
        "every failing sample of a pruned group for all remaining turns, an upper bound).", "",
        "![reward](reward.png)", "", "![DCP](dcp.png)", "",
        "| step | solved | Acc@1 (train groups) | expanded | evals spent | evals if all expanded | step s |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['step']} | {r['reward']:.3f} | {r['acc_at_turn'][0]:.3f} | "
                     f"{r['groups_expanded']}/{r['groups']} | {r['evals_spent']} | {r['evals_all_expanded']} | "
                     f"{r['step_s']:.1f} |")
    lines += ["", "## Cost", "",
              f"Total {secs['total']:.0f} s (SFT {secs['sft']:.0f} s, RL {secs['rl']:.0f} s). "
              f"Sandbox evaluations requested {summary['sandbox_requested']}, executed "
              f"{summary['sandbox_executed']} (identical (task, code) pairs are verified once per run).", "",
              "Files: `sft.jsonl` (verified pairs), `metrics.jsonl` (per RL step), `summary.json`, "
              "`policy_sft/`, `policy_rl/` (tokenizer + weights), `tasks/` (sample task files).", ""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path
