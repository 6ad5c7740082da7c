"""Ablation on the demo's tiny policy: LEAP vs single-turn GRPO vs multi-turn without pruning vs scalar
reward — same seeds, same SFT start, same task sequence, same RL step budget. Writes docs/RESULTS.md.

    TRITON_INTERPRET=1 python bench/ablation.py --seeds 0 1 --rl-steps 8          # CPU
    python bench/ablation.py --device cuda --seeds 0 1 2 --rl-steps 20            # GPU (speed tiers on)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

# the variants are the YAML overlays of src/leap/trainer/variants/ (the same as configs/ and `leap demo`)
VARIANTS = ("leap", "single_turn", "multiturn_no_pruning", "grpo_scalar_reward")
LABEL = {"leap": "LEAP (tournament + DCP, 3 turns)", "single_turn": "single-turn (tournament, 1 turn)",
         "multiturn_no_pruning": "multi-turn, no pruning (tournament)",
         "grpo_scalar_reward": "Kevin-style scalar reward, no pruning (3 turns)"}


def run(args) -> dict:
    import torch

    from leap.demo.episodes import Verifier
    from leap.demo.pipeline import DemoConfig, evaluate, prepare, quick_config, train_rl
    from leap.sandbox import Sandbox

    torch.set_num_threads(args.threads)
    results: dict = {"seeds": {}, "args": vars(args)}
    with Sandbox(device=args.device) as sandbox:
        for seed in args.seeds:
            cfg = quick_config(seed) if args.quick else DemoConfig(seed=seed)
            cfg.device = args.device
            if args.rl_steps is not None:
                cfg.rl_steps = args.rl_steps
            if args.sft_steps is not None:
                cfg.sft_steps = args.sft_steps
            if args.rl_pool is not None:
                cfg.rl_pool = args.rl_pool
            if args.eval_samples is not None:
                cfg.eval_samples = args.eval_samples
            verifier = Verifier(sandbox)
            prep = prepare(cfg, Path(args.out) / f"seed{seed}", verifier, log=print)
            start = prep.policy.state_copy()
            per = {"eval_sft": prep.eval_sft}
            for variant in args.variants:
                prep.policy.model.load_state_dict(start)
                cfg.variant = variant
                torch.manual_seed(seed + 10)
                t0 = time.perf_counter()
                rows = train_rl(prep.policy, prep.rl_chains, verifier, cfg, log=print,
                                out=Path(args.out) / f"seed{seed}")
                wall = time.perf_counter() - t0
                ev = evaluate(prep.policy, prep.held, verifier, cfg, f"{variant} after RL", log=print)
                per[variant] = {"rl": rows, "eval": ev, "rl_seconds": wall}
            results["seeds"][str(seed)] = per
            results["config"] = {k: v for k, v in cfg.__dict__.items() if k != "model"}
    return results


def sft_sweep(args) -> list[dict]:
    """Held-out Acc@turn after k SFT steps (one run, evaluated at each budget in ``--sft-sweep``)."""
    import random

    import torch

    from leap.demo.episodes import Verifier
    from leap.demo.family import split_chains
    from leap.demo.pipeline import (
        DemoConfig,
        build_sft_data,
        evaluate,
        policy_model,
        sft_examples,
        sft_update,
        solvable,
    )
    from leap.demo.policy import TinyPolicy, build_model, train_tokenizer
    from leap.sandbox import Sandbox

    torch.set_num_threads(args.threads)
    budgets = sorted(int(x) for x in args.sft_sweep.split(","))
    out = []
    with Sandbox(device=args.device) as sandbox:
        for seed in args.seeds:
            cfg = DemoConfig(seed=seed, device=args.device)
            verifier = Verifier(sandbox)
            train, held = split_chains(seed, cfg.n_train, cfg.n_eval + 8, cfg.max_len)
            held = solvable(held, verifier)[:cfg.n_eval]
            rows = build_sft_data(cfg, train, verifier, print)
            torch.manual_seed(seed)
            tok = train_tokenizer([r["prompt"] + r["answer"] for r in rows], cfg.model.vocab_size)
            policy = TinyPolicy(tok, build_model(cfg.model, tok.get_vocab_size(), seed), cfg.device)
            data, pm = sft_examples(policy, rows), policy_model(policy)
            opt = torch.optim.AdamW(policy.model.parameters(), lr=cfg.sft_lr, weight_decay=0.0)
            rng = random.Random(seed + 2)
            step = 0
            for b in budgets:
                while step < b:
                    sft_update(pm, rng.sample(data, cfg.sft_batch), opt, cfg.device)
                    step += 1
                ev = evaluate(policy, held, verifier, cfg, f"seed {seed}, {b} SFT steps", print)
                out.append({"seed": seed, "sft_steps": b, **ev})
    return out


def write_sweep(rows: list[dict], docs: Path, cmd: str) -> None:
    lines = ["", "### Held-out accuracy against the SFT budget", "", f"Command: `{cmd}`", "",
             "| seed | SFT steps | Acc@turn1 | Acc@turn2 | Acc@turn3 | tasks solved at turn 1 (any sample) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        a = r["acc_at_turn"]
        lines.append(f"| {r['seed']} | {r['sft_steps']} | {a[0]:.3f} | {a[1]:.3f} | {a[2]:.3f} | "
                     f"{r['tasks_solved_turn1_any']}/{r['tasks']} |")
    path = docs / "RESULTS.md"
    text = path.read_text() if path.exists() else "# Results\n"
    marker = "\n## Further results\n"
    if marker not in text:
        text += marker
    path.write_text(text + "\n".join(lines) + "\n")


def _mean_sd(xs: list[float]) -> str:
    if not xs:
        return "-"
    if len(xs) == 1:
        return f"{xs[0]:.3f}"
    return f"{statistics.mean(xs):.3f} ± {statistics.stdev(xs):.3f}"


def plots(results: dict, docs: Path, prefix: str = "ablation") -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
    for v in results["args"]["variants"]:
        for k, (_seed, per) in enumerate(results["seeds"].items()):
            rows = per[v]["rl"]
            steps = [r["step"] for r in rows]
            acc = [r["acc_at_turn"][0] for r in rows]
            cum, s = [], 0
            for r in rows:
                s += r["evals_spent"]
                cum.append(s)
            color = f"C{results['args']['variants'].index(v)}"
            a1.plot(steps, acc, color=color, alpha=0.8, label=LABEL[v] if k == 0 else None)
            a2.plot(cum, acc, color=color, alpha=0.8, label=LABEL[v] if k == 0 else None)
    a1.set_xlabel("RL step")
    a2.set_xlabel("cumulative sandbox evaluations")
    for a in (a1, a2):
        a.set_ylabel("Acc@turn1 on the step's training groups")
        a.set_ylim(0, 1)
    a1.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(docs / f"{prefix}_curves.png", dpi=110)
    plt.close(fig)
    names.append(f"{prefix}_curves.png")
    fig, ax = plt.subplots(figsize=(7, 3.4))
    variants = results["args"]["variants"]
    w = 0.8 / (len(variants) + 1)
    sft = [[per["eval_sft"]["acc_at_turn"][t] for per in results["seeds"].values()] for t in range(3)]
    ax.bar([t - 0.4 + w / 2 for t in range(3)], [statistics.mean(x) for x in sft], w, label="SFT only",
           color="#999")
    for i, v in enumerate(variants):
        vals = [[per[v]["eval"]["acc_at_turn"][t] for per in results["seeds"].values()] for t in range(3)]
        ax.bar([t - 0.4 + w * (i + 1.5) for t in range(3)], [statistics.mean(x) for x in vals], w,
               yerr=[statistics.stdev(x) if len(x) > 1 else 0 for x in vals], label=LABEL[v], color=f"C{i}")
    ax.set_xticks(range(3), ["Acc@turn1", "Acc@turn2", "Acc@turn3"])
    ax.set_ylabel("held-out")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(docs / f"{prefix}_final.png", dpi=110)
    plt.close(fig)
    names.append(f"{prefix}_final.png")
    return names


NOISE = 0.03  # about 1.5 binomial s.e. of a difference of two held-out accuracies at 512 samples each
POOL = {"sft": "drawn from the SFT tasks", "fresh": "fresh generated tasks, disjoint from the SFT tasks",
        "mixed": "the SFT tasks plus fresh generated tasks"}


def section(results: dict, docs: Path, title: str, cmd: str, prefix: str = "ablation") -> list[str]:
    """Markdown of one ablation setting: setup, the table over variants, plots and the claim checks."""
    variants = results["args"]["variants"]
    seeds = list(results["seeds"].values())
    cfg = results["config"]
    names = plots(results, docs, prefix)
    agg: dict[str, dict[str, list[float]]] = {}
    for v in variants:
        a = agg[v] = {"acc1": [], "acc2": [], "acc3": [], "evals_step": [], "wall_step": [], "tps": [],
                      "expand": []}
        for per in seeds:
            ev, rows = per[v]["eval"], per[v]["rl"]
            for t in range(3):
                a[f"acc{t + 1}"].append(ev["acc_at_turn"][t])
            a["evals_step"].append(sum(r["evals_spent"] for r in rows) / len(rows))
            a["wall_step"].append(per[v]["rl_seconds"] / len(rows))
            if ev.get("turns_per_success") is not None:
                a["tps"].append(ev["turns_per_success"])
            a["expand"].append(sum(r["groups_expanded"] for r in rows) / max(1, sum(r["groups"] for r in rows)))
    sft = {t: [per["eval_sft"]["acc_at_turn"][t] for per in seeds] for t in range(3)}
    lines = [
        f"## {title}", "", f"Command: `{cmd}`", "",
        "Every variant starts from the same SFT checkpoint per seed (a 0.6M-parameter Qwen2-style decoder with "
        "its own line-level BPE tokenizer, trained from scratch on sandbox-verified pairs of generated "
        f"elementwise-chain tasks; {cfg['sft_steps']} SFT steps), sees the same sequence of RL tasks "
        f"({POOL.get(cfg.get('rl_pool', 'sft'), '?')}) and runs the same number of RL "
        f"steps ({cfg['rl_steps']} steps × {cfg['tasks_per_step']} tasks × G={cfg['group_size']}; AdamW lr "
        f"{cfg['rl_lr']:g}, {cfg.get('rl_passes', 1)} passes over each step's turn samples in minibatches of "
        f"{cfg.get('rl_minibatch') or 'all'}). Held-out: "
        f"{seeds[0]['eval_sft']['tasks']} tasks (op chains disjoint from the SFT/RL tasks) × "
        f"{cfg['eval_samples']} samples at temperature {cfg['temperature']}, up to 3 turns with sandbox "
        "feedback for every failing sample. "
        f"Seeds: {', '.join(results['seeds'])} (mean ± sample s.d. across seeds where > 1). CPU: correctness "
        "through the Triton interpreter, no timing, so speed tiers are absent from the tournament and the "
        "scalar reward reduces to 0.3·correct.", "",
        "| variant | held-out Acc@turn1 | Acc@turn2 | Acc@turn3 | sandbox evals / step | groups expanded | "
        "wall-clock s / step | turns per success |",
        "|---|---|---|---|---|---|---|---|",
        f"| SFT only (start) | {_mean_sd(sft[0])} | {_mean_sd(sft[1])} | {_mean_sd(sft[2])} | - | - | - | - |",
    ]
    for v in variants:
        a = agg[v]
        lines.append(f"| {LABEL[v]} | {_mean_sd(a['acc1'])} | {_mean_sd(a['acc2'])} | {_mean_sd(a['acc3'])} | "
                     f"{_mean_sd(a['evals_step'])} | {statistics.mean(a['expand']):.0%} | "
                     f"{_mean_sd(a['wall_step'])} | {_mean_sd(a['tps'])} |")
    lines += ["", "Per seed, held-out Acc@turn1 / Acc@turn3:", "",
              "| seed | SFT start | " + " | ".join(LABEL[v] for v in variants) + " |",
              "|---" * (len(variants) + 2) + "|"]
    for seed, per in results["seeds"].items():
        cells = [f"{per['eval_sft']['acc_at_turn'][0]:.3f} / {per['eval_sft']['acc_at_turn'][2]:.3f}"]
        cells += [f"{per[v]['eval']['acc_at_turn'][0]:.3f} / {per[v]['eval']['acc_at_turn'][2]:.3f}"
                  for v in variants]
        lines.append(f"| {seed} | " + " | ".join(cells) + " |")
    lines += ["", *[f"![{n}]({n})" for n in names], "", "Claims checked:", ""]
    if "leap" in agg and "multiturn_no_pruning" in agg:
        e_l, e_n = statistics.mean(agg["leap"]["evals_step"]), statistics.mean(agg["multiturn_no_pruning"]["evals_step"])
        cut = 1 - e_l / e_n if e_n else 0.0
        d3 = statistics.mean(agg["leap"]["acc3"]) - statistics.mean(agg["multiturn_no_pruning"]["acc3"])
        ok = cut >= 0.40 and d3 >= 0
        lines.append(f"- **DCP vs unpruned multi-turn** (target: ≥ 40% fewer sandbox evaluations per step at "
                     f"equal or better final Acc@turn3): {cut:.0%} fewer evaluations per step "
                     f"({e_l:.1f} vs {e_n:.1f}); final Acc@turn3 difference {d3:+.3f}. "
                     f"{'Holds here.' if ok else 'Does NOT hold here.'}")
    if "leap" in agg and "grpo_scalar_reward" in agg:
        d1 = statistics.mean(agg["leap"]["acc1"]) - statistics.mean(agg["grpo_scalar_reward"]["acc1"])
        lines.append(f"- **Rank-based vs scalar reward** (claim: better first-turn proficiency): held-out "
                     f"Acc@turn1 difference {d1:+.3f} (tournament minus scalar). "
                     + ("Consistent with the claim." if d1 >= NOISE else
                        f"Within noise (|difference| < {NOISE}); not shown here." if abs(d1) < NOISE else
                        "Not observed here."))
    if "leap" in agg and "single_turn" in agg:
        d3 = statistics.mean(agg["leap"]["acc3"]) - statistics.mean(agg["single_turn"]["acc3"])
        lines.append(f"- **LEAP vs single-turn GRPO**: final Acc@turn3 difference {d3:+.3f}.")
    if "leap" in agg:
        ups = [per["leap"]["eval"]["acc_at_turn"][0] - per["eval_sft"]["acc_at_turn"][0]
               for per in seeds]
        d1 = statistics.mean(agg["leap"]["acc1"]) - statistics.mean(sft[0])
        lines.append(f"- **RL over SFT** (LEAP): held-out Acc@turn1 {statistics.mean(sft[0]):.3f} -> "
                     f"{statistics.mean(agg['leap']['acc1']):.3f} ({d1:+.3f}); per seed "
                     + ", ".join(f"{u:+.3f}" for u in ups)
                     + f" ({sum(u > 0 for u in ups)} of {len(ups)} seeds up).")
    return lines + [""]


def write_results(results: dict, docs: Path, cmd: str, extra: list[tuple[dict, str, str]] = ()) -> Path:
    """RESULTS.md: header, the main ablation, any ``extra`` (results, title, command) settings, then the
    kept ``## Further results`` tail of the existing file."""
    lines = [
        "# Results", "",
        f"Generated by `bench/ablation.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: "
        f"{platform.node()}, {os.cpu_count()} CPU cores ({platform.machine()}), device `{results['args']['device']}`, "
        f"Python {platform.python_version()}.", "",
        *section(results, docs, "Ablation on the tiny policy (the demo's settings)", cmd),
    ]
    for k, (res, title, c) in enumerate(extra):
        lines += section(res, docs, title, c, prefix=f"ablation_extra{k + 1}")
    lines += ["Sandbox evaluations count every turn the algorithm asked to verify; within one run, identical "
              "(task, code) pairs are executed once (cached), which changes wall-clock only. Binomial s.e. of "
              "one held-out accuracy ≈ 0.02 at 512 samples (≈ 0.03 for a difference of two); the RL outcome of "
              "one variant differs between seeds by far more than that, so compare variants within a seed and "
              "read the per-seed tables.", ""]
    path = docs / "RESULTS.md"
    prev = path.read_text() if path.exists() else ""
    marker = "\n## Further results\n"
    tail = prev[prev.index(marker):] if marker in prev else ""
    path.write_text("\n".join(lines) + tail)
    return path


def merge(parts: list[dict]) -> dict:
    """One results dict from runs of different seeds (same variants and config)."""
    out = dict(parts[0])
    out["seeds"] = {}
    for part in parts:
        if {k: v for k, v in part["config"].items() if k != "seed"} != \
                {k: v for k, v in parts[0]["config"].items() if k != "seed"}:
            raise SystemExit("--from-json: the runs differ in their config; merge only runs of one setting")
        out["seeds"].update(part["seeds"])
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--rl-steps", type=int, default=None)
    ap.add_argument("--sft-steps", type=int, default=None)
    ap.add_argument("--rl-pool", default=None, choices=("sft", "fresh", "mixed"),
                    help="RL tasks: the SFT tasks, fresh generated tasks, or both (default: the demo's)")
    ap.add_argument("--eval-samples", type=int, default=None, help="samples per held-out task")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default="runs/ablation")
    ap.add_argument("--docs", default="docs")
    ap.add_argument("--from-json", nargs="+", default=None,
                    help="only re-write RESULTS.md from results.json files (their seeds are merged)")
    ap.add_argument("--extra-json", nargs="+", default=None,
                    help="with --from-json: results.json files of a second setting (e.g. --rl-pool fresh)")
    ap.add_argument("--main-cmd", default=None, help="with --from-json: the command(s) that produced the runs")
    ap.add_argument("--extra-title", default="Ablation with fresh RL tasks")
    ap.add_argument("--extra-cmd", default="")
    ap.add_argument("--sft-sweep", default=None, help="e.g. 100,200,300,600: Acc@turn against SFT steps")
    args = ap.parse_args(argv)
    if args.device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")
    docs = Path(args.docs)
    docs.mkdir(parents=True, exist_ok=True)
    cmd = "python " + " ".join(["bench/ablation.py", *(argv if argv is not None else sys.argv[1:])])
    if args.sft_sweep:
        rows = sft_sweep(args)
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "sft_sweep.json").write_text(json.dumps(rows, indent=1))
        write_sweep(rows, docs, cmd)
        print(f"wrote {docs / 'RESULTS.md'}")
        return
    if args.from_json:
        results = merge([json.loads(Path(f).read_text()) for f in args.from_json])
        cmd = args.main_cmd or cmd
    else:
        results = run(args)
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "results.json").write_text(json.dumps(results, indent=1))
    extra = []
    if args.extra_json:
        extra.append((merge([json.loads(Path(f).read_text()) for f in args.extra_json]), args.extra_title,
                      args.extra_cmd))
    print(f"wrote {write_results(results, docs, cmd, extra)}")


if __name__ == "__main__":
    main()
