"""``leap eval``: multi-turn evaluation of a policy on a task set (results.jsonl, summary.json, report.md)."""

from __future__ import annotations

from pathlib import Path

import typer

from leap.cli.common import fail, sandbox_config


def register(app: typer.Typer) -> None:
    @app.command("eval")
    def eval_(model: str = typer.Option(..., help="model folder (hf, vllm) or endpoint URL (openai)"),
              backend: str = typer.Option("hf", help="policy backend: hf, openai or vllm"),
              tasks: str = typer.Option("builtin:eval", help="task source: builtin[:split], a file, a folder, "
                                        "a KernelBench checkout or a built-in task name"),
              samples: int = typer.Option(1, min=1, help="samples per task"),
              turns: int = typer.Option(3, min=1, help="max turns per sample"),
              out: Path = typer.Option(..., help="output folder (a rerun resumes)"),
              kernel: str = typer.Option("triton", help="kernel backend asked for: triton, cuda_inline, cuda_nvrtc"),
              max_new_tokens: int = typer.Option(1024, min=1),
              temperature: float = typer.Option(0.7, min=0.0),
              top_p: float = typer.Option(1.0),
              seed: int = typer.Option(0),
              served_model: str = typer.Option("", help="openai backend: model name (default: the first listed)"),
              device: str = typer.Option("auto", help="sandbox and hf policy device: auto, cpu, cuda"),
              tasks_per_batch: int = typer.Option(8, min=1, help="tasks generated together"),
              cache: str = typer.Option("static", help="hf backend decode path: static, graph or dynamic"),
              limit: int = typer.Option(0, min=0, help="evaluate only the first N tasks (0 = all)"),
              prompt: str = typer.Option("leap", help="prompt mode: leap, kernelbench (KernelBench's one-shot "
                                         "prompt for --kernel), or demo (a `leap demo` policy's compact "
                                         "prompt, on the demo's task files)"),
              kernelbench_root: str = typer.Option("", help="kernelbench prompt mode: a KernelBench checkout whose "
                                                   "prompt templates are used (else LEAP's wording, same "
                                                   "structure)"),
              checkpoint: str = typer.Option("", help="hf backend: a `leap sft` / `leap train` checkpoint (dir "
                                             "or root) whose trained weights are applied to MODEL"),
              rules: str = typer.Option("leap", help="sandbox rules: leap, or kernelbench (KernelBench's own: PyTorch "
                                        "ops allowed in ModelNew; LEAP's strict verdict kept beside as strict_gate)"),
              sandbox_set: list[str] = typer.Option([], "--sandbox-set", help="a sandbox setting as KEY=VALUE "
                                                    "(repeatable), e.g. workers=4 or judge_memory_share=0.3")) -> None:
        """Run MODEL through multi-turn episodes on TASKS and write results, summary and report to OUT."""
        from leap.evaluation.runner import EvalConfig, run_eval
        from leap.progress import Progress
        from leap.rollout.episode import EpisodeConfig, sandbox_verifier
        from leap.rollout.kb_prompt import prompt_mode_fn
        from leap.rollout.policies import PolicyError, SamplingParams, load_policy
        from leap.rollout.prompts import BACKENDS, PromptError
        from leap.sandbox import Sandbox
        from leap.tasks.suite import iter_task_source
        from leap.tasks.task import TaskError

        if rules not in ("leap", "kernelbench"):
            fail(f"--rules: expected leap or kernelbench (got {rules!r})")
        sb_cfg = sandbox_config(sandbox_set, rules=rules)
        if kernel not in BACKENDS:
            fail(f"--kernel: unknown kernel backend {kernel!r} (expected one of {', '.join(BACKENDS)})")
        try:  # the same builder as the trainer's rollout.prompt
            prompt_fn = None if prompt == "demo" else prompt_mode_fn(prompt, kernel, kernelbench_root or None)
        except PromptError as exc:
            fail(f"--prompt {prompt}: {exc}")
        try:
            task_list = list(iter_task_source(tasks))
        except (TaskError, KeyError, ValueError) as exc:
            fail(f"--tasks {tasks}: {exc}")
        if limit:
            task_list = task_list[:limit]
        if not task_list:
            fail(f"--tasks {tasks}: no tasks")
        if prompt == "demo":
            from leap.demo.episodes import chat_prompt_fn, spec_from_source

            specs = {}
            for t in task_list:
                try:
                    specs[t.name] = spec_from_source(t.source)
                except (SyntaxError, ValueError) as exc:
                    fail(f"--prompt demo: task {t.name} ({t.origin}): {exc}")
            prompt_fn = chat_prompt_fn(specs)
        kwargs: dict = {}
        if backend == "openai":
            kwargs = {"model_name": served_model or None}
        elif backend == "hf":
            kwargs = {"device": device, "cache": cache}
        try:
            source = model
            if checkpoint:
                if backend != "hf":
                    fail("--checkpoint: only with --backend hf")
                from leap.trainer.config import ConfigError
                from leap.trainer.finetuned import load_finetuned

                try:
                    source = load_finetuned(model, checkpoint, device)
                except (ConfigError, OSError) as exc:
                    fail(f"--checkpoint {checkpoint}: {exc}")
            policy = load_policy(backend, source, **kwargs)
        except PolicyError as exc:
            fail(str(exc))
        params = SamplingParams(max_new_tokens=max_new_tokens, temperature=temperature, top_p=top_p, seed=seed)
        sampling = {"max_new_tokens": max_new_tokens, "temperature": temperature, "top_p": top_p, "seed": seed,
                    "samples": samples, "turns": turns, "kernel": kernel, "prompt": prompt,
                    "kernelbench_root": kernelbench_root or None, "limit": limit, "rules": rules,
                    "sandbox_set": list(sandbox_set)}
        cfg = EvalConfig(samples=samples, turns=turns, tasks_per_batch=tasks_per_batch, sampling=sampling,
                         prompt_mode=prompt, episode=EpisodeConfig(max_turns=turns, backend=kernel, params=params,
                                                                   prompt_fn=prompt_fn))
        total = len(task_list) * samples
        with Sandbox(sb_cfg, device=device) as sb, Progress(total, label="eval samples") as bar:
            bar.stage(f"episodes of {tasks_per_batch} tasks at a time (generation + sandbox)")
            try:
                summary = run_eval(policy, task_list, sandbox_verifier(sb, device=device), out, cfg,
                                   progress=bar.advance)
            except PolicyError as exc:
                fail(str(exc))
        acc = ", ".join(f"{a:.3f}" for a in summary["acc_at_turn"])
        typer.echo(f"acc_at_turn [{acc}]  sandbox_evals {summary['sandbox_evals']}  -> {out / 'summary.json'}")
        for key, kb in summary.items():  # kernelbench, or kernelbench_level{N} per level of a whole checkout
            if not (key.startswith("kernelbench") and isinstance(kb, dict)) or key.startswith("kernelbench_last_turn"):
                continue
            tag = key[len("kernelbench"):]
            fast = "  ".join(f"{k} {v:.3f}" for k, v in kb.items() if k.startswith("fast_") and v is not None)
            typer.echo(f"kernelbench{' ' + tag[1:] if tag else ''} (sample 0, turn 1): correct {kb.get('correct', 0)}/"
                       f"{kb.get('problems', 0)}  compiled {kb.get('compiled', 0)}  {fast}  "
                       f"-> {out / f'eval_results{tag}.json'}")
