"""Rollouts for training: sample groups with the trainer's own weights, verify, let DCP pick the groups
that earn feedback turns.

TEMPORARY RUNNER: until the rollout package's episode runner lands, this module holds a small one over
`leap.rollout.policies.hf.HFPolicy` (sampling with the trainer's live weights),
`leap.rollout.prompts` (turn-1 messages), `leap.rollout.extract` (the candidate code),
`leap.rollout.context` (the bounded multi-turn context: earlier answers reduced to code + feedback),
`leap.algorithms.dcp` (the gate / budget decision and which samples continue) and the sandbox. `Rollouts.collect` is the only entry point the
loop uses, so swapping in the shared runner changes nothing else.

Overlap: generation proceeds in chunks (``rollout.generation_batch_size``); each chunk's candidates are
sent to the sandbox pool from a background thread while the next chunk generates.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from leap.algorithms.dcp import dcp_decide, needs_turn
from leap.rollout.context import next_messages
from leap.rollout.extract import extract_code
from leap.rollout.policies.base import Generation, SamplingParams
from leap.rollout.policies.hf import HFPolicy
from leap.rollout.records import Group, Trajectory, Turn
from leap.sandbox.verdict import Verdict
from leap.tasks.task import Task
from leap.trainer.config import TrainConfig
from leap.trainer.model import PolicyModel

TextVerifier = Callable[[Task, str, "str | None"], Verdict]  # (task, completion, code) -> Verdict


def _no_code() -> Verdict:
    return Verdict(status="format_error", feedback="No ```python code block was found in your answer.")


def _default_messages(task: Task, backend: str) -> list[dict]:
    from leap.rollout.prompts import build_messages

    return build_messages(task, backend)


class Rollouts:
    """Samples groups for a list of tasks. ``verifier``: None = the sandbox (a warm pool held for the
    run); or a callable (task, completion, code) -> Verdict (tests: a rule-based reward over the text)."""

    def __init__(self, policy: PolicyModel, cfg: TrainConfig, verifier: TextVerifier | None = None,
                 messages_fn: Callable[[Task, str], list[dict]] | None = None):
        self.policy, self.cfg, self.verifier = policy, cfg, verifier
        self.messages_fn = messages_fn or _default_messages
        self.sandbox = None
        chunk = cfg.rollout.generation_batch_size or 1024
        self.hf = HFPolicy(policy.model, policy.tokenizer, batch_size=chunk, cache=cfg.rollout.kv_cache)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="leap-verify")

    def __enter__(self) -> Rollouts:
        if self.verifier is None:
            from leap.sandbox import Sandbox, SandboxConfig

            r = self.cfg.rollout
            self.sandbox = Sandbox(SandboxConfig(workers=r.sandbox_workers), device=r.sandbox_device)
        return self

    def __exit__(self, *exc) -> None:
        self._pool.shutdown(wait=True)
        if self.sandbox is not None:
            self.sandbox.close()

    # ------------------------------------------------------------------ generation

    def _generate(self, contexts: list[list[dict]]) -> list[Generation]:
        """Sample one completion per context with the trainer's live weights (eval mode while sampling:
        gradient checkpointing would otherwise switch the KV cache off)."""
        s = self.cfg.rollout.sampling
        params = SamplingParams(max_new_tokens=s.max_new_tokens, temperature=s.temperature, top_p=s.top_p,
                                top_k=s.top_k)
        model = self.policy.model
        was_training = model.training
        model.eval()
        try:
            return self.hf.generate(contexts, params)
        finally:
            model.train(was_training)

    # ------------------------------------------------------------------ verification

    def _verify(self, jobs: list[tuple[Task, str, str | None]]) -> tuple[list[Verdict], float]:
        t0 = time.perf_counter()
        verdicts: list[Verdict | None] = [None] * len(jobs)
        if self.verifier is not None:
            verdicts = [self.verifier(t, c, code) for t, c, code in jobs]
        else:
            pairs, where = [], []
            for k, (task, _, code) in enumerate(jobs):
                if code is None:
                    verdicts[k] = _no_code()
                else:
                    pairs.append((task, code))
                    where.append(k)
            backend = self.cfg.rollout.kernel_backend
            for j, verdict in self.sandbox.verify_many(pairs, backend=backend):
                verdicts[where[j]] = verdict
        return verdicts, time.perf_counter() - t0

    # ------------------------------------------------------------------ one step's groups

    def _run_turn(self, todo: list[tuple[int, int]], groups: list[Group], tasks: Sequence[Task],
                  contexts: dict[tuple[int, int], list[dict]], index: int, timing: dict) -> None:
        """Generate and verify turn ``index`` for the (group, sample) pairs in ``todo``."""
        chunk = self.cfg.rollout.generation_batch_size or len(todo)
        pending: list[tuple[list[tuple[int, int]], list[Turn], Future]] = []
        for start in range(0, len(todo), chunk):
            part = todo[start:start + chunk]
            t0 = time.perf_counter()
            outs = self._generate([contexts[key] for key in part])
            timing["generate"] += time.perf_counter() - t0
            turns = [Turn(index=index, messages=contexts[key], completion=g.text, code=extract_code(g.text),
                          verdict=Verdict(status="format_error"), prompt_ids=g.prompt_ids,
                          completion_ids=g.completion_ids, completion_logprobs=g.logprobs,
                          prompt_tokens=g.prompt_tokens, completion_tokens=g.completion_tokens)
                     for key, g in zip(part, outs, strict=True)]
            jobs = [(tasks[g], t.completion, t.code) for (g, _), t in zip(part, turns, strict=True)]
            future = self._pool.submit(self._verify, jobs) if self.cfg.rollout.overlap else None
            if future is None:
                verdicts, spent = self._verify(jobs)
                timing["sandbox"] += spent
                pending.append((part, turns, verdicts))
            else:
                pending.append((part, turns, future))
        t_wait = time.perf_counter()
        for part, turns, result in pending:
            verdicts = result
            if isinstance(result, Future):
                verdicts, spent = result.result()
                timing["sandbox"] += spent
            for (g, i), turn, verdict in zip(part, turns, verdicts, strict=True):
                turn.verdict = verdict
                groups[g].trajectories[i].turns.append(turn)
        timing["sandbox_wait"] += time.perf_counter() - t_wait

    def collect(self, tasks: Sequence[Task]) -> tuple[list[Group], dict[str, float]]:
        """G samples per task; after turn 1, DCP picks the groups whose failing samples get feedback turns."""
        r = self.cfg.rollout
        timing = {"generate": 0.0, "sandbox": 0.0, "sandbox_wait": 0.0}
        groups = [Group(task=t.name, trajectories=[Trajectory(task=t.name, sample=i)
                                                   for i in range(r.group_size)]) for t in tasks]
        first = [self.messages_fn(t, r.kernel_backend) for t in tasks]
        contexts = {(g, i): first[g] for g in range(len(tasks)) for i in range(r.group_size)}
        todo = list(contexts)
        budget = r.max_context_tokens - r.sampling.max_new_tokens

        def count(text: str) -> int:
            return len(self.policy.tokenizer(text, add_special_tokens=False)["input_ids"])

        for index in range(r.max_turns):
            if not todo:
                break
            self._run_turn(todo, groups, tasks, contexts, index, timing)
            if index == 0:
                for g, expand in zip(groups, dcp_decide(groups, r.max_turns, self.cfg.dcp), strict=True):
                    g.expanded = expand
            todo = [(g, i) for g, grp in enumerate(groups) if grp.expanded
                    for i, tr in enumerate(grp.trajectories) if needs_turn(tr, r.max_turns, self.cfg.dcp)]
            for g, i in todo:
                contexts[(g, i)] = next_messages(first[g], groups[g].trajectories[i].turns, budget=budget,
                                                 count=count)
        return groups, timing
