"""In-process vLLM policy (imported lazily; a clear one-line error when vLLM is not installed).

``lora_request`` (a ``vllm.lora.request.LoRARequest``), when set, is passed to every ``LLM.generate`` call:
the trainer's vLLM backend sets a new one each step (`leap.trainer.rollout_backends`). A call's seed is
spread over its prompts (prompt i gets seed + i): vLLM seeds each request, so G copies of one prompt with
one seed would otherwise be G identical samples.
"""

from __future__ import annotations

from pathlib import Path

from leap.rollout.policies.base import Generation, Messages, PolicyError, SamplingParams, cut_at_stop


class VLLMPolicy:
    """Chat generation with ``vllm.LLM`` (token ids and logprobs included)."""

    def __init__(self, model: str, *, dtype: str = "auto", gpu_memory_utilization: float = 0.85,
                 max_model_len: int | None = None, **llm_kwargs):
        try:
            import vllm
        except ImportError:
            raise PolicyError("the vllm backend needs the vllm package (pip install vllm); "
                              "use --backend hf or openai instead") from None
        if not (Path(model) / "config.json").is_file():
            raise PolicyError(f"{model}: not a transformers model folder (no config.json)")
        self.name = str(model)
        self._vllm = vllm
        self.llm = vllm.LLM(model=str(model), dtype=dtype, gpu_memory_utilization=gpu_memory_utilization,
                            max_model_len=max_model_len, **llm_kwargs)
        self.tokenizer = self.llm.get_tokenizer()
        self.lora_request = None

    def generate(self, prompts: list[Messages], params: SamplingParams) -> list[Generation]:
        sps = [self._vllm.SamplingParams(max_tokens=params.max_new_tokens, temperature=params.temperature,
                                         top_p=params.top_p, top_k=params.top_k if params.top_k > 0 else -1,
                                         stop=list(params.stop) or None,
                                         seed=None if params.seed is None else params.seed + i,
                                         logprobs=0 if params.logprobs else None)
               for i in range(len(prompts))]
        texts = [self.tokenizer.apply_chat_template(m, tokenize=False, add_generation_prompt=True)
                 for m in prompts]
        outs = self.llm.generate(texts, sps, use_tqdm=False, lora_request=self.lora_request)
        gens = []
        for o in outs:
            c = o.outputs[0]
            lps = None
            if params.logprobs and c.logprobs:
                lps = [float(d[t].logprob) for t, d in zip(c.token_ids, c.logprobs, strict=False)]
            text, _ = cut_at_stop(c.text, params.stop)
            gens.append(Generation(text=text, prompt_ids=list(o.prompt_token_ids), completion_ids=list(c.token_ids),
                                   logprobs=lps, finish_reason=c.finish_reason or "stop",
                                   prompt_tokens=len(o.prompt_token_ids), completion_tokens=len(c.token_ids)))
        return gens
