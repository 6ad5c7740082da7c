"""`load_finetuned` / `leap eval --checkpoint`: the policy a `leap sft` run produced, LoRA merged, is what
gets evaluated (not the base weights); a bad checkpoint is one clear error line."""

import json
import sys
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from trainer_tiny import write_tiny_checkpoint  # noqa: E402

from leap.cli.main import app  # noqa: E402
from leap.trainer.config import ConfigError, load_config  # noqa: E402
from leap.trainer.finetuned import load_finetuned  # noqa: E402
from leap.trainer.sft import run_sft  # noqa: E402


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ft")
    base = str(write_tiny_checkpoint(tmp / "base"))
    data = tmp / "d.jsonl"
    data.write_text("\n".join(json.dumps({"prompt": p, "answer": a}) for p, a in
                              [("add", "x + y"), ("neg", "-x"), ("mul", "x * y")]) + "\n")
    cfg = load_config(None, [f"model.path={base}", "model.lora.rank=8", "model.lora.targets=all-linear",
                             f"sft.data={data}", "sft.epochs=10", "optim.lr=1e-2", "optim.micro_batch_size=3",
                             f"checkpoint.dir={tmp}/ck", "checkpoint.every=0", f"logging.dir={tmp}/log",
                             "logging.progress=false", "device=cpu"])
    run_sft(cfg)
    return base, tmp / "ck"


def _answer_logprob(model, tok, prompt: str, answer: str) -> float:
    text = tok.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False)
    p = tok(text, add_special_tokens=False)["input_ids"]
    a = tok(answer, add_special_tokens=False)["input_ids"]
    ids = torch.tensor([p + a])
    with torch.no_grad():
        lp = torch.log_softmax(model(input_ids=ids).logits.float(), -1)
    return float(lp[0, len(p) - 1:-1].gather(-1, ids[0, len(p):, None]).sum())


def test_the_checkpoints_weights_are_merged_in(trained):
    from transformers import AutoModelForCausalLM

    base, ck = trained
    model, tok = load_finetuned(base, ck, "cpu")
    assert not any(p.requires_grad for p in model.parameters())
    assert not any("lora" in n for n, _ in model.named_parameters())  # merged, plain model
    plain = AutoModelForCausalLM.from_pretrained(base).eval()
    assert _answer_logprob(model, tok, "neg", "-x") > _answer_logprob(plain, tok, "neg", "-x") + 1.0


def test_bad_checkpoint_is_one_error_line(trained, tmp_path):
    base, _ = trained
    with pytest.raises(ConfigError):
        load_finetuned(base, tmp_path, "cpu")
    r = CliRunner().invoke(app, ["eval", "--model", base, "--checkpoint", str(tmp_path), "--out", str(tmp_path / "o"),
                                 "--device", "cpu"])
    assert r.exit_code == 2 and "--checkpoint" in r.output and "Traceback" not in r.output


def test_eval_runs_the_finetuned_policy(trained, tmp_path):
    base, ck = trained
    out = tmp_path / "ev"
    r = CliRunner().invoke(app, ["eval", "--model", base, "--checkpoint", str(ck), "--backend", "hf",
                                 "--tasks", "builtin:eval", "--limit", "1", "--samples", "1", "--turns", "1",
                                 "--max-new-tokens", "8", "--device", "cpu", "--cache", "dynamic", "--out", str(out)])
    assert r.exit_code == 0, r.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["samples"] == 1 and len(summary["acc_at_turn"]) == 1
