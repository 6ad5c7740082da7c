"""`model.demo` for `leap train`: the demo's SFT policy, tasks and compact prompts as the parts that
`leap.trainer.loop.train` takes injected (policy, tasks, sampler, prompt_fn); the sandbox stays real."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from leap.trainer.config import TrainConfig


def _has_policy(path: Path) -> bool:
    return (path / "tokenizer.json").is_file() and (path / "config.json").is_file()


def build_sft_policy(dest: Path, seed: int, log: Callable[[str], None] = print) -> None:
    """Run the demo's quick data + SFT stage (real sandbox) and save the SFT policy into ``dest``.

    Safe under several processes at once (the ranks of `accelerate launch`): one builds under a file
    lock, into a private folder renamed into place; the others wait and find it built."""
    import fcntl
    import os
    import shutil

    from leap.demo.episodes import Verifier
    from leap.demo.pipeline import prepare, quick_config
    from leap.sandbox import Sandbox

    os.environ.setdefault("TRITON_INTERPRET", "1")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(dest.parent / f".{dest.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _has_policy(dest):
            return
        work = dest.parent / f".{dest.name}.build.{os.getpid()}"
        log(f"model.demo: no policy in {dest}; building the demo's SFT policy (quick demo data + SFT, seed {seed})")
        with Sandbox(device="cpu") as sandbox:
            prepare(quick_config(seed), work, Verifier(sandbox, log=log), log)  # saves work/policy_sft
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(work / "policy_sft", dest)
        shutil.rmtree(work, ignore_errors=True)


def demo_parts(cfg: TrainConfig, log: Callable[[str], None] = print) -> tuple[dict, object]:
    """Keyword arguments for `leap.trainer.loop.train` when ``cfg.model.demo`` is set, and the
    `TinyPolicy` they train (save it with ``.save(dir)`` for `leap eval`)."""
    from leap.demo.episodes import CompactPolicy, Spend, compact_prompt_fn
    from leap.demo.family import compact_spec, make_task
    from leap.demo.pipeline import policy_model, quick_config, task_split
    from leap.demo.policy import TinyPolicy

    demo = cfg.model.demo
    assert demo is not None
    path = Path(demo.dir)
    if not _has_policy(path):
        if not demo.build_if_missing:
            raise ValueError(f"model.demo.dir: {path} holds no demo policy (tokenizer.json + config.json)")
        build_sft_policy(path, demo.seed, log)
    policy = TinyPolicy.load(path, device="cpu" if cfg.device != "cuda" else "cuda")
    _, rl_chains, _ = task_split(quick_config(demo.seed))
    tasks = [make_task(c, "train") for c in rl_chains]
    specs = {t.name: compact_spec(c) for t, c in zip(tasks, rl_chains, strict=True)}
    log(f"model.demo: policy {path}, {len(tasks)} demo RL tasks (compact prompts), real sandbox")
    return {"policy": policy_model(policy), "tasks": tasks, "sampler": CompactPolicy(policy, Spend()),
            "prompt_fn": compact_prompt_fn(specs)}, policy
