"""Cold-start SFT (`leap sft`): supervised fine-tuning on JSONL ``{"prompt", "answer"}`` pairs.

``prompt`` is chat messages (``[{"role": ..., "content": ...}, ...]``) or plain text (sent as one user
message); ``answer`` is the assistant's reply. The loss is the mean negative log-likelihood of the
answer tokens only (prompt tokens are masked), normalised over all answer tokens of an optimizer step,
so micro-batch size and gradient accumulation do not change it. Same model, optimizer, checkpoint and
logging machinery as `leap train`.
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from leap.progress import Progress
from leap.trainer.checkpoint import (
    StopFlag,
    load_checkpoint,
    resume_or_fresh,
    save_checkpoint,
    seed_everything,
)
from leap.trainer.config import ConfigError, TrainConfig, dump_config
from leap.trainer.logging import MetricsLogger, headline
from leap.trainer.model import PolicyModel, load_policy, resolve_device
from leap.trainer.optim import build_optimizer, build_scheduler, step_if_finite
from leap.trainer.tokens import pad_right, token_logprobs


@dataclass
class SFTExample:
    prompt_ids: list[int]
    answer_ids: list[int]


def render_prompt(tokenizer, messages: list[dict]) -> str:
    """Chat messages -> the text the model sees before its answer (chat template when it has one)."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in messages) + "<|assistant|>\n"


def _messages(prompt, where: str) -> list[dict]:
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}]
    ok = isinstance(prompt, list) and prompt and all(
        isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)
        for m in prompt)
    if not ok:
        raise ConfigError(f"{where}: prompt: expected text or a list of {{role, content}} messages")
    return prompt


def encode_example(tokenizer, prompt, answer: str, where: str = "<example>") -> SFTExample:
    text = render_prompt(tokenizer, _messages(prompt, where))
    p_ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    a_ids = tokenizer(answer, add_special_tokens=False)["input_ids"]
    if tokenizer.eos_token_id is not None:
        a_ids = a_ids + [tokenizer.eos_token_id]
    return SFTExample(list(p_ids), list(a_ids))


def load_sft_jsonl(path: str | Path, tokenizer, max_length: int) -> tuple[list[SFTExample], int]:
    """Read and tokenize a JSONL file; returns (examples, number skipped as longer than max_length).

    A malformed line raises `ConfigError` naming the file, the line and what was expected.
    """
    p = Path(path)
    try:
        lines = p.read_text().splitlines()
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read SFT data ({exc.strerror or exc})") from None
    examples, skipped = [], 0
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{p}:{n}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            raise ConfigError(f"{where}: not valid JSON (expected {{\"prompt\": ..., \"answer\": ...}})") from None
        if not isinstance(row, dict) or "prompt" not in row or not isinstance(row.get("answer"), str):
            raise ConfigError(f"{where}: expected an object with \"prompt\" and a string \"answer\"")
        ex = encode_example(tokenizer, row["prompt"], row["answer"], where)
        if len(ex.prompt_ids) + len(ex.answer_ids) > max_length:
            skipped += 1
            continue
        examples.append(ex)
    if not examples:
        raise ConfigError(f"{p}: no usable examples ({skipped} longer than sft.max_length={max_length})")
    return examples, skipped


def answer_nll(model, examples: list[SFTExample], pad_id: int, device) -> tuple[torch.Tensor, int]:
    """Summed NLL of the answer tokens of ``examples`` (one forward) and their count."""
    ids, attn = pad_right([e.prompt_ids + e.answer_ids for e in examples], pad_id)
    mask = torch.zeros_like(ids, dtype=torch.float32)
    for i, e in enumerate(examples):
        mask[i, len(e.prompt_ids): len(e.prompt_ids) + len(e.answer_ids)] = 1.0
    ids, attn, mask = ids.to(device), attn.to(device), mask.to(device)
    first = min(len(e.prompt_ids) for e in examples)
    lp, _ = token_logprobs(model, ids, attn, first=first)
    return -(lp * mask).sum(), int(mask.sum().item())


def sft_step(policy: PolicyModel, batch: list[SFTExample], micro: int, device) -> tuple[float, int]:
    """Forward/backward one optimizer batch in micro-batches; returns (mean answer NLL, answer tokens)."""
    pad = policy.tokenizer.pad_token_id if policy.tokenizer.pad_token_id is not None else 0
    total = sum(len(e.answer_ids) for e in batch)
    loss_sum = 0.0
    for i in range(0, len(batch), micro):
        nll, _ = answer_nll(policy.model, batch[i: i + micro], pad, device)
        (nll / total).backward()
        loss_sum += float(nll.detach())
    return loss_sum / max(1, total), total


def run_sft(cfg: TrainConfig, *, data: str | None = None, resume: str | None = None,
            stop: StopFlag | None = None) -> dict:
    """Train ``cfg.sft.epochs`` epochs on ``data`` (or ``cfg.sft.data``); returns a summary dict."""
    data = data or cfg.sft.data
    if not data:
        raise ConfigError("sft.data: expected a JSONL file of {prompt, answer} pairs (or pass --data)")
    seed_everything(cfg.seed)
    device = resolve_device(cfg.device)
    policy = load_policy(cfg.model, device)
    examples, skipped = load_sft_jsonl(data, policy.tokenizer, cfg.sft.max_length)
    per_step = cfg.optim.micro_batch_size * max(1, cfg.optim.grad_accumulation)
    steps_per_epoch = (len(examples) + per_step - 1) // per_step
    total_steps = steps_per_epoch * cfg.sft.epochs
    params = policy.trainable_parameters()
    optimizer = build_optimizer(params, cfg.optim)
    scheduler = build_scheduler(optimizer, cfg.optim, total_steps)
    step = 0
    resume = resume_or_fresh(resume)
    if resume:
        step = int(load_checkpoint(resume, policy=policy, optimizer=optimizer, scheduler=scheduler)["step"])
    logger = MetricsLogger(cfg.logging, run_name=cfg.run_name, resume_step=step if resume else None)
    bar = Progress(total_steps, label="sft", start=step, enabled=cfg.logging.progress)
    ckpt_dir = Path(cfg.checkpoint.dir)
    stop = stop or StopFlag()
    policy.model.train()
    last = {}
    nonfinite = 0  # steps skipped for an inf/NaN gradient (see step_if_finite)
    try:
        while step < total_steps:
            epoch, pos = divmod(step, steps_per_epoch)
            order = list(range(len(examples)))
            if cfg.sft.shuffle:
                random.Random(cfg.seed + epoch).shuffle(order)
            batch = [examples[j] for j in order[pos * per_step: (pos + 1) * per_step]]
            t0 = time.perf_counter()
            optimizer.zero_grad(set_to_none=True)
            loss, ntok = sft_step(policy, batch, cfg.optim.micro_batch_size, device)
            grad_norm = step_if_finite(optimizer, params, cfg.optim.grad_clip)
            nonfinite += not math.isfinite(grad_norm)
            scheduler.step()
            step += 1
            last = {"loss": loss, "grad_norm": grad_norm, "nonfinite_steps": nonfinite, "tokens": ntok, "epoch": epoch,
                    "lr": scheduler.get_last_lr()[0], "time/step": time.perf_counter() - t0}
            logger.log(step, last)
            bar.advance(1, headline(last))
            if (cfg.checkpoint.every and step % cfg.checkpoint.every == 0) or stop.requested:
                save_checkpoint(ckpt_dir, step, policy=policy, optimizer=optimizer, scheduler=scheduler,
                                config_yaml=dump_config(cfg), keep_last=cfg.checkpoint.keep_last)
            if stop.requested:
                break
        if not stop.requested and total_steps and not (ckpt_dir / f"step-{step}").exists():
            save_checkpoint(ckpt_dir, step, policy=policy, optimizer=optimizer, scheduler=scheduler,
                            config_yaml=dump_config(cfg), keep_last=cfg.checkpoint.keep_last)
    finally:
        bar.close()
        logger.close()
    return {"step": step, "total_steps": total_steps, "examples": len(examples), "skipped": skipped,
            "stopped": stop.requested, **last}
