"""``leap compare``: Acc@turn of two `leap eval` folders, B - A with a bootstrap interval (text, JSON, plot)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from leap.cli.common import fail


def _load(folder: Path, label: str):
    from leap.evaluation.runner import read_results, results_by_task

    if not (folder / "results.jsonl").is_file():
        fail(f"{label} {folder}: no results.jsonl (expected a `leap eval --out` folder)")
    try:
        rows, _ = read_results(folder / "results.jsonl")
        results = results_by_task(rows)
    except (KeyError, TypeError, ValueError) as exc:
        fail(f"{label} {folder}/results.jsonl: unreadable row ({type(exc).__name__}: {str(exc)[:120]})")
    if not results:
        fail(f"{label} {folder}/results.jsonl: no finished sample")
    turns = max(len(s) for samples in results.values() for s in samples)
    return results, turns


def _plot(path: Path, rows, name_a: str, name_b: str, level: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = [r.turn for r in rows]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(8, 3.2))
    ax.bar([k - 0.2 for k in ks], [r.acc_a for r in rows], width=0.4, label=f"A: {name_a}")
    ax.bar([k + 0.2 for k in ks], [r.acc_b for r in rows], width=0.4, label=f"B: {name_b}")
    ax.set_xlabel("turn k")
    ax.set_ylabel("Acc@turn k (mean over common tasks)", fontsize=8)
    ax.set_xticks(ks)
    ax.legend(fontsize=7, frameon=False)
    bx.errorbar(ks, [r.diff for r in rows], yerr=[[r.diff - r.ci_low for r in rows], [r.ci_high - r.diff for r in rows]],
                fmt="o", capsize=4)
    bx.axhline(0, color="grey", lw=0.8)
    bx.set_xlabel("turn k")
    bx.set_ylabel(f"B - A, Acc@turn k ({level:.0%} bootstrap CI)", fontsize=8)
    bx.set_xticks(ks)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def register(app: typer.Typer) -> None:
    @app.command("compare")
    def compare(a: Path = typer.Argument(..., help="`leap eval` folder A (e.g. after SFT)"),
                b: Path = typer.Argument(..., help="`leap eval` folder B (e.g. after RL)"),
                turns: int = typer.Option(0, min=0, help="turns to compare (0 = the fewer of the two runs')"),
                boot: int = typer.Option(10000, min=100, help="bootstrap resamples"),
                level: float = typer.Option(0.95, min=0.5, max=0.999, help="confidence level of the interval"),
                seed: int = typer.Option(0),
                out: Path = typer.Option(None, help="also write compare.json, compare.md and compare.png here")) -> None:
        """Acc@turn of A and B on their common tasks, the difference B - A and its bootstrap interval
        (tasks and each run's samples resampled)."""
        from leap.evaluation.compare import compare_results, only_in_one

        ra, ta = _load(a, "A")
        rb, tb = _load(b, "B")
        k = min(ta, tb) if turns == 0 else turns
        try:
            rows = compare_results(ra, rb, k, boot=boot, level=level, seed=seed)
        except ValueError as exc:
            fail(f"{a} vs {b}: {exc}")
        miss_b, miss_a = only_in_one(ra, rb)
        lines = [f"A = {a}", f"B = {b}", "",
                 f"| turn | Acc A | Acc B | B - A | {level:.0%} CI | CI excludes 0 |", "|---|---|---|---|---|---|"]
        lines += [f"| {r.turn} | {r.acc_a:.3f} | {r.acc_b:.3f} | {r.diff:+.3f} | [{r.ci_low:+.3f}, {r.ci_high:+.3f}] | "
                  f"{'yes' if r.excludes_zero else 'no'} |" for r in rows]
        lines += ["", f"{rows[0].tasks} judged tasks in both; left out: {len(miss_b)} only in A, {len(miss_a)} "
                  f"only in B; {boot} resamples of tasks and of each run's samples, seed {seed}"]
        typer.echo("\n".join(lines))
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            doc = {"a": str(a), "b": str(b), "level": level, "boot": boot, "seed": seed, "only_in_a": miss_b,
                   "only_in_b": miss_a, "turns": [{**r.__dict__, "excludes_zero": r.excludes_zero} for r in rows]}
            (out / "compare.json").write_text(json.dumps(doc, indent=2) + "\n")
            (out / "compare.md").write_text("\n".join(["# leap compare", ""] + lines + ["", "![](compare.png)"]) + "\n")
            _plot(out / "compare.png", rows, a.name, b.name, level)
            typer.echo(f"wrote {out}/compare.json, compare.md, compare.png")
