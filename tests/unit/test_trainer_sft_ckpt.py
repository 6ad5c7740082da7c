"""Cold-start SFT (completion-only loss, accumulation-invariant, learns) and atomic checkpoints."""

import json
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
from trainer_tiny import write_tiny_checkpoint  # noqa: E402

from leap.trainer.checkpoint import (  # noqa: E402
    TrainingDiverged,
    load_checkpoint,
    resolve_checkpoint,
    save_checkpoint,
    slim_checkpoint,
)
from leap.trainer.config import ConfigError, ModelConfig, load_config  # noqa: E402
from leap.trainer.model import load_policy  # noqa: E402
from leap.trainer.optim import step_if_finite  # noqa: E402
from leap.trainer.sft import answer_nll, encode_example, load_sft_jsonl, run_sft, sft_step  # noqa: E402
from leap.trainer.tokens import pad_right, token_logprobs  # noqa: E402


@pytest.fixture(scope="module")
def tiny_path(tmp_path_factory):
    return str(write_tiny_checkpoint(tmp_path_factory.mktemp("tiny") / "model"))


def _policy(path, **kw):
    return load_policy(ModelConfig(path=path, lora={"rank": 4, "alpha": 8, "targets": "all-linear"}, **kw),
                       torch.device("cpu"))


def _write_data(path: Path) -> Path:
    rows = [{"prompt": "add", "answer": "x + y"},
            {"prompt": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "mul"}],
             "answer": "x * y"},
            {"prompt": "neg", "answer": "-x"},
            {"prompt": "sub", "answer": "x - y"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_answer_nll_counts_only_answer_tokens(tiny_path):
    pol = _policy(tiny_path)
    ex = encode_example(pol.tokenizer, "a long prompt text", "short")
    nll, n = answer_nll(pol.model, [ex], pol.tokenizer.pad_token_id, "cpu")
    assert n == len(ex.answer_ids)
    ids, attn = pad_right([ex.prompt_ids + ex.answer_ids], 0)
    full, _ = token_logprobs(pol.model, ids, attn)
    assert torch.allclose(nll, -full[0, len(ex.prompt_ids):].sum(), atol=1e-4)


def test_sft_accumulation_invariance(tiny_path, tmp_path):
    pol = _policy(tiny_path)
    examples, _ = load_sft_jsonl(_write_data(tmp_path / "d.jsonl"), pol.tokenizer, 512)
    params = pol.trainable_parameters()
    grads = []
    for micro in (1, 4):
        pol.model.zero_grad(set_to_none=True)
        loss, _ = sft_step(pol, examples, micro, "cpu")
        grads.append((loss, torch.cat([p.grad.flatten() for p in params if p.grad is not None])))
    assert grads[0][0] == pytest.approx(grads[1][0], rel=1e-5)
    assert torch.allclose(grads[0][1], grads[1][1], rtol=1e-4, atol=1e-6)


def test_sft_learns_and_checkpoints(tiny_path, tmp_path):
    data = _write_data(tmp_path / "d.jsonl")
    cfg = load_config(None, [f"model.path={tiny_path}", "model.lora.rank=8", "model.lora.targets=all-linear",
                             f"sft.data={data}", "sft.epochs=15", "optim.lr=1e-2", "optim.micro_batch_size=2",
                             "optim.grad_accumulation=2", f"checkpoint.dir={tmp_path}/ck", "checkpoint.every=10",
                             f"logging.dir={tmp_path}/log", "logging.progress=false", "device=cpu"])
    summary = run_sft(cfg)
    rows = [json.loads(x) for x in (tmp_path / "log" / "metrics.jsonl").read_text().splitlines()]
    assert summary["step"] == 15 and len(rows) == 15
    assert all(torch.isfinite(torch.tensor(r["loss"])) for r in rows)
    assert rows[-1]["loss"] < 0.7 * rows[0]["loss"]
    assert resolve_checkpoint(tmp_path / "ck").name == "step-15"
    assert (tmp_path / "ck" / "step-15" / "adapter" / "adapter_config.json").is_file()
    # RL starts from the SFT weights with model.init_from
    saved = torch.load(tmp_path / "ck" / "step-15" / "trainable.pt")
    started = load_policy(cfg.model.model_copy(update={"init_from": str(tmp_path / "ck")}), torch.device("cpu"))
    assert all(torch.equal(saved[k], v) for k, v in started.trainable_state().items())


def test_step_if_finite_drops_an_overflowed_gradient():
    w = torch.nn.Parameter(torch.ones(3))
    opt = torch.optim.SGD([w], lr=0.1)
    w.grad = torch.tensor([1.0, float("inf"), 0.0])
    assert step_if_finite(opt, [w], 1.0) == float("inf")
    assert torch.equal(w.detach(), torch.ones(3)) and w.grad is None
    w.grad = torch.tensor([1.0, 0.0, 0.0])
    assert step_if_finite(opt, [w], 0.0) == pytest.approx(1.0)
    assert w.detach()[0] == pytest.approx(0.9)


def test_sft_skips_a_nonfinite_step_and_keeps_finite_weights(tiny_path, tmp_path, monkeypatch):
    """One overflowed gradient (as in the 1.5B's SFT on 2026-12-05, step 30) must not turn the adapter NaN."""
    import leap.trainer.sft as sft_mod

    real, calls = sft_mod.sft_step, []

    def overflow_on_third(policy, batch, micro, device):
        out = real(policy, batch, micro, device)
        calls.append(1)
        if len(calls) == 3:
            next(p for p in policy.trainable_parameters() if p.grad is not None).grad.fill_(float("nan"))
        return out

    monkeypatch.setattr(sft_mod, "sft_step", overflow_on_third)
    data = _write_data(tmp_path / "d.jsonl")
    cfg = load_config(None, [f"model.path={tiny_path}", "model.lora.rank=8", "model.lora.targets=all-linear",
                             f"sft.data={data}", "sft.epochs=6", "optim.lr=1e-2", "optim.micro_batch_size=2",
                             "optim.grad_accumulation=2", f"checkpoint.dir={tmp_path}/ck", "checkpoint.every=0",
                             f"logging.dir={tmp_path}/log", "logging.progress=false", "device=cpu"])
    summary = run_sft(cfg)
    rows = [json.loads(x) for x in (tmp_path / "log" / "metrics.jsonl").read_text().splitlines()]
    assert [r["grad_norm"] is None for r in rows] == [False, False, True, False, False, False]
    assert summary["nonfinite_steps"] == 1 and summary["step"] == 6
    assert all(r["loss"] is not None for r in rows) and rows[-1]["loss"] < rows[0]["loss"]
    saved = torch.load(tmp_path / "ck" / "step-6" / "trainable.pt")
    assert all(torch.isfinite(t).all() for t in saved.values())


def test_checkpoint_refuses_nan_weights(tiny_path, tmp_path):
    pol = _policy(tiny_path)
    with torch.no_grad():
        pol.trainable_parameters()[0].fill_(float("nan"))
    with pytest.raises(TrainingDiverged, match=r"step-3: 1 of \d+ trained tensors hold NaN/inf"):
        save_checkpoint(tmp_path / "ck", 3, policy=pol)
    assert not (tmp_path / "ck").exists()
    # a NaN checkpoint written before this check existed is refused where a run or an eval would start from it
    good = _policy(tiny_path)
    save_checkpoint(tmp_path / "old", 1, policy=good)
    torch.save(pol.trainable_state(), tmp_path / "old" / "step-1" / "trainable.pt")
    with pytest.raises(ConfigError, match=r"model.init_from: .*step-1: 1 of \d+ trained tensors hold NaN/inf"):
        _policy(tiny_path, init_from=str(tmp_path / "old"))


@pytest.mark.parametrize("line, expected", [
    ("{not json", "d.jsonl:2: not valid JSON"),
    ('{"prompt": "x"}', "d.jsonl:2: expected an object with \"prompt\" and a string \"answer\""),
    ('{"prompt": [{"role": "user"}], "answer": "y"}', "d.jsonl:2: prompt: expected text or a list"),
])
def test_bad_sft_lines(tiny_path, tmp_path, line, expected):
    pol = _policy(tiny_path)
    f = tmp_path / "d.jsonl"
    f.write_text('{"prompt": "a", "answer": "b"}\n' + line + "\n")
    with pytest.raises(ConfigError) as info:
        load_sft_jsonl(f, pol.tokenizer, 512)
    assert expected in str(info.value) and "\n" not in str(info.value)


def test_checkpoint_roundtrip_is_atomic_and_exact(tiny_path, tmp_path):
    pol = _policy(tiny_path)
    opt = torch.optim.AdamW(pol.trainable_parameters(), lr=1e-2)
    for p in pol.trainable_parameters():
        p.grad = torch.randn_like(p)
    opt.step()
    before = pol.trainable_state()
    path = save_checkpoint(tmp_path / "ck", 3, policy=pol, optimizer=opt, state={"data_pos": 7},
                           config_yaml="x: 1\n", keep_last=1)
    assert path.name == "step-3" and not list((tmp_path / "ck").glob(".tmp-*"))
    save_checkpoint(tmp_path / "ck", 5, policy=pol, optimizer=opt, keep_last=1)
    assert [p.name for p in (tmp_path / "ck").glob("step-*")] == ["step-5"]  # pruned
    torch.manual_seed(123)
    save_checkpoint(tmp_path / "ck2", 3, policy=pol, optimizer=opt, state={"data_pos": 7})
    expected_draw = torch.rand(3)
    with torch.no_grad():
        for p in pol.trainable_parameters():
            p.add_(1.0)
    opt2 = torch.optim.AdamW(pol.trainable_parameters(), lr=1e-2)
    state = load_checkpoint(tmp_path / "ck2", policy=pol, optimizer=opt2)
    assert state == {"step": 3, "data_pos": 7}
    after = pol.trainable_state()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert opt2.state_dict()["state"][0]["step"] == opt.state_dict()["state"][0]["step"]
    assert torch.equal(torch.rand(3), expected_draw)  # RNG restored to the moment of saving
    with pytest.raises(ValueError, match="not a LEAP checkpoint"):
        resolve_checkpoint(tmp_path / "nothing")


def test_a_slim_checkpoint_carries_the_weights_in_bf16_and_loads_as_a_fresh_start(tiny_path, tmp_path):
    pol = _policy(tiny_path)
    with torch.no_grad():
        for p in pol.trainable_parameters():
            p.normal_()
    opt = torch.optim.AdamW(pol.trainable_parameters(), lr=1e-2)
    save_checkpoint(tmp_path / "ck", 4, policy=pol, optimizer=opt, state={"data_pos": 2}, config_yaml="x: 1\n")
    slim = slim_checkpoint(tmp_path / "ck", tmp_path / "slim")
    assert sorted(p.name for p in slim.iterdir()) == ["config.yaml", "state.json", "trainable.pt"]
    full = (tmp_path / "ck" / "step-4" / "trainable.pt").stat().st_size
    assert (slim / "trainable.pt").stat().st_size < 0.7 * full  # bf16: about half the fp32 bytes
    before = pol.trainable_state()
    fresh = _policy(tiny_path)
    assert load_checkpoint(slim, policy=fresh) == {"step": 4, "data_pos": 2}
    after = fresh.trainable_state()
    for k, v in before.items():  # the weights as bf16 rounds them, and not the fresh adapter's
        assert torch.equal(after[k], v.to(torch.bfloat16).to(v.dtype)) and not torch.equal(after[k], v * 0)


def test_leap_sft_cli(tiny_path, tmp_path):
    from typer.testing import CliRunner

    from leap.cli.main import app

    data = _write_data(tmp_path / "d.jsonl")
    common = [f"model.path={tiny_path}", "model.lora.targets=all-linear", "device=cpu", "logging.progress=false",
              f"logging.dir={tmp_path}/log", f"checkpoint.dir={tmp_path}/ck"]
    ok = CliRunner().invoke(app, ["sft", "--data", str(data), *common, "optim.micro_batch_size=4"])
    assert ok.exit_code == 0, ok.output
    start = ok.output.index('{"step"')  # the summary line (stderr progress output may precede it)
    assert json.loads(ok.output[start:].splitlines()[0])["step"] == 1
    (tmp_path / "bad.jsonl").write_text('{"prompt": "x"}\n')
    bad = CliRunner().invoke(app, ["sft", "--data", str(tmp_path / "bad.jsonl"), *common])
    assert bad.exit_code == 2 and "bad.jsonl:1: expected an object" in bad.output
