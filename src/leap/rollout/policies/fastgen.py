"""A fast decode loop for HF causal LMs: static KV cache, sampling on the device, one CUDA graph per step.

``StaticDecoder(model).generate(input_ids, attention_mask, ...)`` takes left-padded prompts, prefills
them into a transformers ``StaticCache`` and then runs decode steps. Each step (model forward with a
prebuilt 4D additive mask, temperature/top-k/top-p sampling by the exponential race — exact
categorical sampling —, the chosen token's log-probability, EOS bookkeeping, buffer updates) has no
host synchronisation, so on CUDA it is captured once as a CUDA graph and replayed; the host checks
for "all finished" every ``check_every`` steps. On the CPU the same step runs eagerly (tests compare
it with ``generate``).
"""

from __future__ import annotations

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


class StaticDecoder:
    """Batched generation over a static KV cache; CUDA-graph decode steps on CUDA."""

    def __init__(self, model, *, use_graph: bool | None = None, check_every: int = 16):
        self.model = model
        self.device = next(model.parameters()).device
        self.use_graph = (self.device.type == "cuda") if use_graph is None else use_graph
        self.check_every = check_every

    def _setup(self, batch: int, max_len: int):
        from transformers import StaticCache

        return StaticCache(config=self.model.config, max_cache_len=max_len)

    @torch.no_grad()
    def generate(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, max_new_tokens: int, *,
                 temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0,
                 eos_ids: list[int] | tuple[int, ...] = (), pad_id: int = 0,
                 seed: int | None = None) -> DecodeOut:
        dev, model = self.device, self.model
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

        steps = max_new_tokens - 1
        run = step
        if self.use_graph and steps > 0:
            run = self._capture(step)
        for i in range(steps):
            run()
            if (i + 1) % self.check_every == 0 and bool(st["done"].all()):
                break
        toks = st["tokens"]
        is_eos = (toks[..., None] == eos).any(-1)
        first = torch.where(is_eos.any(1), is_eos.float().argmax(1) + 1,
                            torch.full((b,), max_new_tokens, device=dev))
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
