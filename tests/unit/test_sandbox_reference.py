"""Reference outputs on cloned inputs; cached reference timings (key, atomic file, corrupt file)."""

import json
import multiprocessing as mp
from types import SimpleNamespace

import torch

from leap.sandbox.judge import reference as R
from leap.sandbox.judge.inputs import make_trials
from leap.sandbox.judge.task_module import build_model, load_task_module
from leap.tasks.task import parse_task

SRC = """
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        x.mul_(2)          # mutates its input: the reference must work on a clone
        return x + 1
def get_inputs():
    return [torch.randn(8, 4)]
def get_init_inputs():
    return []
"""


def test_reference_outputs_use_clones():
    task = parse_task(SRC, "mut")
    mod = load_task_module(SRC, "mut")
    trials = make_trials(task, mod, n_trials=5, seed=1, small=True)
    before = [t.inputs[0].clone() for t in trials]
    outs = R.reference_outputs(build_model(mod, [], 0), trials)
    for t, b, o in zip(trials, before, outs, strict=True):
        assert torch.equal(t.inputs[0], b)
        assert torch.allclose(o, b * 2 + 1) and not o.requires_grad


def _measure_counter(calls):
    def measure(model, args, config):
        calls.append(tuple(args[0].shape))
        return 12.5, 7.25
    return measure


def test_timings_cached_per_task_and_shapes(tmp_path):
    cfg = SimpleNamespace(cache_dir=tmp_path)
    task = parse_task(SRC, "mut")
    calls = []
    x = [torch.randn(8, 4)]
    kw = dict(inputs=x, init_inputs=[], config=cfg, measure=_measure_counter(calls))
    R.reference_timings(task, "cpu", **kw)
    # the second lookup is served from the file: a measure that would give other numbers is never called
    other_calls = []

    def other_measure(model, args, config):
        other_calls.append(1)
        return 99.0, None

    assert R.reference_timings(task, "cpu", **{**kw, "measure": other_measure}) == (12.5, 7.25)
    assert len(calls) == 1 and other_calls == []
    R.reference_timings(task, "cpu", **{**kw, "inputs": [torch.randn(16, 4)]})
    other = parse_task(SRC.replace("x + 1", "x + 2"), "mut")
    R.reference_timings(other, "cpu", **kw)
    assert len(calls) == 3
    data = json.loads((tmp_path / R.CACHE_FILE).read_text())
    assert len(data) == 3 and all(e["versions"]["torch"] == torch.__version__ for e in data.values())


def test_key_depends_on_versions_and_gpu():
    v = R.software_versions()
    k = R.cache_key("h", "s", "NVIDIA H200", v)
    assert k != R.cache_key("h", "s", "NVIDIA H100", v)
    assert k != R.cache_key("h", "s", "NVIDIA H200", {**v, "triton": "0.0"})
    assert k == R.cache_key("h", "s", "NVIDIA H200", dict(v))


def test_corrupt_cache_is_rewritten(tmp_path):
    (tmp_path / R.CACHE_FILE).write_text("{not json")
    task = parse_task(SRC, "mut")
    calls = []
    R.reference_timings(task, "cpu", inputs=[torch.randn(2)], init_inputs=[],
                        config=SimpleNamespace(cache_dir=tmp_path), measure=_measure_counter(calls))
    assert len(json.loads((tmp_path / R.CACHE_FILE).read_text())) == 1


def _writer(path, i):
    for j in range(20):
        R.write_entry(path, f"k{i}_{j}", {"eager_us": float(j)})


def test_concurrent_writers_lose_nothing(tmp_path):
    path = tmp_path / "sub" / R.CACHE_FILE
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(path, i)) for i in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    assert len(R.read_cache(path)) == 60
    assert not [f for f in path.parent.iterdir() if f.name.startswith(".ref_timings.")]
