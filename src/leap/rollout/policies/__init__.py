"""Policy backends behind one interface: ``Policy.generate(list_of_message_lists, SamplingParams)``.

``load_policy(backend, model)`` builds one by name: ``hf`` (in-process transformers), ``openai``
(an OpenAI-compatible endpoint URL), ``vllm`` (in-process vLLM, when installed).
"""

from __future__ import annotations

from leap.rollout.policies.base import Generation, Policy, PolicyError, SamplingParams

__all__ = ["Generation", "Policy", "PolicyError", "SamplingParams", "load_policy"]


def load_policy(backend: str, model: str, **kwargs) -> Policy:
    """A policy by backend name; raises `PolicyError` (one line) for a bad model or endpoint."""
    if backend == "hf":
        from leap.rollout.policies.hf import HFPolicy

        return HFPolicy(model, **kwargs)
    if backend == "openai":
        from leap.rollout.policies.openai_client import OpenAIPolicy

        return OpenAIPolicy(model, **kwargs)
    if backend == "vllm":
        from leap.rollout.policies.vllm import VLLMPolicy

        return VLLMPolicy(model, **kwargs)
    raise PolicyError(f"unknown policy backend {backend!r} (expected hf, openai or vllm)")
