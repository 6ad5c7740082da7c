"""`report.md` and PNG plots for a demo run (matplotlib, headless)."""

from __future__ import annotations

import platform
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def _int_axes(*axes, y: bool = False) -> None:
    """Steps (and counts, with ``y``) are whole numbers: integer ticks only."""
    from matplotlib.ticker import MaxNLocator

    for ax in axes:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if y:
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def _legend_outside(ax) -> None:
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, fontsize=8, frameon=False)


def _acc_plot(summary: dict, path: Path) -> None:
    """Held-out Acc@turn k after SFT and after RL, with ±1 binomial standard error."""
    sft, rl = summary["eval_sft"]["acc_at_turn"], summary["eval_rl"]["acc_at_turn"]
    n = max(1, summary["eval_sft"]["tasks"] * summary["eval_sft"]["samples_per_task"])
    xs = range(1, len(sft) + 1)
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    w = 0.38
    for off, vals, label in ((-w / 2, sft, "after SFT"), (w / 2, rl, f"after RL ({summary['config']['variant']})")):
        err = [(a * (1 - a) / n) ** 0.5 for a in vals]
        ax.bar([x + off for x in xs], vals, w, yerr=err, capsize=3, label=label)
        for x, a in zip(xs, vals, strict=True):
            ax.text(x + off, a + 0.03, f"{a:.2f}", ha="center", fontsize=8)
    ax.set_xticks(list(xs), [f"by turn {x}" for x in xs])
    ax.set_ylabel("held-out samples solved (fraction)")
    ax.set_title(f"Held-out Acc@turn ({n} samples; bars ±1 s.e.)", fontsize=9)
    ax.set_ylim(0, 1.05)
    _legend_outside(ax)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _train_plot(rows: list[dict], path: Path) -> None:
    """Per RL step: fraction of training samples solved (turn 1, any turn) and the mean scalar reward."""
    steps = [r["step"] for r in rows]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9.6, 3.4))
    a1.plot(steps, [r["solved"] for r in rows], marker="o", linestyle="-", label="solved by the last turn")
    a1.plot(steps, [r["acc_at_turn"][0] for r in rows], marker="s", linestyle="--", label="solved at turn 1")
    a1.set_xlabel("RL step")
    a1.set_ylabel("training samples solved (fraction)")
    a1.set_ylim(0, 1.05)
    _legend_outside(a1)
    a2.plot(steps, [r.get("reward_mean") or 0.0 for r in rows], marker="o", color="C2")
    a2.set_xlabel("RL step")
    a2.set_ylabel("mean scalar reward\n(0.3·correct + speedup; CPU: no timing)")
    a2.set_ylim(0, max(0.35, *[(r.get("reward_mean") or 0.0) * 1.1 for r in rows]))
    _int_axes(a1, a2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _dcp_plot(rows: list[dict], path: Path) -> None:
    """Per RL step: groups DCP expanded, and sandbox evaluations spent vs. expanding every group."""
    steps = [r["step"] for r in rows]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.4))
    a1.bar(steps, [r["groups"] for r in rows], color="#ddd", label="groups in the step")
    a1.bar(steps, [r["groups_expanded"] for r in rows], label="expanded by DCP")
    a1.set_xlabel("RL step")
    a1.set_ylabel("groups (count)")
    a1.set_ylim(bottom=0)
    _legend_outside(a1)
    w = 0.4
    a2.bar([s - w / 2 for s in steps], [r["evals_all_expanded"] for r in rows], w, color="#bbb",
           label="if every group expanded")
    a2.bar([s + w / 2 for s in steps], [r["evals_spent"] for r in rows], w, label="spent (DCP)")
    a2.set_xlabel("RL step")
    a2.set_ylabel("sandbox evaluations (count)")
    a2.set_ylim(bottom=0)
    _legend_outside(a2)
    _int_axes(a1, a2, y=True)
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
    _acc_plot(summary, out / "heldout_acc_at_turn.png")
    if rows:
        _train_plot(rows, out / "train_solved_and_reward.png")
        _dcp_plot(rows, out / "dcp_sandbox_evals.png")
    cfg, sft, rl = summary["config"], summary["eval_sft"], summary["eval_rl"]
    spent = sum(r["evals_spent"] for r in rows)
    allx = sum(r["evals_all_expanded"] for r in rows)
    expanded = sum(r["groups_expanded"] for r in rows)
    groups = sum(r["groups"] for r in rows)
    d1 = rl["acc_at_turn"][0] - sft["acc_at_turn"][0]
    n = sft["tasks"] * sft["samples_per_task"]
    se = _se(sft, rl, n)
    verdict = ("held-out Acc@turn1 changed within noise (|difference| ≤ 2 s.e.)" if abs(d1) <= 2 * se else
               "held-out Acc@turn1 rose after RL" if d1 > 0 else "held-out Acc@turn1 fell after RL")
    secs = summary["seconds"]
    lines = [
        "# LEAP demo report", "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} · {platform.node()} · "
        f"{platform.processor() or platform.machine()} · device `{cfg['device']}` · variant `{cfg['variant']}` · "
        f"seed {cfg['seed']}", "",
        "A tiny kernel-writing policy trained from scratch (its own tokenizer, "
        f"{summary['params'] / 1e6:.2f}M parameters, nothing downloaded) on {summary['sft_pairs']} "
        "sandbox-verified (prompt, Triton solution) pairs, then post-trained with LEAP "
        "(tournament reward, Difficulty-Conditioned Pruning, turn credit, clipped policy loss; the trainer's "
        "own loop, `leap.trainer.loop.train`) against the "
        "sandbox. Tasks: generated elementwise op chains (KernelBench format); "
        f"{summary['train_tasks']} SFT tasks (RL draws its tasks from {_pool(cfg, summary.get('rl_tasks', 0))}), "
        f"{sft['tasks']} held-out tasks (op chains disjoint from all training tasks), "
        f"{sft['samples_per_task']} samples per held-out task, up to {cfg['max_turns']} turns with "
        "sandbox feedback.", "",
        f"**Result: {verdict}: {sft['acc_at_turn'][0]:.3f} -> {rl['acc_at_turn'][0]:.3f} "
        f"({d1:+.3f}, {n} samples each; binomial s.e. of the difference ≈ {se:.3f}).**", "",
        "| held-out | Acc@turn 1 / 2 / 3 | tasks solved at turn 1 (any sample) |",
        "|---|---|---|",
        f"| after SFT | {_fmt(sft['acc_at_turn'])} | {sft['tasks_solved_turn1_any']}/{sft['tasks']} |",
        f"| after RL ({len(rows)} steps) | {_fmt(rl['acc_at_turn'])} | "
        f"{rl['tasks_solved_turn1_any']}/{rl['tasks']} |", "",
        "Turn-1 accuracy by chain length (ops per task): after SFT "
        + ", ".join(f"{k}: {v:.2f}" for k, v in sft["acc1_by_chain_length"].items())
        + "; after RL " + ", ".join(f"{k}: {v:.2f}" for k, v in rl["acc1_by_chain_length"].items()) + ".", "",
        "![held-out Acc@turn after SFT and after RL](heldout_acc_at_turn.png)", "",
        "## RL", "",
        f"{len(rows)} steps × {cfg['tasks_per_step']} tasks × G={cfg['group_size']} samples at temperature "
        f"{cfg['temperature']}; AdamW lr {cfg['rl_lr']:g}, {cfg.get('rl_passes', 1)} pass(es) over each step's "
        f"turn samples in minibatches of {cfg.get('rl_minibatch') or 'all'}. "
        f"DCP expanded {expanded}/{groups} groups ({(expanded / groups if groups else 0):.0%}); "
        f"DCP savings (sandbox evaluations spent vs. expanding every group): spent {spent} of {allx} "
        f"(saved {allx - spent}, {((allx - spent) / allx if allx else 0):.0%} in total; per step in the table). "
        "\"Expanding every group\" counts each failing sample of a pruned group for all remaining turns, "
        "so the saving is an upper bound.", "",
        "![training samples solved and mean reward per RL step](train_solved_and_reward.png)", "",
        "![groups expanded and sandbox evaluations per RL step](dcp_sandbox_evals.png)", "",
        "| step | solved (any turn) | solved at turn 1 | expanded | evals spent | evals if all expanded | saved | "
        "loss | grad norm | step s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        saved = 1 - r["evals_spent"] / r["evals_all_expanded"] if r["evals_all_expanded"] else 0.0
        lines.append(f"| {r['step']} | {r['solved']:.3f} | {r['acc_at_turn'][0]:.3f} | "
                     f"{r['groups_expanded']}/{r['groups']} | {r['evals_spent']} | {r['evals_all_expanded']} | "
                     f"{saved:.0%} | {r['loss'] or 0:.4f} | {r['grad_norm'] or 0:.3f} | {r['step_s']:.1f} |")
    lines += ["", "## Cost", "",
              f"Total {secs['total']:.0f} s (SFT {secs['sft']:.0f} s, RL {secs['rl']:.0f} s). "
              f"Sandbox evaluations requested {summary['sandbox_requested']}, executed "
              f"{summary['sandbox_executed']} (identical (task, code) pairs are verified once per run).", "",
              "Files: `sft.jsonl` (verified pairs), `metrics.jsonl` (per RL step), `summary.json`, "
              "`policy_sft/`, `policy_rl/` (tokenizer + weights), `tasks/` (every held-out task and 3 training tasks: `leap eval --model policy_rl --tasks tasks --prompt demo`).", ""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path
