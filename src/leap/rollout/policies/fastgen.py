"""A fast decode loop for HF causal LMs: static KV cache, sampling on the device, one CUDA graph per step.

``StaticDecoder(model).generate(input_ids, attention_mask, ...)`` takes left-padded prompts, prefills
them into a transformers ``StaticCache`` and then runs decode steps. Each step (model forward with a
prebuilt 4D additive mask, temperature/top-k/top-p sampling by the exponential race — exact
categorical sampling —, the chosen token's log-probability, EOS bookkeeping, buffer updates) has no
host synchronisation, so on CUDA it is captured once as a CUDA graph and replayed; the host checks
for "all finished" every ``check_every`` steps. On the CPU the same step runs eagerly (tests compare
it with ``generate``).

Grouped-query attention: with a padding mask, transformers' SDPA path (5.17, the GPU machine's) copies
the whole KV cache once per query head (``repeat_kv``) at every decode step — for the 1.5B (12 query
heads, 2 KV heads) six copies of a cache that grows to gigabytes. During decode steps the model runs
`packed_gqa_attention` instead: the one query token's heads are folded onto their KV head as extra
query rows, so attention reads the cache as it is. Exact (same arithmetic, no copy).

``LEAP_DECODE_TRACE=FILE`` appends one JSON line per `generate` call (batch, prompt width, decode steps
run, mean new tokens, prefill and decode seconds): where in-loop generation time goes.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass

import torch


@dataclass
class DecodeOut:
    tokens: torch.Tensor  # (batch, steps) int64, pad after EOS
    logprobs: torch.Tensor  # (batch, steps) float32
    lengths: torch.Tensor  # (batch,) tokens up to and including EOS


def sample_next(logits: torch.Tensor, temperature: float, top_k: int, top_p: float,
                noise: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(token, logprob) per row; greedy when temperature == 0. Sync-free (graph-capturable)."""
    logits = logits.float()
    if temperature <= 0:
        lp = torch.log_softmax(logits, -1)
        tok = logits.argmax(-1)
        return tok, lp.gather(-1, tok[:, None]).squeeze(-1)
    scaled = logits / temperature
    lp = torch.log_softmax(scaled, -1)
    masked = scaled
    if top_k and top_k < scaled.shape[-1]:
        kth = torch.topk(scaled, top_k, dim=-1).values[:, -1:]
        masked = masked.masked_fill(masked < kth, float("-inf"))
    if top_p < 1.0:
        sorted_l, idx = torch.sort(masked, dim=-1, descending=True)
        probs = torch.softmax(sorted_l, -1)
        drop = (probs.cumsum(-1) - probs) > top_p
        masked = masked.masked_fill(torch.zeros_like(drop).scatter(-1, idx, drop), float("-inf"))
    # exponential race: argmax p_i / q_i with q ~ Exp(1) samples i with probability p_i
    q = noise if noise is not None else torch.empty_like(masked).exponential_()
    tok = (masked - q.log()).argmax(-1)
    return tok, lp.gather(-1, tok[:, None]).squeeze(-1)


PACKED_GQA = "leap_packed_gqa"


def packed_gqa_attention(module, query, key, value, attention_mask, dropout: float = 0.0,
                         scaling: float | None = None, **kwargs):
    """transformers attention function: SDPA for one query token, KV heads not repeated.

    ``query`` (b, heads, 1, d) becomes (b, kv_heads, heads/kv_heads, d): query head ``i`` uses KV head
    ``i // groups`` either way. A mask shared by all heads, (b, 1, 1, L), broadcasts over the folded rows.
    Anything else (prefill, a per-head mask) goes to transformers' own SDPA function.
    """
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    groups = getattr(module, "num_key_value_groups", 1)
    b, heads, q_len, d = query.shape
    if q_len != 1 or groups == 1 or (attention_mask is not None and attention_mask.shape[1] != 1):
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout, scaling=scaling,
                                      **kwargs)
    q = query.reshape(b, heads // groups, groups, d)
    out = torch.nn.functional.scaled_dot_product_attention(q, key, value, attn_mask=attention_mask, scale=scaling)
    return out.reshape(b, heads, 1, d).transpose(1, 2).contiguous(), None


def _register_packed_gqa() -> bool:
    try:
        from transformers import AttentionInterface
    except ImportError:  # an old transformers: decode steps keep the model's own attention
        return False
    AttentionInterface.register(PACKED_GQA, packed_gqa_attention)
    return True


class _DecodeAttention:
    """Within the block, the model's attention is `packed_gqa_attention` (when it was plain SDPA)."""

    def __init__(self, model, enabled: bool):
        self.config = model.config
        self.before = getattr(self.config, "_attn_implementation", None)
        self.on = enabled and self.before == "sdpa" and _register_packed_gqa()

    def __enter__(self):
        if self.on:
            self.config._attn_implementation = PACKED_GQA

    def __exit__(self, *exc):
        if self.on:
            self.config._attn_implementation = self.before


class _Trace:
    """Timings of one `generate` call, written only when ``LEAP_DECODE_TRACE`` names a file."""

    def __init__(self, device: torch.device):
        self.path = os.environ.get("LEAP_DECODE_TRACE")
        self.cuda = device.type == "cuda"
        self.times: dict[str, float] = {}
        self.t = time.perf_counter()

    def mark(self, name: str) -> None:
        if self.path:
            if self.cuda:
                torch.cuda.synchronize()
            now = time.perf_counter()
            self.times[name] = round(now - self.t, 4)
            self.t = now

    def write(self, **fields) -> None:
        if self.path:
            row = {k: v() if callable(v) else v for k, v in fields.items()} | self.times
            with open(self.path, "a") as f:
                f.write(json.dumps(row) + "\n")


class StaticDecoder:
    """Batched generation over a static KV cache; CUDA-graph decode steps on CUDA.

    ``packed_gqa=False`` keeps transformers' SDPA (KV cache repeated per query head) in decode steps:
    the benchmark's baseline (`bench/generation.py --paths graph_repeat`).
    """

    def __init__(self, model, *, use_graph: bool | None = None, check_every: int = 16, packed_gqa: bool = True):
        self.model = model
        self.device = next(model.parameters()).device
        self.use_graph = (self.device.type == "cuda") if use_graph is None else use_graph
        self.check_every = check_every
        self.packed_gqa = packed_gqa

    def _setup(self, batch: int, max_len: int):
        from transformers import StaticCache

        return StaticCache(config=self.model.config, max_cache_len=max_len)

    @torch.no_grad()
    def generate(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, max_new_tokens: int, *,
                 temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0,
                 eos_ids: list[int] | tuple[int, ...] = (), pad_id: int = 0,
                 seed: int | None = None) -> DecodeOut:
        dev, model = self.device, self.model
        trace = _Trace(dev)
        input_ids, attention_mask = input_ids.to(dev), attention_mask.to(dev)
        b, plen = input_ids.shape
        max_len = plen + max_new_tokens
        if seed is not None:
            torch.manual_seed(seed)
        cache = self._setup(b, max_len)
        dtype = next(model.parameters()).dtype
        neg = torch.finfo(dtype).min
        # prefill (ordinary 2D mask path)
        pos = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
        out = model(input_ids=input_ids, attention_mask=attention_mask, position_ids=pos, past_key_values=cache,
                    cache_position=torch.arange(plen, device=dev), use_cache=True, logits_to_keep=1)
        eos = torch.tensor(list(eos_ids) or [-1], device=dev)
        tok, lp = sample_next(out.logits[:, -1], temperature, top_k, top_p)
        # static state for the decode steps
        st = {
            "tok": tok.clone(), "pos": pos[:, -1:].clone() + 1,
            "cache_pos": torch.tensor([plen], device=dev),
            "step": torch.zeros(1, dtype=torch.long, device=dev),
            "valid": torch.cat([attention_mask.bool(), torch.ones(b, max_new_tokens, dtype=torch.bool, device=dev)], 1),
            "arange": torch.arange(max_len, device=dev),
            "done": (tok[:, None] == eos).any(-1),
            "tokens": torch.full((b, max_new_tokens), pad_id, dtype=torch.long, device=dev),
            "logprobs": torch.zeros(b, max_new_tokens, dtype=torch.float32, device=dev),
        }
        st["tokens"][:, 0] = tok
        st["logprobs"][:, 0] = lp
        trace.mark("prefill_s")

        def step():
            keep = st["valid"] & (st["arange"] <= st["cache_pos"])  # (b, max_len)
            mask = torch.where(keep, 0.0, neg).to(dtype)[:, None, None, :]
            o = model(input_ids=st["tok"][:, None], attention_mask=mask, position_ids=st["pos"],
                      past_key_values=cache, cache_position=st["cache_pos"], use_cache=True)
            nt, nlp = sample_next(o.logits[:, -1], temperature, top_k, top_p)
            nt = torch.where(st["done"], torch.full_like(nt, pad_id), nt)
            st["step"].add_(1)
            st["tokens"].index_copy_(1, st["step"], nt[:, None])
            st["logprobs"].index_copy_(1, st["step"], nlp[:, None])
            st["done"].logical_or_((nt[:, None] == eos).any(-1))
            st["tok"].copy_(nt)
            st["pos"].add_(1)
            st["cache_pos"].add_(1)

        steps, ran = max_new_tokens - 1, 0
        attn = _DecodeAttention(model, self.packed_gqa)
        with attn:
            run = step
            if self.use_graph and steps > 0:
                run = self._capture(step)
            for i in range(steps):
                run()
                ran = i + 1
                if ran % self.check_every == 0 and bool(st["done"].all()):
                    break
        toks = st["tokens"]
        is_eos = (toks[..., None] == eos).any(-1)
        first = torch.where(is_eos.any(1), is_eos.float().argmax(1) + 1,
                            torch.full((b,), max_new_tokens, device=dev))
        trace.mark("decode_s")
        trace.write(batch=b, prompt_width=plen, max_new_tokens=max_new_tokens, decode_steps=ran,
                    mean_new_tokens=lambda: float(first.float().mean()), graph=self.use_graph,
                    packed_gqa=attn.on)
        return DecodeOut(tokens=toks, logprobs=st["logprobs"], lengths=first)

    def _capture(self, step):
        """Run step 1 eagerly on a side stream (warm-up), then capture one step as a CUDA graph.

        The returned runner skips its first call (the warm-up already did that step) and replays the
        graph afterwards. If capture fails (an op that syncs with the host), it falls back to eager steps.
        """
        import warnings

        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            step()
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(graph):
                step()  # recorded, not executed
            target = graph.replay
        except Exception as exc:  # noqa: BLE001 - capture is an optimisation; eager steps are correct
            warnings.warn(f"CUDA graph capture failed, decoding eagerly ({exc.__class__.__name__}: "
                          f"{str(exc).splitlines()[0][:160]})", stacklevel=2)
            torch.cuda.synchronize()
            target = step
        first = [True]

        def run():
            if first[0]:
                first[0] = False
                return
            target()
        return run
