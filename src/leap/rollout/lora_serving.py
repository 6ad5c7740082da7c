"""LoRA adapters loaded into `leap serve` at run time, by name, the way vLLM's server does it.

``POST /v1/load_lora_adapter {"lora_name": N, "lora_path": DIR}`` loads a peft adapter folder under the name
N; a chat request whose ``model`` is N then generates with that adapter; ``POST /v1/unload_lora_adapter
{"lora_name": N}`` drops it. The served model's own name keeps generating with the base weights. A trainer
whose rollouts run on the server (``rollout.backend: openai``) saves its adapter each step and loads it
here, so every step's samples come from the weights being trained.

Adapters are applied with peft (`peft.PeftModel`) on the served HF model; one lock orders loading,
unloading and generation, so a batch never sees an adapter change half-way.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from leap.rollout.server import APIError


class AdapterSet:
    """The named LoRA adapters of one served `leap.rollout.policies.hf.HFPolicy` (at most ``max_adapters``)."""

    def __init__(self, policy, max_adapters: int = 8):
        self.policy, self.max_adapters = policy, max_adapters
        self.lock = threading.RLock()
        self.loaded: dict[str, str] = {}  # name -> path
        self.loads = 0  # adapters loaded since start (a client can see that its loads arrived)

    def names(self) -> list[str]:
        with self.lock:
            return list(self.loaded)

    def load(self, name: str, path: str) -> None:
        """Load the peft adapter folder ``path`` as ``name``; `APIError` 400/404 with one line."""
        if not isinstance(name, str) or not name or not isinstance(path, str) or not path:
            raise APIError(400, "lora_name and lora_path: expected non-empty strings")
        folder = Path(path)
        if not (folder / "adapter_config.json").is_file():
            raise APIError(404, f"lora_path {path!r}: no adapter_config.json (not a peft adapter folder)")
        with self.lock:
            if name in self.loaded:
                raise APIError(400, f"the adapter {name!r} is already loaded; unload it first or load under "
                                    "another name")
            if len(self.loaded) >= self.max_adapters:
                raise APIError(400, f"{len(self.loaded)} adapters are loaded (limit {self.max_adapters}); "
                                    "unload one first")
            try:
                self._load(name, str(folder))
            except (ValueError, OSError, KeyError, RuntimeError) as exc:
                line = (str(exc).strip().splitlines() or [exc.__class__.__name__])[0][:200]
                raise APIError(400, f"lora_path {path!r}: cannot load the adapter ({line})") from None
            self.loaded[name] = str(folder)
            self.loads += 1

    def _load(self, name: str, path: str) -> None:
        from peft import PeftModel

        model = self.policy.model
        if isinstance(model, PeftModel):
            model.load_adapter(path, adapter_name=name, is_trainable=False)
        else:
            self.policy.model = PeftModel.from_pretrained(model, path, adapter_name=name, is_trainable=False).eval()
        self.policy.reset_state()  # a static cache or compiled decoder belongs to the old module tree

    def unload(self, name: str) -> None:
        with self.lock:
            if name not in self.loaded:
                raise APIError(404, f"the adapter {name!r} is not loaded", "model_not_found")
            del self.loaded[name]
            model = self.policy.model
            if self.loaded:
                model.delete_adapter(name)
            else:  # the last one: back to the plain base model
                self.policy.model = model.unload()
                self.policy.reset_state()

    @contextlib.contextmanager
    def using(self, name: str | None) -> Iterator[None]:
        """Hold the lock with adapter ``name`` active (None = the base weights)."""
        with self.lock:
            model = self.policy.model
            if name is None:
                ctx = model.disable_adapter() if self.loaded else contextlib.nullcontext()
                with ctx:
                    yield
                return
            if name not in self.loaded:
                raise APIError(404, f"the adapter {name!r} is not loaded", "model_not_found")
            model.set_adapter(name)
            yield
