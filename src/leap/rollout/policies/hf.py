"""In-process Hugging Face transformers policy: batched, left-padded, chat-templated generation.

Accepts a model folder or a ``(model, tokenizer)`` pair (the trainer passes its own live weights).
``cache="static"`` (default) preallocates the KV cache (transformers' ``cache_implementation="static"``);
``cache="graph"`` uses `leap.rollout.policies.fastgen.StaticDecoder` (static cache + one CUDA graph per
decode step, sampling on the device; stop strings are applied to the text afterwards);
``cache="dynamic"`` is plain ``generate``. Completions are cut after the first
EOS token (kept in ``completion_ids``) and at stop strings (not kept in ``text``).

A prompt longer than the model's context is a `PolicyError`; ``max_new_tokens`` is capped at what the
context leaves. A generation that fails (e.g. out of memory) resets the static-cache length transformers
remembers between calls and the graph decoder, so one bad request cannot break every later one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from leap.rollout.policies.base import Generation, Messages, PolicyError, SamplingParams, cut_at_stop


def load_hf(path: str | Path, device: str = "auto", dtype: str = "auto"):
    """Load (model, tokenizer) from a transformers folder; `PolicyError` with one line if unusable."""
    import torch
    from transformers import AutoModelForCausalLM

    from leap.models.tokenizer import load_tokenizer

    p = Path(path)
    if not (p / "config.json").is_file():
        raise PolicyError(f"{p}: not a transformers model folder (no config.json)")
    dev = ("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else device
    if dtype == "auto":
        dt = torch.bfloat16 if dev.startswith("cuda") else torch.float32
    else:
        dt = getattr(torch, dtype)
    try:
        tok = load_tokenizer(p)
        model = AutoModelForCausalLM.from_pretrained(p, dtype=dt).to(dev).eval()
    except (OSError, ValueError, KeyError) as exc:
        raise PolicyError(f"{p}: cannot load model ({exc.__class__.__name__}: {str(exc).splitlines()[0]})") from None
    return model, tok


class HFPolicy:
    """Generation with a transformers causal LM."""

    def __init__(self, model: Any, tokenizer: Any = None, *, device: str = "auto", dtype: str = "auto",
                 batch_size: int = 64, cache: str = "static"):
        if isinstance(model, str | Path):
            self.name = str(model)
            model, tokenizer = load_hf(model, device=device, dtype=dtype)
        elif isinstance(model, tuple):
            model, tokenizer = model
            self.name = getattr(getattr(model, "config", None), "name_or_path", "") or "model"
        else:
            self.name = getattr(getattr(model, "config", None), "name_or_path", "") or "model"
        if tokenizer is None:
            raise PolicyError("HFPolicy needs a tokenizer with a model object")
        if cache not in ("static", "dynamic", "graph"):
            raise PolicyError(f"unknown cache {cache!r} (expected static, dynamic or graph)")
        self.model, self.tokenizer = model, tokenizer
        self.batch_size, self.cache = batch_size, cache
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        tokenizer.padding_side = "left"

    @property
    def device(self):
        return next(self.model.parameters()).device

    @property
    def context_length(self) -> int | None:
        """Positions the model can attend to (``max_position_embeddings``), or None when unknown."""
        n = getattr(getattr(self.model, "config", None), "max_position_embeddings", None)
        return int(n) if isinstance(n, int) and n > 0 else None

    def prompt_tokens(self, messages: Messages) -> int:
        return len(self.tokenizer(self.prompt_text(messages), add_special_tokens=False)["input_ids"])

    def reset_state(self) -> None:
        """Forget generation state kept between calls (static-cache length, compiled decoder)."""
        for attr in ("_previous_max_cache_length", "_cache"):
            if attr in self.model.__dict__:
                delattr(self.model, attr)
        self._decoder = None
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    def prompt_text(self, messages: Messages) -> str:
        return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)

    def generate(self, prompts: list[Messages], params: SamplingParams) -> list[Generation]:
        """Completions in order. A prompt that leaves no room in the model's context gets an empty
        completion (``finish_reason="context"``, so the runner records "no code") and one warning line,
        instead of failing the whole batch."""
        ctx = self.context_length
        sizes = [self.prompt_tokens(m) for m in prompts] if ctx is not None else [0] * len(prompts)
        fits = [i for i, n in enumerate(sizes) if ctx is None or n < ctx]
        out: list[Generation | None] = [None] * len(prompts)
        for i, n in enumerate(sizes):
            if ctx is not None and n >= ctx:
                out[i] = Generation(text="", finish_reason="context", prompt_tokens=n)
        if len(fits) < len(prompts):
            import sys

            print(f"warning: {len(prompts) - len(fits)} prompt(s) of up to {max(sizes)} tokens do not fit the "
                  f"model's context of {ctx}: left unanswered", file=sys.stderr)
        for i in range(0, len(fits), self.batch_size):
            idx = fits[i:i + self.batch_size]
            for j, g in zip(idx, self._batch([prompts[k] for k in idx], params), strict=True):
                out[j] = g
        return [g for g in out if g is not None]

    def _gen_kwargs(self, params: SamplingParams) -> dict:
        tok = self.tokenizer
        eos = self.model.generation_config.eos_token_id
        eos_ids = list(eos) if isinstance(eos, list | tuple) else [eos] if eos is not None else []
        if tok.eos_token_id is not None and tok.eos_token_id not in eos_ids:
            eos_ids.append(tok.eos_token_id)
        kw: dict[str, Any] = dict(max_new_tokens=params.max_new_tokens, pad_token_id=tok.pad_token_id,
                                  eos_token_id=eos_ids, return_dict_in_generate=True,
                                  output_logits=params.logprobs)
        if params.temperature > 0:
            kw.update(do_sample=True, temperature=params.temperature, top_p=params.top_p, top_k=params.top_k)
        else:
            kw.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        if params.stop:
            kw.update(stop_strings=list(params.stop), tokenizer=tok)
        if self.cache == "static":
            kw["cache_implementation"] = "static"
        return kw

    def _batch(self, prompts: list[Messages], params: SamplingParams) -> list[Generation]:
        try:
            return self._batch_unguarded(prompts, params)
        except BaseException:
            self.reset_state()
            raise

    def _batch_unguarded(self, prompts: list[Messages], params: SamplingParams) -> list[Generation]:
        import torch

        tok = self.tokenizer
        texts = [self.prompt_text(m) for m in prompts]
        enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(self.device)
        if params.seed is not None:
            torch.manual_seed(params.seed)
        kw = self._gen_kwargs(params)
        width = enc["input_ids"].shape[1]
        ctx = self.context_length
        if ctx is not None:
            if width >= ctx:
                raise PolicyError(f"prompt is {width} tokens; the model's context is {ctx}")
            kw["max_new_tokens"] = min(params.max_new_tokens, ctx - width)
        lps = None
        if self.cache == "graph":
            from leap.rollout.policies.fastgen import StaticDecoder

            if getattr(self, "_decoder", None) is None:
                self._decoder = StaticDecoder(self.model)
            d = self._decoder.generate(enc["input_ids"], enc["attention_mask"], kw["max_new_tokens"],
                                       temperature=params.temperature, top_k=params.top_k, top_p=params.top_p,
                                       eos_ids=kw["eos_token_id"], pad_id=tok.pad_token_id)
            seqs = d.tokens.tolist()
            lps = d.logprobs.tolist() if params.logprobs else None
        else:
            with torch.no_grad():
                res = self.model.generate(**enc, **kw)
            seqs = res.sequences[:, width:].tolist()
        if self.cache != "graph" and params.logprobs and res.logits:
            logits = torch.stack(res.logits, dim=1).float()  # (batch, steps, vocab)
            if params.temperature > 0:
                logits = logits / params.temperature
            chosen = res.sequences[:, width:width + logits.shape[1]].unsqueeze(-1)
            lps = torch.log_softmax(logits, -1).gather(-1, chosen).squeeze(-1).tolist()
        eos_ids = set(kw["eos_token_id"])
        out = []
        for row, ids in enumerate(seqs):
            end, finish = len(ids), "length"
            for j, t in enumerate(ids):
                if t in eos_ids:
                    end, finish = j + 1, "stop"
                    break
            comp = ids[:end]
            if finish == "length" and tok.pad_token_id not in eos_ids:
                while comp and comp[-1] == tok.pad_token_id:
                    comp.pop()
            text, stopped = cut_at_stop(tok.decode(comp, skip_special_tokens=True), params.stop)
            if stopped:
                finish = "stop"
            mask = enc["attention_mask"][row].bool()
            pids = enc["input_ids"][row][mask].tolist()
            out.append(Generation(text=text, prompt_ids=pids, completion_ids=comp,
                                  logprobs=lps[row][:len(comp)] if lps is not None else None,
                                  finish_reason=finish, prompt_tokens=len(pids), completion_tokens=len(comp)))
        return out
