"""``rollout.backend: openai`` against a real `leap serve --enable-lora` on loopback: the server's dynamic
LoRA routes (vLLM's), and 2 training steps whose samples come from the adapter being trained."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import httpx
import pytest
import torch
from loopback import leap_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from trainer_tiny import write_tiny_checkpoint  # noqa: E402

from leap.trainer import loop  # noqa: E402
from leap.trainer.config import ConfigError, load_config  # noqa: E402
from leap.trainer.logging import read_metrics  # noqa: E402

GREEDY = {"messages": [{"role": "user", "content": "Write relu_fp32 as ModelNew."}], "max_tokens": 8,
          "temperature": 0.0}


def _eos_biased_checkpoint(path: Path) -> Path:
    """The tiny byte-level checkpoint with its EOS row of the (untied) output layer pointed along the mean
    hidden state, so completions end at varied lengths (1-16 tokens instead of always 16): the tournament's
    length tie-break then gives a random policy a learning signal even though every verdict is a
    format_error."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    write_tiny_checkpoint(path)
    model, tok = AutoModelForCausalLM.from_pretrained(path), AutoTokenizer.from_pretrained(path)
    ids = tok("<user>Write a Triton relu kernel as ModelNew for the task\n<assistant>", return_tensors="pt").input_ids
    with torch.no_grad():
        mean_h = model(ids, output_hidden_states=True).hidden_states[-1][0].mean(0)
    model.config.tie_word_embeddings = False
    model.lm_head.weight = torch.nn.Parameter(model.model.embed_tokens.weight.detach().clone())
    with torch.no_grad():
        model.lm_head.weight[tok.eos_token_id] = 0.4 * mean_h
    model.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    return _eos_biased_checkpoint(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def served(ckpt):
    with leap_server(["serve", str(ckpt), "--device", "cpu", "--name", "tiny", "--cache", "dynamic",
                      "--enable-lora", "--max-loras", "2"], ckpt.parent / "serve_stderr.log") as (base, _):
        yield base


def _adapter(ckpt: Path, out: Path, seed: int) -> Path:
    """A peft LoRA folder with random (non-zero) B, so it changes what the model writes."""
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(ckpt),
                           LoraConfig(r=4, lora_alpha=64, target_modules=["q_proj", "v_proj", "down_proj"],
                                      init_lora_weights=False))
    model.save_pretrained(out)
    return out


def _chat(base: str, model: str) -> httpx.Response:
    return httpx.post(base + "/v1/chat/completions", json={**GREEDY, "model": model}, timeout=120)


def test_leap_serve_loads_and_unloads_lora_adapters(served, ckpt, tmp_path):
    base = served
    plain = _chat(base, "tiny").json()["choices"][0]["token_ids"]
    a = _adapter(ckpt, tmp_path / "a", seed=1)
    r = httpx.post(base + "/v1/load_lora_adapter", json={"lora_name": "a", "lora_path": str(a)}, timeout=60)
    assert r.status_code == 200, r.text
    assert [m["id"] for m in httpx.get(base + "/v1/models").json()["data"]] == ["tiny", "a"]
    with_a = _chat(base, "a").json()["choices"][0]["token_ids"]
    assert with_a != plain  # the adapter generates
    assert _chat(base, "tiny").json()["choices"][0]["token_ids"] == plain  # the base name still means the base
    again = httpx.post(base + "/v1/load_lora_adapter", json={"lora_name": "a", "lora_path": str(a)}, timeout=60)
    assert again.status_code == 400 and "already loaded" in again.json()["error"]["message"]
    missing = httpx.post(base + "/v1/load_lora_adapter", json={"lora_name": "b", "lora_path": str(tmp_path)})
    assert missing.status_code == 404 and "adapter_config.json" in missing.json()["error"]["message"]
    assert httpx.post(base + "/v1/unload_lora_adapter", json={"lora_name": "a"}).status_code == 200
    assert _chat(base, "a").status_code == 404
    assert _chat(base, "tiny").json()["choices"][0]["token_ids"] == plain
    assert httpx.get(base + "/health").json()["lora_adapters"] == []


def test_lora_routes_are_off_without_enable_lora(ckpt):
    import threading

    from leap.rollout.policies.hf import HFPolicy
    from leap.rollout.server import make_server

    srv = make_server(HFPolicy(str(ckpt), device="cpu", cache="dynamic"), "127.0.0.1", 0, model_name="tiny")
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        base = f"http://127.0.0.1:{srv.server_port}"
        for _ in range(100):
            try:
                httpx.get(base + "/health", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        r = httpx.post(base + "/v1/load_lora_adapter", json={"lora_name": "a", "lora_path": "/tmp"}, timeout=30)
        assert r.status_code == 404 and "--enable-lora" in r.json()["error"]["message"]
    finally:
        srv.shutdown()


def test_backend_config_errors_are_one_line():
    with pytest.raises(ConfigError, match="needs rollout.server.url"):
        load_config(None, ["model.path=x", "rollout.backend=openai"])
    with pytest.raises(ConfigError, match="model.finetune: lora"):
        load_config(None, ["model.path=x", "rollout.backend=vllm", "model.finetune=full"])
    with pytest.raises(ConfigError, match="needs model.path"):
        load_config(None, ["model.tiny={}", "rollout.backend=openai", "rollout.server.url=http://h:1/v1"])


def _short_prompt(task, turns):
    return [{"role": "user", "content": f"Write {task.name} as ModelNew with a Triton kernel."}]


def test_train_two_steps_with_the_openai_backend_follows_the_adapter(served, ckpt, tmp_path):
    from safetensors.torch import load_file

    base = served
    loads_before = httpx.get(base + "/health").json()["lora_loads"]
    cfg = load_config(None, [
        f"model.path={ckpt}", "model.lora.rank=8", "model.lora.targets=all-linear", "device=cpu",
        "rollout.backend=openai", f"rollout.server.url={base}/v1", "rollout.tasks=builtin:train",
        "rollout.task_filter=[relu_fp32, add_fp32]", "rollout.group_size=4", "rollout.tasks_per_step=2",
        "rollout.max_turns=1", "rollout.sampling.max_new_tokens=16", "rollout.sandbox_device=cpu",
        "rollout.sandbox_workers=1", "reward.token_unsolved=true", "reward.token_margin=0.0", "optim.lr=5e-2",
        "optim.grad_clip=0", "steps=2", f"output_dir={tmp_path}", "logging.progress=false", "checkpoint.every=0"])
    seen: dict[int, dict] = {}

    def on_step(step, metrics, groups):  # the adapter the server generated this step's samples with
        folder = tmp_path / "rollout_adapters" / f"leap-r0-step{step - 1}"
        seen[step] = load_file(folder / "adapter_model.safetensors")
        assert all(t.prompt_ids and t.completion_ids and t.completion_logprobs for g in groups
                   for tr in g.trajectories for t in tr.turns)

    summary = loop.train(cfg, prompt_fn=_short_prompt, on_step=on_step)
    assert summary["step"] == 2
    assert httpx.get(base + "/health").json()["lora_loads"] == loads_before + 2  # one adapter per step
    assert httpx.get(base + "/health").json()["lora_adapters"] == []  # unloaded at the end of the run
    rows = read_metrics(tmp_path / "metrics.jsonl")
    assert len(rows) == 2
    assert rows[0]["grad_norm"] > 0 and all(torch.isfinite(torch.tensor(r["loss"])) for r in rows)
    # step 2's samples came from the step-1 adapter: the weights changed, and the server's log-probs of the
    # sampled tokens match the trainer's under the trained weights
    changed = [k for k in seen[1] if not torch.equal(seen[1][k], seen[2][k])]
    assert changed, "the adapter sent for step 2 equals step 1's"
    assert all(r["sampler/logprob_gap"] < 1e-3 for r in rows), [r["sampler/logprob_gap"] for r in rows]
    assert rows[0]["time/sync"] > 0


def test_vllm_backend_without_vllm_is_one_clear_line(ckpt, tmp_path):
    import importlib.util

    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vllm is installed here (tests/gpu/test_vllm_rollout_gpu.py runs it)")
    from leap.trainer.model import load_policy
    from leap.trainer.rollout_backends import build_sampler

    cfg = load_config(None, [f"model.path={ckpt}", "device=cpu", "rollout.backend=vllm", f"output_dir={tmp_path}"])
    with pytest.raises(ConfigError) as err:
        build_sampler(load_policy(cfg.model, torch.device("cpu")), cfg)
    msg = str(err.value)
    assert "\n" not in msg and "needs the vllm package" in msg and msg.startswith("rollout.backend vllm:")
