"""The one config schema: shipped YAML files load, overrides are typed, bad keys give one clear line."""

from pathlib import Path

import pytest

from leap.trainer.config import ConfigError, TrainConfig, dump_config, load_config

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


@pytest.mark.parametrize("name", ["leap_tiny_cpu", "qwen05b_h200", "qwen7b_8gpu", "grpo_scalar_reward",
                                  "multiturn_no_pruning", "single_turn"])
def test_shipped_configs_load(name):
    cfg = load_config(CONFIGS / f"{name}.yaml")
    assert isinstance(cfg, TrainConfig) and cfg.run_name == name


def test_baselines_differ_from_leap_where_they_should():
    leap = load_config(CONFIGS / "qwen05b_h200.yaml")
    scalar = load_config(CONFIGS / "grpo_scalar_reward.yaml")
    nopr = load_config(CONFIGS / "multiturn_no_pruning.yaml")
    single = load_config(CONFIGS / "single_turn.yaml")
    assert leap.dcp.enabled and leap.reward.kind == "tournament" and leap.rollout.max_turns == 3
    assert scalar.reward.kind == "scalar" and scalar.reward.correct_weight == 0.3 and not scalar.dcp.enabled
    assert not nopr.dcp.enabled and nopr.reward.kind == "tournament"
    assert single.rollout.max_turns == 1
    assert leap.model.path == "Qwen/Qwen2.5-Coder-0.5B-Instruct" and leap.model.finetune == "lora"


def test_overrides_are_typed_by_the_schema():
    cfg = load_config(CONFIGS / "leap_tiny_cpu.yaml",
                      ["optim.lr=3e-4", "rollout.group_size=6", "dcp.enabled=false",
                       "model.lora.targets=[q_proj, v_proj]", "rollout.sampling.temperature=0.5"])
    assert cfg.optim.lr == pytest.approx(3e-4) and isinstance(cfg.optim.lr, float)
    assert cfg.rollout.group_size == 6 and cfg.dcp.enabled is False
    assert cfg.model.lora.targets == ["q_proj", "v_proj"]
    assert cfg.rollout.sampling.temperature == 0.5


def test_dump_round_trips(tmp_path):
    cfg = load_config(CONFIGS / "qwen05b_h200.yaml", ["steps=7"])
    f = tmp_path / "c.yaml"
    f.write_text(dump_config(cfg))
    assert load_config(f) == cfg


@pytest.mark.parametrize("override, key, expected", [
    ("optim.lrr=1", "optim.lrr", "unknown key"),
    ("optim.lr=fast", "optim.lr", "valid number"),
    ("rollout.group_size=1", "rollout.group_size", "greater than or equal to 2"),
    ("rollout.kernel_backend=cuda", "rollout.kernel_backend", "'triton', 'cuda_inline' or 'cuda_nvrtc'"),
    ("reward.kind=elo", "reward.kind", "'tournament' or 'scalar'"),
    ("dcp.pruning=on", "dcp.pruning", "unknown key"),
    ("nonsense", "nonsense", "key.sub=value"),
])
def test_bad_keys_give_one_line_naming_file_key_and_expectation(override, key, expected):
    path = CONFIGS / "leap_tiny_cpu.yaml"
    with pytest.raises(ConfigError) as info:
        load_config(path, [override])
    msg = str(info.value)
    assert "\n" not in msg
    assert str(path) in msg and key in msg and expected in msg


def test_bad_yaml_file(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("model:\n  tiny: {}\nrollout:\n  group_size: [\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml.*line \d+ not valid YAML"):
        load_config(f)
    f.write_text("model:\n  path: x\n  tiny: {}\n")
    with pytest.raises(ConfigError, match="exactly one of model.path or model.tiny"):
        load_config(f)
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "missing.yaml")
    f.write_text("steps: 3\n")
    with pytest.raises(ConfigError, match="model: required key is missing"):
        load_config(f)
