"""CLI edges: --version, `leap train` without a config, --print-config, JSON without NaN."""

from __future__ import annotations

import json
import math

from typer.testing import CliRunner

from leap import __version__
from leap.cli.main import app
from leap.trainer.metrics import json_safe

runner = CliRunner()


def test_version():
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and res.output.strip() == f"leap {__version__}"


def test_train_without_config_says_so_in_one_line():
    res = runner.invoke(app, ["train"])
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--config FILE" in lines[0]


def test_train_print_config_lists_keys_with_defaults():
    res = runner.invoke(app, ["train", "--print-config"])
    assert res.exit_code == 0
    rows = {ln.split()[0]: ln.split()[1] for ln in res.output.splitlines() if ln.strip()}
    assert rows["rollout.group_size"] == "8" and rows["steps"] == "100" and "sandbox.trials" in rows


def test_train_wrong_type_names_key_value_and_type(tmp_path):
    res = runner.invoke(app, ["train", "model.tiny={}", "steps=many"])
    assert res.exit_code == 2
    assert "steps: expected an integer, got 'many' (str)" in res.output


def test_json_safe_turns_nan_into_null():
    out = json_safe({"a": float("nan"), "b": [1.0, float("inf")], "c": {"d": 2}})
    text = json.dumps(out, allow_nan=False)
    assert json.loads(text) == {"a": None, "b": [1.0, None], "c": {"d": 2}}
    assert not math.isnan(json_safe(0.5))


def test_tasks_list_keeps_full_names_on_a_narrow_pipe():
    res = runner.invoke(app, ["tasks", "list"], env={"COLUMNS": "80"}, terminal_width=80)
    assert res.exit_code == 0
    from leap.tasks.suite import iter_task_source

    longest = max((t.name for t in iter_task_source("builtin")), key=len)
    assert longest in res.output


def test_demo_policy_folder_loads_as_a_chat_model(tmp_path):
    from transformers import AutoTokenizer

    from leap.demo.policy import TinyConfig, TinyPolicy, build_model, train_tokenizer

    tok = train_tokenizer(["### Task\nadd\n### Answer\nx = 1\n"] * 4, 300)
    TinyPolicy(tok, build_model(TinyConfig(hidden=16, layers=1, heads=2), tok.get_vocab_size())).save(tmp_path)
    hf = AutoTokenizer.from_pretrained(tmp_path)
    text = hf.apply_chat_template([{"role": "system", "content": "s"}, {"role": "user", "content": "relu"},
                                   {"role": "assistant", "content": "code"}, {"role": "user", "content": "wrong"}],
                                  tokenize=False, add_generation_prompt=True)
    assert text == "### Task\nrelu\n### Previous\ncode\n### Feedback\nwrong\n### Answer\n"
    assert hf.pad_token_id == 0 and hf.eos_token_id == 1
    assert TinyPolicy.load(tmp_path).encode("add") == tok.encode("add").ids


def test_sandbox_config_from_overrides_types_values_and_keeps_fixed_fields():
    from leap.cli.common import sandbox_config

    cfg = sandbox_config(["workers=3", "judge_memory_gib=12.5", "gpus=[0, 1]", "transport=files"], rules="kernelbench")
    assert (cfg.workers, cfg.judge_memory_gib, cfg.gpus, cfg.transport, cfg.rules) == (3, 12.5, [0, 1], "files",
                                                                                         "kernelbench")
