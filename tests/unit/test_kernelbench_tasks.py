"""KernelBench-shaped problems (tests/fixtures, written for LEAP): loader, CPU-size derivation, validation."""

from __future__ import annotations

import resource
from pathlib import Path

import pytest
from typer.testing import CliRunner

from leap.cli.main import app
from leap.tasks.cpu_size import ELEMENT_TARGET, cpu_sizing, cpu_task, find_knobs, measure
from leap.tasks.suite import iter_task_source
from leap.tasks.task import TaskError, load_task_dir, load_task_file
from leap.tasks.validate import validate_task

FIX = Path(__file__).resolve().parents[1] / "fixtures"
KB = FIX / "kernelbench_like"


def test_loader_takes_level_from_the_folder_name():
    l1, l2 = load_task_dir(KB / "level1"), load_task_dir(KB / "level2")
    assert [t.name for t in l1] == ["3_LeakyGate", "7_RowMatmul", "12_HeadAttention", "21_HingeLike"]
    assert {t.level for t in l1} == {1} and {t.level for t in l2} == {2}
    assert not any(t.has_small_inputs or t.leap_metadata for t in l1 + l2)
    names = [t.name for t in iter_task_source(str(KB))]  # a checkout-like root: kb_l{level}_ names
    assert names[0] == "kb_l1_3_LeakyGate" and names[-1].startswith("kb_l3_")


def test_level4_and_missing_packages_get_one_line():
    with pytest.raises(TaskError, match="level 4") as e:
        load_task_dir(FIX / "kernelbench_extra" / "level4")
    assert "\n" not in str(e.value)
    with pytest.raises(TaskError, match="Hugging Face model from the hub"):
        load_task_file(FIX / "kernelbench_extra" / "level4" / "1_tiny_hub_model.py")
    r = validate_task(load_task_file(FIX / "kernelbench_extra" / "einops_rearrange.py"))
    assert r.problems == [f"{FIX / 'kernelbench_extra' / 'einops_rearrange.py'}: needs the Python package "
                          "'einops', which is not installed (pip install einops)"]


def test_level4_folder_is_listed_and_each_problem_says_why_it_cannot_run():
    folder = FIX / "kernelbench_extra" / "level4"
    tasks = load_task_dir(folder, keep_unavailable=True)
    assert [(t.name, t.level) for t in tasks] == [("1_tiny_hub_model", 4)]
    assert "Hugging Face model from the hub" in tasks[0].unavailable and "\n" not in tasks[0].unavailable
    r = validate_task(tasks[0])  # reported without running the file (it would reach for the network)
    assert not r.ok and r.problems == [tasks[0].unavailable]
    listed = CliRunner().invoke(app, ["tasks", "list", "--source", str(folder)])
    assert listed.exit_code == 0 and "1_tiny_hub_model" in listed.output and "cannot run here" in listed.output
    checked = CliRunner().invoke(app, ["tasks", "validate", str(folder)])
    assert checked.exit_code == 1 and "0/1 tasks valid" in checked.output
    with pytest.raises(TaskError, match="level 4"):  # what runs tasks still refuses them up front
        list(iter_task_source(str(folder)))


def test_knobs_cover_constants_expressions_tuples_and_chains():
    src = (KB / "level2" / "4_Conv2d_ReLU_Bias.py").read_text()
    knobs = {k.label: k.value for k in find_knobs(src)}
    assert knobs == {"batch_size": 128, "in_channels": 64, "out_channels": 128, "height=width": 128}  # not kernel 3
    assert {k.label: k.value for k in find_knobs((KB / "level1" / "7_RowMatmul.py").read_text())} == \
        {"M": 2048, "K": 8192, "N": 4096}
    assert "input_shape[0]" in {k.label for k in find_knobs((KB / "level1" / "21_HingeLike.py").read_text())}


def test_cpu_sizes_fit_and_keep_the_op_valid():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for f in sorted((KB / "level1").glob("*.py")) + sorted((KB / "level2").glob("*.py")):
        full = measure(f.read_text())
        s = cpu_sizing(f.read_text())
        assert s.error is None, f
        assert s.changes and s.elements <= 4 * ELEMENT_TARGET < full.elements, f
        assert measure(s.source).elements == s.elements
    # nothing of full size was allocated (the largest fixture is 6 GiB of inputs)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 2 * 2**20  # KiB: under 2 GiB
    attn = cpu_sizing((KB / "level1" / "12_HeadAttention.py").read_text())
    emb, heads = attn.changes.get("embed_dim", (768, 768))[1], 12
    assert emb % heads == 0 and "num_heads" not in attn.changes  # 12 < MIN_KNOB: a structural constant
    hinge = cpu_sizing((KB / "level1" / "21_HingeLike.py").read_text())
    assert hinge.changes["batch_size"][1] == hinge.changes["input_shape[0]"][1]  # equal sizes shrink together


def test_cpu_task_leaves_small_and_sized_tasks_alone():
    from leap.tasks.suite import builtin_tasks

    t = builtin_tasks()[0]
    assert cpu_task(t) is t
    big = load_task_file(KB / "level1" / "3_LeakyGate.py")
    small = cpu_task(big)
    assert small.name == big.name and "batch_size = 4096" not in small.source and "def get_inputs" in small.source


def test_folder_of_kernelbench_shaped_files_validates():
    r = CliRunner().invoke(app, ["tasks", "validate", str(KB / "level1"), "--all"])
    assert r.exit_code == 0, r.output
    assert "4/4 tasks valid" in r.output
    reports = {t.name: validate_task(t) for t in load_task_dir(KB / "level2")}
    assert all(rep.ok for rep in reports.values()), {n: rep.problems for n, rep in reports.items()}
    assert any("random numbers" in w for w in reports["15_Gemm_Dropout_Tanh"].warnings)
    assert any("random numbers" in w for w in reports["22_GRU_RandomH0"].warnings)
    assert any("CPU check on derived sizes" in n for n in reports["4_Conv2d_ReLU_Bias"].notes)
    assert any("non-negative" in n for n in reports["4_Conv2d_ReLU_Bias"].notes)


def test_whole_networks_keep_a_useful_size_and_validate():
    """Level-3 shapes: layer widths written in the class (no knob reaches them) do not drive the image to
    nothing; a lambda over the layers made in __init__; .item() in __init__ and an image size fixed by the
    model's windows (only the batch, 10, can shrink); all valid."""
    conv = cpu_sizing((KB / "level3" / "1_StridedConvNet.py").read_text())
    assert conv.error is None and conv.changes["image_size"][1] >= 28, conv.changes
    assert conv.changes.get("num_classes", (0, 1000))[1] >= 250, conv.changes  # weights alone: a few steps
    mixer = cpu_sizing((KB / "level3" / "3_WindowedMixer.py").read_text())
    assert mixer.error is None and "image_size" not in mixer.changes and mixer.changes["batch_size"] == (10, 5)
    reports = {t.name: validate_task(t) for t in load_task_dir(KB / "level3")}
    assert all(rep.ok for rep in reports.values()), {n: rep.problems for n, rep in reports.items()}
    assert not any("conditioning not checked" in n for n in reports["2_LambdaMlpBlock"].notes)
