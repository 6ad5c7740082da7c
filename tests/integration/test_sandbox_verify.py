"""Sandbox verdicts on the CPU (Triton interpreter): correct kernels pass, subtly wrong ones fail,
errors give the right status with readable feedback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_cases import kernels as K

from leap.sandbox import Sandbox, SandboxConfig, verify, verify_many
from leap.tasks.suite import get_builtin
from leap.tasks.task import parse_task


@pytest.fixture(scope="module")
def sb():
    with Sandbox(SandboxConfig(workers=2, prewarm=2), device="cpu") as box:
        yield box


@pytest.fixture(scope="module")
def relu():
    return get_builtin("relu_fp32")


@pytest.fixture(scope="module")
def rowsum():
    return parse_task(K.ROWSUM_TASK, "rowsum_small")


@pytest.fixture(scope="module")
def softmax():
    return parse_task(K.SOFTMAX_TASK, "softmax_small")


def test_correct_relu_passes(sb, relu):
    v = sb.verify(relu, K.RELU)
    assert v.status == "ok", v.feedback + v.detail
    assert v.correct and v.compiled and v.backend == "triton" and v.device == "cpu"
    assert v.trials >= 5 and v.speedup_eager is None
    assert {"gate", "reference", "check", "total"} <= set(v.stage_seconds)


def test_correct_rowsum_and_softmax_pass(sb, rowsum, softmax):
    for task, src in ((rowsum, K.ROWSUM), (softmax, K.SOFTMAX)):
        v = sb.verify(task, src, backend="triton")
        assert v.status == "ok", (task.name, v.feedback, v.detail)


@pytest.mark.parametrize("name", ["RELU_MASK_OFF_BY_ONE", "RELU_UNWRITTEN_TAIL", "RELU_WRONG_DTYPE"])
def test_subtly_wrong_relu_fails(sb, relu, name):
    v = sb.verify(relu, getattr(K, name))
    assert v.status == "incorrect", (name, v.status, v.feedback, v.detail)
    assert not v.correct and v.compiled
    assert "Incorrect output" in v.feedback or "differ" in v.feedback


def test_wrong_dtype_feedback_names_dtypes(sb, relu):
    v = sb.verify(relu, K.RELU_WRONG_DTYPE)
    assert "dtype" in v.feedback and "float64" in v.feedback


def test_wrong_reduction_axis_fails(sb, rowsum):
    v = sb.verify(rowsum, K.ROWSUM_WRONG_AXIS)
    assert v.status == "incorrect", v.feedback


def test_softmax_without_max_subtraction_fails_on_scaled_inputs(sb, softmax):
    v = sb.verify(softmax, K.SOFTMAX_NO_MAX_SUBTRACT)
    assert v.status == "incorrect", v.feedback


def test_python_error_is_runtime_error_with_readable_feedback(sb, relu):
    v = sb.verify(relu, K.RELU_PY_ERROR)
    assert v.status == "runtime_error"
    assert "IndexError" in v.feedback and "x.shape[7]" in v.feedback
    assert "solution.py" in v.feedback and "/dev/shm" not in v.feedback


def test_bad_triton_op_is_an_error_not_a_pass(sb, relu):
    v = sb.verify(relu, K.RELU_BAD_TRITON)
    assert v.status in ("compile_error", "runtime_error")
    assert "no_such_op" in v.feedback


def test_syntax_error_and_empty_answer_are_format_errors(sb, relu):
    v = sb.verify(relu, K.RELU_SYNTAX_ERROR)
    assert v.status == "format_error" and not v.compiled
    assert sb.verify(relu, "").status == "format_error"
    assert sb.verify(relu, "Here is my answer, no code.").status == "format_error"


def test_no_kernel_is_rejected_or_format_error(sb, relu):
    src = "import torch\nimport torch.nn as nn\nclass ModelNew(nn.Module):\n    def forward(self, x):\n" \
          "        return torch.relu(x)\n"
    assert sb.verify(relu, src).status in ("rejected", "format_error")


def test_candidate_prints_do_not_break_anything(relu):
    cfg = SandboxConfig(workers=1, prewarm=0, static_gate=False)
    assert verify(relu, K.PRINTS, device="cpu", config=cfg).status == "ok"


def test_verify_many_yields_every_index(sb, relu, rowsum):
    pairs = [(relu, K.RELU), (relu, K.RELU_MASK_OFF_BY_ONE), (rowsum, K.ROWSUM), (relu, "")]
    got = dict(sb.verify_many(pairs))
    assert sorted(got) == [0, 1, 2, 3]
    assert [got[i].status for i in range(4)] == ["ok", "incorrect", "ok", "format_error"]


def test_module_level_verify_many(relu):
    cfg = SandboxConfig(workers=1, prewarm=1)
    out = dict(verify_many([(relu, K.RELU)], device="cpu", config=cfg))
    assert out[0].status == "ok"


@pytest.mark.parametrize("child_checks", [True, False])
def test_input_mutation_and_uninitialised_reads_are_caught(relu, child_checks):
    cfg = SandboxConfig(workers=1, prewarm=1, child_checks=child_checks)
    with Sandbox(cfg, device="cpu") as box:
        v = box.verify(relu, K.RELU_MUTATES_INPUT)
        assert v.status == "incorrect" and "modified its input" in v.feedback, v.feedback
        v = box.verify(relu, K.RELU_READS_UNINIT)
        assert v.status == "incorrect" and "did not write" in v.feedback, v.feedback
        assert box.verify(relu, K.RELU).status == "ok"


def test_triton_interpreter_mode_follows_the_job_not_the_server(tmp_path):
    """Triton fixes interpreter-or-compiler when @jit functions are defined (its own tl.sum too, at import
    in the forkserver). A CPU job on a GPU-mode scheduler must still get the interpreter (tl.sum)."""
    script = tmp_path / "mode.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from sandbox_cases import kernels as K\n"
        "from leap.sandbox.judge.scheduler import Scheduler\n"
        "from leap.sandbox import SandboxConfig\n"
        "from leap.tasks.task import parse_task\n"
        "import os\n"
        "os.environ.pop('TRITON_INTERPRET', None)\n"
        "cfg = SandboxConfig(workers=1, prewarm=0)\n"
        "s = Scheduler(cfg, device='cuda')  # its own pool's server runs triton in compiler mode\n"
        "print(s.verify(parse_task(K.ROWSUM_TASK, 'rowsum'), K.ROWSUM, device='cpu').status)\n"
        "s.close()\n")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=180, env=env)
    assert p.stdout.strip().splitlines()[-1:] == ["ok"], p.stdout[-500:] + p.stderr[-2000:]


def test_a_check_too_big_for_the_memory_budget_runs_its_trials_in_rounds(relu):
    """A budget smaller than one trial's planned bytes: the trials run in rounds of two, (2, 2, 2), one child
    each (two trials a round at least); a correct kernel still passes all of them and a wrong one still
    fails, at its own trial index."""
    with Sandbox(SandboxConfig(workers=1, prewarm=0, judge_memory_gib=1e-9), device="cpu") as box:
        v = box.verify(relu, K.RELU)
        assert v.status == "ok", v.feedback + v.detail
        assert v.trials == 6 and v.stage_seconds.get("rounds") == 3.0  # a sixth trial: no round of one
        assert "Correct on 6 trials" in v.feedback
        bad = box.verify(relu, K.RELU_MASK_OFF_BY_ONE)
        assert bad.status == "incorrect" and bad.stage_seconds.get("rounds") == 3.0
        assert "of 6" in bad.feedback, bad.feedback


def test_kernelbench_rules_run_a_task_whose_two_trials_do_not_fit_one_trial_a_round(relu):
    """KernelBench makes no cross-trial checks: under its rules a budget that holds one trial but not two runs
    the five trials one a round (no sixth trial), says so in the verdict's detail, and still fails a wrong
    kernel; LEAP's rules keep two a round."""
    from leap.sandbox.judge import memory_plan as mp
    from leap.sandbox.judge.task_module import load_task_module

    module = load_task_module(relu.source, relu.name)
    fixed, per_trial = mp.plan_sizes(module, list(module.get_init_inputs()), small=True)
    gib = (fixed + 1.5 * per_trial) / 2**30
    with Sandbox(SandboxConfig(workers=1, prewarm=0, judge_memory_gib=gib, rules="kernelbench"), device="cpu") as box:
        v = box.verify(relu, K.RELU)
        assert v.status == "ok", v.feedback + v.detail
        assert v.trials == 5 and v.stage_seconds.get("rounds") == 5.0, (v.trials, v.stage_seconds)
        assert "rounds of one" in v.detail and "cross-trial checks were skipped" in v.detail
        bad = box.verify(relu, K.RELU_MASK_OFF_BY_ONE)
        assert bad.status == "incorrect" and bad.stage_seconds.get("rounds") == 5.0
    with Sandbox(SandboxConfig(workers=1, prewarm=0, judge_memory_gib=gib), device="cpu") as box:
        v = box.verify(relu, K.RELU)
        assert v.status == "ok" and v.trials == 6 and "rounds of one" not in v.detail


EXP_SQUARE_TASK = K.ROWSUM_TASK.replace("return x.sum(dim=1)", "return torch.exp(x * x)")
EXP_SQUARE = K.RELU.replace("tl.maximum(x, 0.0)", "tl.exp(x * x)")


def test_rounds_move_past_a_variant_whose_reference_is_degenerate():
    """exp(x*x) overflows on the x100 variant (a degenerate reference, skipped): a round must move on to the
    next variant instead of drawing the skipped one again until it gives up."""
    task = parse_task(EXP_SQUARE_TASK, "exp_square_small")
    for gib in (None, 1e-9):
        with Sandbox(SandboxConfig(workers=1, prewarm=0, judge_memory_gib=gib), device="cpu") as box:
            v = box.verify(task, EXP_SQUARE)
        assert v.status == "ok", (gib, v.status, v.feedback, v.detail)
        assert v.trials == (5 if gib is None else 6), (v.trials, v.stage_seconds)
