"""`RayExecutor`: verify candidates on a Ray cluster, one actor per GPU (or per CPU worker slot), each
actor holding a warm `leap.sandbox.Sandbox`.

Work is handed out per candidate, at most ``actor_concurrency`` in flight per actor, so verdicts stream
back as they complete (same ``verify``/``verify_many`` API as `Sandbox`). When an actor dies, every
candidate it held is resubmitted to a live actor (up to ``max_attempts`` times); when no attempt can run,
the candidate gets a ``sandbox_error`` verdict, never one that blames it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from leap.sandbox.config import SandboxConfig
from leap.sandbox.judge.verdict import Verdict
from leap.tasks.task import Task


class _SandboxActor:
    """Ray actor body: one warm sandbox, verifying calls concurrently (the scheduler is thread-safe)."""

    def __init__(self, config: SandboxConfig, device: str):
        import os

        from leap.sandbox import Sandbox

        if device == "cuda":  # Ray sets CUDA_VISIBLE_DEVICES to the actor's GPU(s): use exactly those
            config = config.model_copy(update={"gpus": list(range(len(
                [g for g in os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",") if g])))})
        self.sb = Sandbox(config, device=device)
        self.device = self.sb.device

    def verify(self, task: Task, source: str, backend: str) -> Verdict:
        return self.sb.verify(task, source, backend=backend, device=self.device)

    def pid(self) -> int:
        import os

        return os.getpid()


class RayExecutor:
    """A pool of sandbox actors on a Ray cluster (``ray.init()`` is called if Ray is not running).

    ``actors``: how many (0 = one per GPU on the cluster for ``device='cuda'``, else 2); ``gpus_per_actor``
    may be fractional to put several actors on one GPU; ``actor_concurrency`` = candidates in flight per
    actor (defaults to the sandbox config's workers, else 2).
    """

    def __init__(self, config: SandboxConfig | None = None, device: str = "cpu", *, actors: int = 0,
                 gpus_per_actor: float = 1.0, cpus_per_actor: float = 1.0, actor_concurrency: int = 0,
                 max_attempts: int = 3, ray_address: str | None = None):
        try:
            import ray
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise RuntimeError("the ray executor needs Ray: pip install 'leap[ray]'") from exc
        self._ray = ray
        if not ray.is_initialized():
            ray.init(address=ray_address, include_dashboard=False, log_to_driver=False,
                     ignore_reinit_error=True)
        self.config = config or SandboxConfig()
        if device == "auto":
            device = "cuda" if ray.cluster_resources().get("GPU", 0) else "cpu"
        self.device = device
        if actors <= 0:
            gpus = int(ray.cluster_resources().get("GPU", 0))
            actors = max(1, int(gpus / gpus_per_actor)) if device == "cuda" and gpus else 2
        self.concurrency = actor_concurrency or self.config.workers or 2
        cfg = self.config if self.config.workers else self.config.model_copy(update={"workers": self.concurrency})
        opts = {"num_cpus": cpus_per_actor, "max_concurrency": self.concurrency, "max_restarts": 0}
        if device == "cuda":
            opts["num_gpus"] = gpus_per_actor
        cls = ray.remote(_SandboxActor)
        self.actors = [cls.options(**opts).remote(cfg, device) for _ in range(actors)]
        self.max_attempts = max_attempts
        self.retried = 0  # candidates resubmitted after their actor died
        self.in_flight: dict[int, list[int]] = {}  # actor slot -> indices it holds (for tests and progress)

    def verify(self, task: Task, source: str, *, backend: str = "auto", device: str = "auto") -> Verdict:
        """Verify one candidate on some actor (``device`` is the actors'; the argument mirrors `Sandbox`)."""
        return next(iter(self.verify_many([(task, source)], backend=backend)))[1]

    def verify_many(self, pairs: Iterable[tuple[Task, str]], *, backend: str = "auto",
                    device: str = "auto") -> Iterator[tuple[int, Verdict]]:
        """Yields ``(index, verdict)`` as candidates complete, in any order."""
        ray = self._ray
        items = list(pairs)
        todo = list(range(len(items)))[::-1]  # a stack; retries go on top
        attempts = [0] * len(items)
        live = [a is not None for a in self.actors]
        refs: dict = {}  # ObjectRef -> (index, actor slot)
        self.in_flight = {s: [] for s in range(len(self.actors))}

        def fill() -> None:
            for slot, actor in enumerate(self.actors):
                while live[slot] and todo and len(self.in_flight[slot]) < self.concurrency:
                    i = todo.pop()
                    attempts[i] += 1
                    task, source = items[i]
                    refs[actor.verify.remote(task, source, backend)] = (i, slot)
                    self.in_flight[slot].append(i)

        fill()
        while refs:
            done, _ = ray.wait(list(refs), num_returns=1)
            i, slot = refs.pop(done[0])
            self.in_flight[slot].remove(i)
            try:
                verdict = ray.get(done[0])
            except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError):
                live[slot] = False
                self.actors[slot] = None
                if attempts[i] < self.max_attempts and any(live):
                    self.retried += 1
                    todo.append(i)
                    fill()
                    continue
                verdict = _sandbox_error(items[i][0], "no live sandbox actor could verify this candidate")
            except Exception as exc:  # a failure inside the judge, not the candidate
                verdict = _sandbox_error(items[i][0], f"ray executor: {exc.__class__.__name__}: {exc}")
            fill()
            yield i, verdict
        for i in todo:  # every actor died before these ran
            yield i, _sandbox_error(items[i][0], "no live sandbox actor could verify this candidate")

    def close(self) -> None:
        for a in self.actors:
            if a is not None:
                self._ray.kill(a)
        self.actors = [None] * len(self.actors)

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _sandbox_error(task: Task, why: str) -> Verdict:
    return Verdict(status="sandbox_error", task=task.name, detail=why,
                   feedback="The verifier failed on its side; this attempt says nothing about your kernel.")
