"""Who generates the training samples (``rollout.backend``): the trainer's own weights (``hf``, the default,
`leap.rollout.policies.hf.HFPolicy` in `leap.trainer.rollouts`), an OpenAI-compatible server (``openai``)
or an in-process vLLM engine (``vllm``).

The outside generators follow the trained weights through LoRA: before each step's rollouts, `sync`
saves the current adapter (peft's ``save_pretrained``) under ``rollout.server.adapter_dir`` and hands it
to the generator — the server through vLLM's dynamic-LoRA route ``POST /v1/load_lora_adapter`` (the
previous step's adapter is unloaded; requests then name the adapter as their ``model``), the engine as a
new ``LoRARequest``. `leap serve --enable-lora` implements the same route, so the server path runs on a
CPU too.

The GRPO loss stays exact: the trainer scores the sampled token ids itself. Old-policy log-probs are
never taken from the generator; as with the HF backend they are the training model's own, from the same
weights the adapter was saved from (ratio 1 on the first pass; recomputed before any update when
``optim.passes_per_batch`` > 1). The generator's log-probs are requested only to measure how far its
numerics are from the trainer's (``sampler/logprob_gap``, mean |difference| per token on the first
optimizer batch): near 0 means the samples came from the current adapter; a stale adapter, another
model or a different temperature convention (vLLM reports pre-temperature log-probs unless started with
``--logprobs-mode processed_logprobs``) shows up there.

Token ids: `leap serve` and vLLM (``return_token_ids``) return the prompt and sampled ids; a server that
returns none gets them from the trainer's tokenizer (the chat template for the prompt, the text plus EOS
for a completion that stopped), and its log-probs are then dropped when their count does not match.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

from leap.rollout.policies.base import Generation, Messages, PolicyError, SamplingParams
from leap.trainer.config import ConfigError, TrainConfig
from leap.trainer.model import PolicyModel


def save_adapter(policy: PolicyModel, path: Path) -> Path:
    """The policy's current LoRA adapter as a peft folder at ``path`` (adapter_config.json + weights)."""
    if not policy.lora:
        raise ConfigError("rollout.backend: following the trained weights needs model.finetune: lora")
    tmp = path.with_name(path.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    policy.model.save_pretrained(str(tmp))
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)  # a reader never sees a half-written adapter
    return path


class _Tokens:
    """Fills in token ids a generator did not return, from the trainer's tokenizer."""

    def __init__(self, tokenizer):
        self.tok = tokenizer

    def fill(self, messages: Messages, g: Generation) -> Generation:
        if g.prompt_ids is not None and g.completion_ids is not None:
            if g.logprobs is not None and len(g.logprobs) != len(g.completion_ids):
                g.logprobs = None
            return g
        tok = self.tok
        text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        g.prompt_ids = tok(text, add_special_tokens=False)["input_ids"]
        ids = tok(g.text, add_special_tokens=False)["input_ids"]
        if g.finish_reason == "stop" and tok.eos_token_id is not None:
            ids = [*ids, tok.eos_token_id]
        g.completion_ids = ids
        if g.logprobs is not None and len(g.logprobs) != len(ids):
            g.logprobs = None
        g.prompt_tokens, g.completion_tokens = len(g.prompt_ids), len(ids)
        return g


class ServerSampler:
    """``rollout.backend: openai``: generation on an OpenAI-compatible server, following the trained adapter."""

    def __init__(self, policy: PolicyModel, cfg: TrainConfig, rank: int = 0):
        from leap.rollout.policies.openai_client import OpenAIPolicy

        srv = cfg.rollout.server
        self.policy, self.rank, self.sync_lora = policy, rank, srv.sync_lora
        try:
            self.client = OpenAIPolicy(srv.url, model_name=srv.model, api_key=os.environ.get(srv.api_key_env, ""),
                                       concurrency=srv.concurrency, timeout=srv.timeout, token_ids=True)
        except PolicyError as exc:
            raise ConfigError(f"rollout.server.url: {exc}") from None
        self.name = self.client.name
        self.adapter_dir = Path(srv.adapter_dir or Path(cfg.output_dir) / "rollout_adapters").resolve()
        self.loaded: str | None = None
        self.history: list[str] = []  # adapter names loaded into the server, in order
        self._tokens = _Tokens(policy.tokenizer)

    def sync(self, step: int) -> None:
        """Save the current adapter and load it into the server as ``leap-r<rank>-step<step>``."""
        if not self.sync_lora:
            return
        name = f"leap-r{self.rank}-step{step}"
        if name == self.loaded:
            return
        path = save_adapter(self.policy, self.adapter_dir / name)
        if self.loaded is not None:
            self._unload(self.loaded)
        self._unload(name)  # a resumed run may meet its own adapter name from before
        try:
            self.client.post("/load_lora_adapter", {"lora_name": name, "lora_path": str(path)})
        except PolicyError as exc:
            raise PolicyError(f"rollout.server: loading the step-{step} adapter failed ({exc}); start the server "
                              "with --enable-lora (vLLM: and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True) and give "
                              "rollout.server.adapter_dir a path it can read") from None
        previous, self.loaded = self.loaded, name
        self.client.name = name
        self.history.append(name)
        if previous is not None:
            shutil.rmtree(self.adapter_dir / previous, ignore_errors=True)

    def _unload(self, name: str) -> None:
        try:
            self.client.post("/unload_lora_adapter", {"lora_name": name})
        except PolicyError:
            pass  # not loaded (a fresh or restarted server): nothing to free

    def generate(self, prompts: list[Messages], params: SamplingParams) -> list[Generation]:
        gens = self.client.generate(prompts, dataclasses.replace(params, logprobs=True))
        return [self._tokens.fill(m, g) for m, g in zip(prompts, gens, strict=True)]

    def close(self) -> None:
        if self.loaded is not None:
            self._unload(self.loaded)
            shutil.rmtree(self.adapter_dir / self.loaded, ignore_errors=True)
            self.loaded = None


class VLLMSampler:
    """``rollout.backend: vllm``: an in-process ``vllm.LLM`` over ``model.path``; each step a new ``LoRARequest``."""

    def __init__(self, policy: PolicyModel, cfg: TrainConfig, rank: int = 0):
        from leap.rollout.policies.vllm import VLLMPolicy

        v = cfg.rollout.vllm
        try:
            self.engine = VLLMPolicy(cfg.model.path, dtype=v.dtype, gpu_memory_utilization=v.gpu_memory_utilization,
                                     max_model_len=v.max_model_len or cfg.rollout.max_context_tokens,
                                     enable_lora=True, max_loras=1,
                                     max_lora_rank=v.max_lora_rank or cfg.model.lora.rank,
                                     enforce_eager=v.enforce_eager)
        except PolicyError as exc:
            raise ConfigError(f"rollout.backend vllm: {exc}") from None
        self.policy, self.rank, self.name = policy, rank, self.engine.name
        self.adapter_dir = Path(cfg.rollout.server.adapter_dir or Path(cfg.output_dir) / "rollout_adapters").resolve()
        self.loaded: str | None = None
        self.history: list[str] = []
        self._tokens = _Tokens(policy.tokenizer)

    def sync(self, step: int) -> None:
        from vllm.lora.request import LoRARequest

        name = f"leap-r{self.rank}-step{step}"
        if name == self.loaded:
            return
        path = save_adapter(self.policy, self.adapter_dir / name)
        # a new id per step: vLLM caches adapters by lora_int_id
        self.engine.lora_request = LoRARequest(name, step + 1, str(path))
        previous, self.loaded = self.loaded, name
        self.history.append(name)
        if previous is not None:
            shutil.rmtree(self.adapter_dir / previous, ignore_errors=True)

    def generate(self, prompts: list[Messages], params: SamplingParams) -> list[Generation]:
        gens = self.engine.generate(prompts, dataclasses.replace(params, logprobs=True))
        return [self._tokens.fill(m, g) for m, g in zip(prompts, gens, strict=True)]

    def close(self) -> None:
        self.engine.lora_request = None


def build_sampler(policy: PolicyModel, cfg: TrainConfig, rank: int | None = None):
    """The rollout policy ``rollout.backend`` names, or None for ``hf`` (the trainer's own weights)."""
    rank = int(os.environ.get("RANK", "0")) if rank is None else rank
    if cfg.rollout.backend == "openai":
        return ServerSampler(policy, cfg, rank)
    if cfg.rollout.backend == "vllm":
        return VLLMSampler(policy, cfg, rank)
    return None
