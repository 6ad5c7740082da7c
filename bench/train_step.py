"""One `leap train` step, timed: generate / sandbox / train seconds and generation tokens/s (issue 13).

Runs the trainer's own code (`leap.trainer.rollouts.Rollouts` + `leap.trainer.step.train_on_groups`) for
one or more *variants* of a config on one loaded model, one step each (a warm-up step first unless
``--no-warmup``). Variants:

* ``old`` — the settings the 0.5B runs used: ``kv_cache: dynamic``, generation batches of 16 (chunked
  with overlap), model left in train mode with gradient checkpointing while sampling (``--old-train-mode``
  reproduces that; the trainer now always samples in eval mode);
* ``new`` — the config as written (configs/qwen15b_h200.yaml: one batch of 128, static cache + CUDA graph).

The model is ``model.path`` from the config, or random weights (``--random tiny|0.5b|1.5b``, vocabulary
= the tiny tokenizer's, so completions are rarely code and the sandbox seldom runs). Verification is the
real sandbox (``--verifier sandbox``) or none (``--verifier none``: every candidate "incorrect").

    python bench/train_step.py --config configs/qwen15b_h200.yaml --variants old:2,new:2,new:16 --out OUT.json
    python bench/train_step.py --random tiny --device cpu --verifier none --tasks 2 --group 2 --new-tokens 8
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from leap.sandbox.judge.verdict import Verdict  # noqa: E402
from leap.trainer.config import load_config  # noqa: E402

SHAPES = {  # Qwen2 shapes: layers, hidden, heads, kv heads, intermediate
    "tiny": (2, 64, 4, 2, 128),
    "0.5b": (24, 896, 14, 2, 4864),
    "1.5b": (28, 1536, 12, 2, 8960),
}
OLD = ["rollout.kv_cache=dynamic", "rollout.generation_batch_size=16", "rollout.overlap=true"]


def random_model(shape: str, folder: Path) -> str:
    """Save a random-weight Qwen2 of ``shape`` with the tiny BPE tokenizer into ``folder``."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from leap.models.tiny import build_tiny_tokenizer

    layers, hidden, heads, kv, inter = SHAPES[shape]
    tok = build_tiny_tokenizer()
    cfg = Qwen2Config(vocab_size=len(tok), hidden_size=hidden, intermediate_size=inter, num_hidden_layers=layers,
                      num_attention_heads=heads, num_key_value_heads=kv, max_position_embeddings=32768,
                      rope_theta=1e6, tie_word_embeddings=True, eos_token_id=tok.eos_token_id,
                      pad_token_id=tok.pad_token_id)
    torch.manual_seed(0)
    Qwen2ForCausalLM(cfg).save_pretrained(folder)
    tok.save_pretrained(folder)
    return str(folder)


def no_verifier(pairs):
    return [Verdict(status="incorrect", feedback="(bench: no sandbox)") for _ in pairs]


@contextlib.contextmanager
def train_mode_sampling(policy, enabled: bool):
    """Reproduce the old path: sampling with the model in train mode (+ its gradient checkpointing)."""
    if not enabled:
        yield
        return
    import leap.trainer.rollouts as ro

    saved = ro.generation_mode

    @contextlib.contextmanager
    def train_mode(model):
        model.train()
        yield model
    ro.generation_mode = train_mode
    try:
        yield
    finally:
        ro.generation_mode = saved


def one_step(policy, cfg, tasks, verifier, device) -> dict:
    from leap.trainer.optim import build_optimizer, build_scheduler
    from leap.trainer.rollouts import Rollouts
    from leap.trainer.step import train_on_groups

    params = policy.trainable_parameters()
    opt = build_optimizer(params, cfg.optim)
    sched = build_scheduler(opt, cfg.optim, 1)
    with Rollouts(policy, cfg, verifier=verifier) as ro:
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        groups, timing = ro.collect(tasks)
        t1 = time.perf_counter()
        m = train_on_groups(policy, opt, sched, groups, cfg, device, params)
        if device.type == "cuda":
            torch.cuda.synchronize()
        t2 = time.perf_counter()
    turns = [t for g in groups for tr in g.trajectories for t in tr.turns]
    toks = sum(t.completion_tokens for t in turns)
    statuses: dict[str, int] = {}
    for t in turns:
        statuses[t.verdict.status] = statuses.get(t.verdict.status, 0) + 1
    return {"generate_s": timing["generate"], "sandbox_s": timing["sandbox"], "rollout_s": t1 - t0,
            "train_s": t2 - t1, "step_s": t2 - t0, "generations": len(turns), "completion_tokens": toks,
            "gen_tokens_per_s": toks / max(timing["generate"], 1e-9), "train_tokens": m.get("train_tokens", 0),
            "statuses": statuses}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="configs/qwen15b_h200.yaml")
    ap.add_argument("--set", action="append", default=[], help="config override key=value (repeatable)")
    ap.add_argument("--random", choices=sorted(SHAPES), help="random weights of this shape instead of model.path")
    ap.add_argument("--variants", default="old,new", help="comma list of old / new, each optionally :GROUPS")
    ap.add_argument("--old-train-mode", action="store_true", help="old variant samples in train mode")
    ap.add_argument("--verifier", choices=["sandbox", "none"], default="sandbox")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--tasks", type=int, help="groups per step (default: the config's)")
    ap.add_argument("--group", type=int, help="G (default: the config's)")
    ap.add_argument("--new-tokens", type=int, help="max new tokens (default: the config's)")
    ap.add_argument("--no-warmup", action="store_true")
    ap.add_argument("--out", help="write the results as JSON here (and a Markdown table next to it)")
    a = ap.parse_args(argv)

    sets = [f"device={a.device}", *a.set]
    if a.tasks:
        sets.append(f"rollout.tasks_per_step={a.tasks}")
    if a.group:
        sets.append(f"rollout.group_size={a.group}")
    if a.new_tokens:
        sets.append(f"rollout.sampling.max_new_tokens={a.new_tokens}")
    tmp = tempfile.TemporaryDirectory()
    if a.random:
        sets += [f"model.path={random_model(a.random, Path(tmp.name) / 'm')}", "model.init_from=null"]
        if a.device == "cpu":
            sets += ["model.dtype=float32", "rollout.sandbox_device=cpu"]
    cfg = load_config(a.config, sets)
    from leap.trainer.loop import load_tasks
    from leap.trainer.model import load_policy, resolve_device

    device = resolve_device(cfg.device)
    t0 = time.perf_counter()
    policy = load_policy(cfg.model, device)
    load_s = time.perf_counter() - t0
    all_tasks = load_tasks(cfg.rollout)
    tasks = [all_tasks[i % len(all_tasks)] for i in range(cfg.rollout.tasks_per_step)]
    verifier = no_verifier if a.verifier == "none" else None
    results = {"command": " ".join(sys.argv), "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
               "device": torch.cuda.get_device_name(0) if device.type == "cuda" else platform.processor() or "cpu",
               "model": cfg.model.path, "load_s": load_s, "groups": len(tasks), "G": cfg.rollout.group_size,
               "max_new_tokens": cfg.rollout.sampling.max_new_tokens, "max_turns": cfg.rollout.max_turns,
               "variants": {}}
    for spec in [v.strip() for v in a.variants.split(",") if v.strip()]:
        name, _, n = spec.partition(":")
        if name not in ("old", "new") or (n and not n.isdigit()):
            print(f"unknown variant {spec!r} (expected old or new, optionally :GROUPS)", file=sys.stderr)
            return 2
        vcfg = load_config(a.config, sets + (OLD if name == "old" else []))
        vtasks = [all_tasks[i % len(all_tasks)] for i in range(int(n))] if n else tasks
        with train_mode_sampling(policy, name == "old" and a.old_train_mode):
            if not a.no_warmup:
                one_step(policy, vcfg, vtasks[:1], verifier, device)
            r = one_step(policy, vcfg, vtasks, verifier, device)
        r["groups"] = len(vtasks)
        name = spec
        r["settings"] = {"kv_cache": vcfg.rollout.kv_cache, "generation_batch_size": vcfg.rollout.generation_batch_size,
                         "overlap": vcfg.rollout.overlap, "train_mode_sampling": name == "old" and a.old_train_mode}
        results["variants"][name] = r
        print(f"{name}: step {r['step_s']:.1f}s = generate {r['generate_s']:.1f}s + sandbox {r['sandbox_s']:.1f}s "
              f"(+overlap) + train {r['train_s']:.1f}s; {r['completion_tokens']} tokens in {r['generations']} "
              f"generations, {r['gen_tokens_per_s']:.0f} tok/s; {r['statuses']}", flush=True)
    if a.out:
        out = Path(a.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2) + "\n")
        rows = ["| variant | groups | kv_cache | gen batch | step s | generate s | sandbox s | train s | tokens | tok/s |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for name, r in results["variants"].items():
            s = r["settings"]
            rows.append(f"| {name} | {r['groups']} | {s['kv_cache']} | {s['generation_batch_size']} | {r['step_s']:.1f} | "
                        f"{r['generate_s']:.1f} | {r['sandbox_s']:.1f} | {r['train_s']:.1f} | "
                        f"{r['completion_tokens']} | {r['gen_tokens_per_s']:.0f} |")
        out.with_suffix(".md").write_text(f"`{results['command']}` ({results['date']}, {results['device']}, "
                                          f"{results['groups']} groups x G={results['G']})\n\n" + "\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
