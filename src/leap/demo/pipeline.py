"""The demo pipeline: tasks -> verified SFT pairs -> tiny policy (SFT) -> eval -> LEAP RL -> eval.

SFT is a short supervised loop over the trainer's `sft_step`; RL is the trainer's own loop
(`leap.trainer.loop.train`) with the tiny policy, the demo's tasks/prompts and the sandbox verifier
injected; ablation variants are the YAML overlays of `leap.trainer.config.variant_overlay`.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import SimpleNamespace

import torch

from leap.algorithms.config import DCPConfig
from leap.demo.episodes import Verifier, acc_at_turns, run_groups
from leap.demo.family import compact_spec, make_task, perturb, solution, split_chains
from leap.demo.policy import (
    EOS,
    PAD,
    TinyConfig,
    TinyPolicy,
    build_model,
    build_prompt,
    format_answer,
    train_tokenizer,
)
from leap.durable import atomic_write_jsonl, atomic_write_text
from leap.evaluation.metrics import results_from_groups, status_counts, turns_per_success

VARIANTS = ("leap", "single_turn", "multiturn_no_pruning", "grpo_scalar_reward")  # = leap.trainer.config.VARIANTS


@dataclass
class DemoConfig:
    """Every knob of one demo run (defaults: the full demo on 2 CPU cores)."""

    seed: int = 0
    device: str = "cpu"
    variant: str = "leap"
    n_train: int = 300
    rl_pool: str = "sft"  # RL tasks: "sft" (the SFT tasks), "fresh" (n_rl_pool new tasks) or "mixed" (both)
    n_rl_pool: int = 300  # fresh generated RL tasks, disjoint from the SFT and held-out tasks
    n_eval: int = 32
    max_len: int = 4
    n_repair: int = 60
    eval_samples: int = 16
    sft_steps: int = 400
    sft_batch: int = 16
    sft_lr: float = 3e-3
    rl_steps: int = 15
    tasks_per_step: int = 8
    group_size: int = 8
    max_turns: int = 3
    rl_lr: float = 3e-4
    rl_passes: int = 2  # optimisation passes over each step's rollout batch (PPO-clip keeps them close)
    rl_minibatch: int = 32  # turn samples per optimizer step (0 = the whole step's batch, one update)
    temperature: float = 1.0
    max_new_tokens: int = 64
    model: TinyConfig = field(default_factory=TinyConfig)


def quick_config(seed: int = 0) -> DemoConfig:
    """The shortened demo (CI): fewer tasks, samples and steps."""
    return DemoConfig(seed=seed, n_train=150, n_eval=12, n_repair=20, eval_samples=2, sft_steps=300,
                      rl_steps=2, tasks_per_step=4, group_size=4)


def _status_counts(verdicts) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in verdicts:
        out[v.status] = out.get(v.status, 0) + 1
    return out


def solvable(chains, verifier: Verifier) -> list:
    """Held-out chains whose template solution passes the sandbox (a few fail on rescaled inputs)."""
    tasks = [make_task(c, "eval") for c in chains]
    if verifier.log:
        verifier.log(f"held-out tasks: verifying the template solutions of {len(chains)} candidates")
    verdicts = verifier.verify([(t, solution(c)) for t, c in zip(tasks, chains, strict=True)])
    return [c for c, v in zip(chains, verdicts, strict=True) if v.correct]


def build_sft_data(cfg: DemoConfig, train_chains, verifier: Verifier, log: Callable[[str], None]):
    """Verified (prompt, answer) pairs: template solutions, plus repair turns from wrong attempts."""
    tasks = [make_task(c, "train") for c in train_chains]
    log(f"SFT data: verifying {len(tasks)} template solutions in the sandbox")
    verdicts = verifier.verify([(t, solution(c)) for t, c in zip(tasks, train_chains, strict=True)])
    rows = []
    for t, c, v in zip(tasks, train_chains, verdicts, strict=True):
        if v.correct:
            rows.append({"task_id": t.name, "prompt": build_prompt(compact_spec(c)),
                         "answer": format_answer(solution(c)), "verdict": v.status, "turn": 1})
    log(f"SFT pairs: {len(rows)}/{len(tasks)} template solutions verified ({_status_counts(verdicts)})")
    rng = random.Random(cfg.seed + 1)
    picks = [i for i, v in enumerate(verdicts) if v.correct]
    rng.shuffle(picks)
    wrong = [(i, perturb(train_chains[i], rng)) for i in picks[:cfg.n_repair]]
    wverd = verifier.verify([(tasks[i], solution(w)) for i, w in wrong])
    n_rep = 0
    for (i, w), v in zip(wrong, wverd, strict=True):
        if v.correct:  # the perturbation happened to be equivalent; not a repair example
            continue
        c = train_chains[i]
        rows.append({"task_id": tasks[i].name,
                     "prompt": build_prompt(compact_spec(c), [(solution(w), v.feedback)]),
                     "answer": format_answer(solution(c)), "verdict": "ok", "turn": 2})
        n_rep += 1
    log(f"repair pairs: {n_rep} (wrong attempt + real sandbox feedback -> verified solution)")
    return rows


def sft_examples(policy: TinyPolicy, rows) -> list:
    """The trainer's `SFTExample`s (prompt ids, answer ids + EOS) from the verified pairs."""
    from leap.trainer.sft import SFTExample

    return [SFTExample(policy.encode(r["prompt"]), policy.encode(r["answer"]) + [EOS]) for r in rows]


def sft_update(pm, batch: list, opt: torch.optim.Optimizer, device: str) -> float:
    """One supervised step through `leap.trainer.sft.sft_step` (answer-token NLL), clipped at norm 1."""
    from leap.trainer.optim import clip_grad
    from leap.trainer.sft import sft_step

    pm.model.train()
    opt.zero_grad(set_to_none=True)
    loss, _ = sft_step(pm, batch, len(batch), device)
    clip_grad(pm.trainable_parameters(), 1.0)
    opt.step()
    return loss


def policy_model(policy: TinyPolicy):
    """The trainer's `PolicyModel` view of the tiny policy (full fine-tuning, pad id 0)."""
    from leap.trainer.model import PolicyModel

    return PolicyModel(model=policy.model, tokenizer=SimpleNamespace(pad_token_id=PAD), lora=False)


def train_sft(policy: TinyPolicy, rows, cfg: DemoConfig, log: Callable[[str], None]) -> list[float]:
    data = sft_examples(policy, rows)
    pm = policy_model(policy)
    opt = torch.optim.AdamW(policy.model.parameters(), lr=cfg.sft_lr, weight_decay=0.0)
    rng = random.Random(cfg.seed + 2)
    losses = []
    t0 = shown = time.perf_counter()
    for step in range(1, cfg.sft_steps + 1):
        losses.append(sft_update(pm, rng.sample(data, min(cfg.sft_batch, len(data))), opt, cfg.device))
        if step == cfg.sft_steps or time.perf_counter() - shown >= 10:
            shown = time.perf_counter()
            log(f"SFT step {step}/{cfg.sft_steps} loss {sum(losses[-50:]) / len(losses[-50:]):.4f} "
                f"({time.perf_counter() - t0:.0f}s)")
    return losses


def evaluate(policy: TinyPolicy, chains, verifier: Verifier, cfg: DemoConfig, label: str,
             log: Callable[[str], None]) -> dict:
    """Held-out Acc@turn 1..max_turns: ``eval_samples`` samples per task, every failure gets feedback turns."""
    tasks = [make_task(c, "eval") for c in chains]
    log(f"eval [{label}]: {len(chains)} held-out tasks x {cfg.eval_samples} samples, up to {cfg.max_turns} turns")
    before = verifier.spend.requested
    groups = run_groups(policy, tasks, [compact_spec(c) for c in chains], verifier,
                        group_size=cfg.eval_samples, max_turns=cfg.max_turns,
                        dcp=DCPConfig(enabled=False), temperature=cfg.temperature,
                        max_new_tokens=cfg.max_new_tokens)
    acc = acc_at_turns(groups, cfg.max_turns)
    solved_any = sum(1 for g in groups if any(tr.turns[0].solved for tr in g.trajectories))
    by_len: dict[int, list[float]] = {}
    for c, g in zip(chains, groups, strict=True):
        by_len.setdefault(len(c), []).extend(float(tr.turns[0].solved) for tr in g.trajectories)
    results = results_from_groups(groups)
    res = {"label": label, "acc_at_turn": acc, "turns_per_success": turns_per_success(results),
           "status_by_turn": status_counts(results, cfg.max_turns), "tasks": len(chains), "samples_per_task": cfg.eval_samples,
           "tasks_solved_turn1_any": solved_any,
           "acc1_by_chain_length": {k: sum(v) / len(v) for k, v in sorted(by_len.items())},
           "sandbox_evals": verifier.spend.requested - before}
    log(f"eval [{label}] Acc@turn " + " / ".join(f"{a:.3f}" for a in acc)
        + f" on {len(chains)} held-out tasks x {cfg.eval_samples} samples; turn-1 solved (any) "
        f"{solved_any}/{len(chains)}")
    return res


def trainer_config(cfg: DemoConfig, out: Path | None = None):
    """The demo's RL run as a `TrainConfig`: its base, with the ablation variant's YAML overlay on top."""
    from leap.trainer.config import merge, validate, variant_overlay

    base = {"model": {"tiny": {}, "finetune": "full"}, "steps": cfg.rl_steps, "seed": cfg.seed,
            "device": "cpu" if cfg.device == "cpu" else "cuda", "run_name": f"demo_{cfg.variant}",
            "output_dir": str((out or Path("runs/demo")) / f"rl_{cfg.variant}"),
            "rollout": {"group_size": cfg.group_size, "tasks_per_step": cfg.tasks_per_step,
                        "max_turns": cfg.max_turns,
                        "sampling": {"temperature": cfg.temperature, "max_new_tokens": cfg.max_new_tokens}},
            "optim": {"lr": cfg.rl_lr, "micro_batch_size": cfg.rl_minibatch or 64,
                      "grad_accumulation": 1 if cfg.rl_minibatch else 0, "passes_per_batch": cfg.rl_passes},
            "checkpoint": {"every": 0, "keep_last": 1},
            "logging": {"progress": False, "status_line": False, "rollouts": False}}
    return validate(merge(base, variant_overlay(cfg.variant)), f"demo variant {cfg.variant}")


def train_rl(policy: TinyPolicy, rl_chains, verifier: Verifier, cfg: DemoConfig,
             log: Callable[[str], None], out: Path | None = None) -> list[dict]:
    """LEAP RL (or an ablation variant) through the trainer's own loop, `leap.trainer.loop.train`, with
    the tiny policy, the demo's tasks and prompts and the caching sandbox verifier injected."""
    from leap.demo.episodes import CompactPolicy, compact_prompt_fn
    from leap.trainer.loop import train

    tcfg = trainer_config(cfg, out)
    tasks = [make_task(c, "train") for c in rl_chains]
    specs = {t.name: compact_spec(c) for t, c in zip(tasks, rl_chains, strict=True)}
    rows: list[dict] = []
    spend = verifier.spend
    last = [spend.executed, spend.generate_s, spend.sandbox_s]

    def on_step(step: int, m: dict, groups) -> None:
        k = tcfg.rollout.max_turns
        row = {"step": step, "solved": m.get(f"acc/turn{k}", 0.0),
               "reward_mean": m.get("reward/mean"), "acc_at_turn": [m.get(f"acc/turn{t}", 0.0) for t in range(1, k + 1)],
               "groups": len(groups), "groups_expanded": m["dcp/groups_expanded"],
               "evals_spent": m["dcp/evals_spent"], "evals_all_expanded": m["dcp/evals_all"],
               "evals_saved": m["dcp/evals_saved"], "evals_executed": spend.executed - last[0],
               "generate_s": spend.generate_s - last[1], "sandbox_s": spend.sandbox_s - last[2],
               "train_s": m["time/train"], "step_s": m["time/step"], "loss": m.get("loss"),
               "grad_norm": m.get("grad_norm"), "entropy": m.get("entropy"), "train_samples": m.get("train_samples")}
        last[:] = [spend.executed, spend.generate_s, spend.sandbox_s]
        rows.append(row)
        log(f"RL step {step}/{cfg.rl_steps} [{cfg.variant}] solved {row['solved']:.3f} "
            f"acc@1 {row['acc_at_turn'][0]:.3f} expanded {row['groups_expanded']}/{len(groups)} "
            f"evals {row['evals_spent']} (all-expanded {row['evals_all_expanded']}) {row['step_s']:.0f}s")

    train(tcfg, verifier=verifier.verify, policy=policy_model(policy), tasks=tasks,
          sampler=CompactPolicy(policy, spend), prompt_fn=compact_prompt_fn(specs), on_step=on_step)
    return rows


@dataclass
class Prepared:
    """What every RL variant starts from: tasks, verified pairs and the SFT policy."""

    train_chains: list
    rl_chains: list
    held: list
    rows: list[dict]
    policy: TinyPolicy
    eval_sft: dict
    sft_seconds: float
    sft_loss: float


def task_split(cfg: DemoConfig) -> tuple[list, list, list]:
    """(SFT chains, RL chains, held-out candidates); held-out chains are disjoint from both others."""
    if cfg.rl_pool not in ("sft", "fresh", "mixed"):
        raise ValueError(f"rl_pool: expected sft, fresh or mixed, got {cfg.rl_pool!r}")
    n_fresh = cfg.n_rl_pool if cfg.rl_pool != "sft" else 0
    chains, held = split_chains(cfg.seed, cfg.n_train + n_fresh, cfg.n_eval + 8, cfg.max_len)
    train, fresh = chains[:cfg.n_train], chains[cfg.n_train:]
    return train, {"sft": train, "fresh": fresh, "mixed": train + fresh}[cfg.rl_pool], held


def prepare(cfg: DemoConfig, out: Path, verifier: Verifier, log: Callable[[str], None] = print) -> Prepared:
    """Tasks, verified SFT pairs (``sft.jsonl``), tokenizer, SFT, held-out eval of the SFT policy."""
    out.mkdir(parents=True, exist_ok=True)
    train_chains, rl_chains, held = task_split(cfg)
    held = solvable(held, verifier)[:cfg.n_eval]
    (out / "tasks").mkdir(exist_ok=True)
    for c in held + train_chains[-3:]:  # every held-out task (`leap eval --prompt demo`) and 3 train samples
        task = make_task(c, "eval" if c in held else "train")
        (out / "tasks" / f"{task.name}.py").write_text(task.source)
    rows = build_sft_data(cfg, train_chains, verifier, log)
    atomic_write_jsonl(out / "sft.jsonl", rows)
    torch.manual_seed(cfg.seed)
    tok = train_tokenizer([r["prompt"] + r["answer"] for r in rows], cfg.model.vocab_size)
    policy = TinyPolicy(tok, build_model(cfg.model, tok.get_vocab_size(), cfg.seed), cfg.device)
    n_params = sum(p.numel() for p in policy.model.parameters())
    log(f"tiny policy: {n_params / 1e6:.2f}M parameters, vocab {tok.get_vocab_size()}")
    t0 = time.perf_counter()
    losses = train_sft(policy, rows, cfg, log)
    t_sft = time.perf_counter() - t0
    ev = evaluate(policy, held, verifier, cfg, "after SFT", log)
    policy.save(out / "policy_sft")
    return Prepared(train_chains, rl_chains, held, rows, policy, ev, t_sft, sum(losses[-50:]) / max(1, len(losses[-50:])))


def run_demo(cfg: DemoConfig, out: str | Path, sandbox, log: Callable[[str], None] = print) -> dict:
    """Run the whole demo into ``out``; returns the summary (also written to ``summary.json``)."""
    out = Path(out)
    t_start = time.perf_counter()
    verifier = Verifier(sandbox, log=log)
    prep = prepare(cfg, out, verifier, log)
    torch.manual_seed(cfg.seed + 10)
    t_rl = time.perf_counter()
    log(f"LEAP RL [{cfg.variant}]: {cfg.rl_steps} steps x {cfg.tasks_per_step} tasks x G={cfg.group_size} "
        "through leap.trainer.loop.train")
    rl_rows = train_rl(prep.policy, prep.rl_chains, verifier, cfg, log, out)
    t_rl = time.perf_counter() - t_rl
    ev_rl = evaluate(prep.policy, prep.held, verifier, cfg, "after RL", log)
    prep.policy.save(out / "policy_rl")
    atomic_write_jsonl(out / "metrics.jsonl", rl_rows)
    summary = {"config": asdict(cfg), "params": sum(p.numel() for p in prep.policy.model.parameters()),
               "sft_pairs": len(prep.rows), "sft_loss_final": prep.sft_loss,
               "eval_sft": prep.eval_sft, "eval_rl": ev_rl, "rl": rl_rows,
               "sandbox_requested": verifier.spend.requested, "sandbox_executed": verifier.spend.executed,
               "seconds": {"total": time.perf_counter() - t_start, "sft": prep.sft_seconds, "rl": t_rl},
               "train_tasks": len(prep.train_chains), "rl_tasks": len(prep.rl_chains),
               "held_out_tasks": len(prep.held)}
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2))
    return summary
