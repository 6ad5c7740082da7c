"""The one config schema: shipped YAML files load, overrides are typed, bad keys give one clear line."""

from pathlib import Path

import pytest

from leap.trainer.config import ConfigError, TrainConfig, dump_config, load_config

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


@pytest.mark.parametrize("name", ["leap_tiny_cpu", "smoke_tiny_random", "qwen05b_h200", "qwen7b_8gpu",
                                  "grpo_scalar_reward",
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
    cfg = load_config(CONFIGS / "smoke_tiny_random.yaml",
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
    ("optim.lr=fast", "optim.lr", "expected a number, got 'fast' (str)"),
    ("steps=abc", "steps", "expected an integer, got 'abc' (str)"),
    ("rollout=3", "rollout", "expected a mapping (a section), got 3 (int)"),
    ("rollout.grup_size=3", "rollout.grup_size", "unknown key (did you mean 'rollout.group_size'?)"),
    ("optim.learning_rat=1", "optim.learning_rat", "unknown key"),
    ("rollout.group_size=1", "rollout.group_size", "greater than or equal to 2"),
    ("rollout.kernel_backend=cuda", "rollout.kernel_backend", "'triton', 'cuda_inline' or 'cuda_nvrtc'"),
    ("reward.kind=elo", "reward.kind", "'tournament' or 'scalar'"),
    ("dcp.pruning=on", "dcp.pruning", "unknown key"),
    ("nonsense", "nonsense", "key.sub=value"),
])
def test_bad_keys_give_one_line_naming_file_key_and_expectation(override, key, expected):
    path = CONFIGS / "smoke_tiny_random.yaml"
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
    with pytest.raises(ConfigError, match="exactly one of model.path, model.tiny or model.demo"):
        load_config(f)
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "missing.yaml")
    f.write_text("steps: 3\n")
    with pytest.raises(ConfigError, match="no model section: give --config FILE"):
        load_config(f)


def test_output_dir_holds_checkpoints_and_logs_unless_set():
    cfg = load_config(None, ["model.tiny={}", "output_dir=/tmp/run7"])
    assert cfg.checkpoint.dir == "/tmp/run7/checkpoints" and cfg.logging.dir == "/tmp/run7"
    cfg = load_config(None, ["model.tiny={}", "output_dir=/tmp/run7", "checkpoint.dir=/x"])
    assert cfg.checkpoint.dir == "/x" and cfg.logging.dir == "/tmp/run7"


def test_sandbox_section_is_strict_and_reaches_the_sandbox_config():
    cfg = load_config(None, ["model.tiny={}", "sandbox.trials=7", "rollout.sandbox_workers=3"])
    sc = cfg.sandbox.for_rollout(cfg.rollout)
    assert sc.trials == 7 and sc.workers == 3
    with pytest.raises(ConfigError, match=r"sandbox\.trails: unknown key \(did you mean 'sandbox\.trials'\?\)"):
        load_config(None, ["model.tiny={}", "sandbox.trails=7"])


def test_print_config_lists_every_key_with_default_and_description():
    from leap.trainer.config import describe_config

    rows = describe_config()
    keys = {k for k, _, _ in rows}
    assert {"steps", "output_dir", "rollout.group_size", "dcp.t_min", "sandbox.trials",
            "model.lora.rank", "logging.dir"} <= keys
    assert all(doc for _, _, doc in rows), [k for k, _, d in rows if not d]
    assert dict((k, d) for k, d, _ in rows)["rollout.group_size"] == "8"


def test_one_strict_base_for_every_section():
    from leap.algorithms.config import StrictConfig
    from leap.trainer.config import TrainConfig

    def sections(cls):
        for f in cls.model_fields.values():
            for a in (f.annotation, *getattr(f.annotation, "__args__", ())):
                if isinstance(a, type) and hasattr(a, "model_fields"):
                    yield a
                    yield from sections(a)

    found = set(sections(TrainConfig))
    assert len(found) >= 10
    for cls in found - {__import__("leap.sandbox.config", fromlist=["Tolerance"]).Tolerance}:
        assert issubclass(cls, StrictConfig) or cls.model_config.get("extra") == "forbid", cls


@pytest.mark.parametrize("variant", ["single_turn", "multiturn_no_pruning", "grpo_scalar_reward"])
def test_baseline_configs_are_the_base_plus_the_variant_overlay(variant):
    """configs/<variant>.yaml = configs/qwen05b_h200.yaml + src/leap/trainer/variants/<variant>.yaml
    (the overlay `leap demo --variant` and bench/ablation.py use), apart from names and folders."""
    shipped = load_config(CONFIGS / f"{variant}.yaml")
    overlaid = load_config(CONFIGS / "qwen05b_h200.yaml", variant=variant)
    ignore = {"run_name", "output_dir", "checkpoint", "logging"}
    assert shipped.model_dump(exclude=ignore) == overlaid.model_dump(exclude=ignore)
    assert overlaid != load_config(CONFIGS / "qwen05b_h200.yaml")


def test_demo_variants_use_the_same_overlays():
    from leap.demo.pipeline import VARIANTS, DemoConfig, trainer_config
    from leap.trainer.config import VARIANTS as TRAIN_VARIANTS

    assert VARIANTS == TRAIN_VARIANTS
    single = trainer_config(DemoConfig(variant="single_turn"))
    scalar = trainer_config(DemoConfig(variant="grpo_scalar_reward"))
    leap = trainer_config(DemoConfig(variant="leap"))
    assert single.rollout.max_turns == 1 and single.reward.kind == "tournament"
    assert scalar.reward.kind == "scalar" and not scalar.dcp.enabled and scalar.credit.kind == "kevin"
    assert leap.dcp.enabled and leap.rollout.max_turns == 3
    with pytest.raises(ConfigError, match="variant: expected one of"):
        load_config(CONFIGS / "qwen05b_h200.yaml", variant="scalar_reward")


def test_tiny_cpu_config_trains_the_demo_policy():
    cfg = load_config(CONFIGS / "leap_tiny_cpu.yaml")
    assert cfg.model.demo is not None and cfg.model.demo.build_if_missing
    assert cfg.checkpoint.dir == "runs/leap_tiny_cpu/checkpoints" and cfg.logging.dir == "runs/leap_tiny_cpu"
