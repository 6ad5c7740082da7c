"""bench/train_step.py runs on the CPU with a tiny random model: both variants, the breakdown written."""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import train_step  # noqa: E402


def test_train_step_bench_tiny(tmp_path):
    out = tmp_path / "ts.json"
    rc = train_step.main(["--config", str(ROOT / "configs/qwen15b_h200.yaml"), "--random", "tiny", "--device", "cpu",
                          "--verifier", "none", "--tasks", "1", "--group", "2", "--new-tokens", "4", "--no-warmup",
                          "--variants", "old,new:2", "--out", str(out)])
    assert rc == 0
    doc = json.loads(out.read_text())
    old, new = doc["variants"]["old"], doc["variants"]["new:2"]
    assert old["settings"]["kv_cache"] == "dynamic" and new["settings"]["kv_cache"] == "graph"
    assert (old["groups"], new["groups"]) == (1, 2)
    assert old["generations"] == 2 and new["generations"] == 4  # G samples x groups (all fail: DCP expands none)
    assert new["completion_tokens"] > 0 and new["gen_tokens_per_s"] > 0 and new["train_s"] > 0
    assert "| new:2 | 2 | graph |" in out.with_suffix(".md").read_text()
    assert train_step.main(["--random", "tiny", "--device", "cpu", "--variants", "fast"]) == 2
