"""report.md with PNG plots (matplotlib, Agg) from an evaluation's summary and results."""

from __future__ import annotations

from pathlib import Path

from leap.evaluation.metrics import Results, best_speedup


def _fmt(v, none: str = "n/a (not timed)") -> str:
    if v is None:
        return none
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def _plots(out: Path, summary: dict, results: Results) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    acc = summary["acc_at_turn"]
    fig, ax = plt.subplots(figsize=(4.5, 3.2))
    ax.plot(range(1, len(acc) + 1), acc, marker="o")
    ax.set_xlabel("turn k")
    ax.set_ylabel("Acc@turn k (fraction solved by turn k,\nmean over tasks)", fontsize=8)
    ax.set_title(f"{summary.get('tasks', '?')} tasks, {summary.get('samples', '?')} samples", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_xticks(range(1, len(acc) + 1))
    fig.tight_layout()
    fig.savefig(out / "acc_at_turn.png", dpi=100)
    plt.close(fig)
    names.append("acc_at_turn.png")

    by_turn = summary["status_by_turn"]
    statuses = sorted({s for d in by_turn for s in d})
    fig, ax = plt.subplots(figsize=(6.5, 3.2))
    bottom = [0] * len(by_turn)
    for s in statuses:
        vals = [d.get(s, 0) for d in by_turn]
        ax.bar(range(1, len(by_turn) + 1), vals, bottom=bottom, label=s)
        bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
    ax.set_xlabel("turn")
    ax.set_ylabel("verdicts at this turn (count)")
    ax.set_xticks(range(1, len(by_turn) + 1))
    if statuses:  # outside the bars, never over them
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, frameon=False)
    fig.tight_layout()
    fig.savefig(out / "status_by_turn.png", dpi=100)
    plt.close(fig)
    names.append("status_by_turn.png")

    speeds = [b for samples in results.values() for s in samples if (b := best_speedup(s)) is not None]
    if speeds:
        fig, ax = plt.subplots(figsize=(4.5, 3.2))
        ax.hist(speeds, bins=20)
        ax.set_xlabel("best speedup vs eager PyTorch (×, correct samples)")
        ax.set_ylabel("samples (count)")
        fig.tight_layout()
        fig.savefig(out / "speedups.png", dpi=100)
        plt.close(fig)
        names.append("speedups.png")
    return names


def write_report(out: Path, summary: dict, results: Results) -> Path:
    """Write ``out/report.md`` (and its PNGs); returns the report path."""
    plots = _plots(out, summary, results)
    lines = [f"# LEAP evaluation: {summary.get('model', '')}", "",
             f"{summary['tasks']} tasks, {summary['samples']} samples, up to {summary['max_turns']} turns, "
             f"kernel backend {summary.get('kernel_backend', '')}.", "",
             "| measure | value |", "|---|---|"]
    for k, v in enumerate(summary["acc_at_turn"], 1):
        lines.append(f"| Acc@turn {k} | {v:.3f} |")
    for key in ("fast_1_eager", "fast_1_compile", "fast_1.2_eager", "turns_per_success", "sandbox_evals"):
        lines.append(f"| {key} | {_fmt(summary[key], 'n/a (no success)' if key == 'turns_per_success' else 'n/a (not timed)')} |")
    for k, v in summary["pass_at_k"].items():
        lines.append(f"| pass@{k} | {v:.3f} |")
    lines += ["", "## Per task", "", "| task | samples | solved | first solved turn |", "|---|---|---|---|"]
    for name, samples in results.items():
        turns = [next((i + 1 for i, v in enumerate(s) if v.correct), None) for s in samples]
        solved = [t for t in turns if t is not None]
        lines.append(f"| {name} | {len(samples)} | {len(solved)} | {min(solved) if solved else '-'} |")
    lines += [""] + [f"![{p}]({p})" for p in plots] + [""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path
