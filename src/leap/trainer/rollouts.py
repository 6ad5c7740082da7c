"""Rollouts for training: the rollout package's episode runner, driven by the trainer's live weights,
with DCP as its continue hook.

* Policy: `leap.rollout.policies.hf.HFPolicy` over the trainer's (model, tokenizer), inside
  `leap.trainer.model.generation_mode` (eval, gradient checkpointing off, ``use_cache`` on: in train mode
  with checkpointing transformers turns the KV cache off and every token re-runs the whole sequence).
  ``rollout.kv_cache: graph`` decodes with a static cache and one CUDA graph per step (the fast path).
* Runner: `leap.rollout.episode.run_episodes`; after turn 1 its batch hook `dcp_continue` decides which
  groups expand (`leap.algorithms.dcp.dcp_decide`: the gate, or budget mode) and which of their samples
  continue (`needs_turn`). Budget mode ranks the whole step's groups, so it runs as one chunk.
* Backend: ``rollout.backend`` ``openai`` / ``vllm`` replace the HF policy with an outside generator that
  follows the trained LoRA adapter (`leap.trainer.rollout_backends`); ``collect(tasks, step=N)`` syncs the
  adapter first (``time/sync``).
* Overlap: the step's tasks are split into chunks (``rollout.generation_batch_size`` sequences each);
  each chunk runs its episodes in its own thread. Generation is serialised by a lock (one model), while
  sandbox verification runs concurrently, so one chunk's candidates are verified while the next chunk
  generates. Every generate call gets its own seed (step seed + chunk + call index) and the RNG state is
  restored afterwards, so sampling does not depend on thread timing and a resumed run samples the same.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import torch

from leap.rollout.episode import (
    EpisodeConfig,
    PromptFn,
    Verifier,
    dcp_continue,
    run_episodes,
    sandbox_verifier,
)
from leap.rollout.kb_prompt import prompt_mode_fn
from leap.rollout.policies.base import Policy, SamplingParams
from leap.rollout.policies.hf import HFPolicy
from leap.rollout.records import Group
from leap.tasks.task import Task
from leap.trainer.checkpoint import rng_state, set_rng_state
from leap.trainer.config import TrainConfig
from leap.trainer.model import PolicyModel, generation_mode

CHARS_PER_TOKEN = 3


class _SerialPolicy:
    """Wraps the HF policy for one chunk: generate calls hold a shared lock, each with its own seed."""

    def __init__(self, inner: HFPolicy, lock: threading.Lock, seed: int, clock: dict, clock_lock: threading.Lock):
        self.inner, self.lock, self.seed, self.calls = inner, lock, seed, 0
        self.clock, self.clock_lock = clock, clock_lock
        self.name = inner.name

    def generate(self, prompts, params: SamplingParams):
        with self.lock:
            self.calls += 1
            t0 = time.perf_counter()
            out = self.inner.generate(prompts, dataclasses.replace(params, seed=self.seed + 7919 * self.calls))
            spent = time.perf_counter() - t0
        with self.clock_lock:
            self.clock["generate"] += spent
        return out


class Rollouts:
    """Samples one step's groups. ``verifier``: None = a warm sandbox pool held for the run; or any
    `leap.rollout.episode.Verifier` (``pairs -> verdicts``), e.g. a rule-based reward in tests."""

    def __init__(self, policy: PolicyModel, cfg: TrainConfig, verifier: Verifier | None = None, *,
                 sampler: Policy | None = None, prompt_fn: PromptFn | None = None):
        r = cfg.rollout
        if prompt_fn is None:  # rollout.prompt: the same builder as `leap eval --prompt`
            budget = CHARS_PER_TOKEN * (r.max_context_tokens - r.sampling.max_new_tokens)
            prompt_fn = prompt_mode_fn(r.prompt, r.kernel_backend, r.kernelbench_root, budget)
        self.policy, self.cfg, self.verifier, self.prompt_fn = policy, cfg, verifier, prompt_fn
        self.sandbox = None
        # ``sampler``: another rollout policy over the same weights (e.g. the demo's tiny policy)
        if sampler is None and r.backend != "hf":
            from leap.trainer.rollout_backends import build_sampler

            sampler = self.backend = build_sampler(policy, cfg)
        else:
            self.backend = None
        self.hf = sampler or HFPolicy(policy.model, policy.tokenizer, batch_size=r.generation_batch_size or 4096,
                                      cache=r.kv_cache)
        self._gen_lock = threading.Lock()

    def __enter__(self) -> Rollouts:
        if self.verifier is None:
            from leap.sandbox import Sandbox
            from leap.trainer.distributed import rank_gpus

            r = self.cfg.rollout
            if self.cfg.sandbox.url:
                from leap.sandbox import RemoteSandbox

                self.sandbox = RemoteSandbox(self.cfg.sandbox.url)
                self.verifier = sandbox_verifier(self.sandbox, backend=r.kernel_backend)
                return self
            sb_cfg = self.cfg.sandbox.for_rollout(r)
            sb_cfg = sb_cfg.model_copy(update={"gpus": rank_gpus(sb_cfg.gpus)})
            if self.cfg.sandbox.executor == "ray":
                from leap.integrations.ray_executor import RayExecutor

                self.sandbox = RayExecutor(sb_cfg, device=r.sandbox_device, actors=self.cfg.sandbox.ray_actors,
                                           gpus_per_actor=self.cfg.sandbox.ray_gpus_per_actor)
            else:
                self.sandbox = Sandbox(sb_cfg, device=r.sandbox_device)
            self.verifier = sandbox_verifier(self.sandbox, backend=r.kernel_backend)
        return self

    def __exit__(self, *exc) -> None:
        if self.backend is not None:
            self.backend.close()
        if self.sandbox is not None:
            self.sandbox.close()

    def _chunks(self, tasks: Sequence[Task]) -> list[list[Task]]:
        r = self.cfg.rollout
        if not r.overlap or not r.generation_batch_size or self.cfg.dcp.eval_budget is not None:
            return [list(tasks)]
        per = max(1, r.generation_batch_size // r.group_size)
        return [list(tasks[i:i + per]) for i in range(0, len(tasks), per)]

    def collect(self, tasks: Sequence[Task], step: int | None = None) -> tuple[list[Group], dict[str, float]]:
        """Run the episodes of ``tasks`` (G samples each); returns the groups (in task order) and timings.
        ``step``: an outside generator (``rollout.backend``) first gets the adapter of the weights as they are."""
        r = self.cfg.rollout
        t_sync = time.perf_counter()
        if self.backend is not None and step is not None:
            self.backend.sync(step)
        t_sync = time.perf_counter() - t_sync
        s = r.sampling
        params = SamplingParams(max_new_tokens=s.max_new_tokens, temperature=s.temperature, top_p=s.top_p,
                                top_k=s.top_k)
        # the runner bounds contexts in characters; ~3 characters per token for code and prose
        chars = CHARS_PER_TOKEN * (r.max_context_tokens - s.max_new_tokens)
        episode = EpisodeConfig(max_turns=r.max_turns, backend=r.kernel_backend, params=params,
                                context_budget=chars, keep_solved=self.cfg.dcp.keep_solved,
                                prompt_fn=self.prompt_fn)
        hook = dcp_continue(r.max_turns, self.cfg.dcp)
        clock = {"generate": 0.0, "sandbox": 0.0}
        if self.backend is not None:
            clock["sync"] = t_sync
        clock_lock = threading.Lock()
        base = int(torch.randint(0, 2**31 - 1, ()).item())  # the step's seed, from the (restored) RNG
        saved = rng_state()

        def timed_verify(pairs):
            t0 = time.perf_counter()
            out = self.verifier(pairs)
            with clock_lock:
                clock["sandbox"] += time.perf_counter() - t0
            return out

        def run(k: int, chunk: list[Task]) -> list[Group]:
            pol = _SerialPolicy(self.hf, self._gen_lock, base + 104729 * k, clock, clock_lock)
            return run_episodes(pol, chunk, r.group_size, timed_verify, episode, continue_batch=hook)

        chunks = self._chunks(tasks)
        t0 = time.perf_counter()
        try:
            with generation_mode(self.policy.model):
                if len(chunks) == 1:
                    groups = run(0, chunks[0])
                else:
                    with ThreadPoolExecutor(max_workers=len(chunks), thread_name_prefix="leap-episodes") as ex:
                        groups = [g for part in ex.map(run, range(len(chunks)), chunks) for g in part]
        finally:
            set_rng_state(saved)
        wall = time.perf_counter() - t0
        clock["overlap_saved"] = max(0.0, clock["generate"] + clock["sandbox"] - wall)
        return groups, clock
