"""KernelBench's eval_results.json layout, its scores (sample 0, all problems counted), the prompt mode
and the eval's judge guard."""

from __future__ import annotations

import json
import math

import pytest

from leap.evaluation.kernelbench import eval_results, kb_scores, problem_id, problem_ids
from leap.evaluation.runner import guarded_verifier, kernelbench_results
from leap.rollout.kb_prompt import kernelbench_messages, kernelbench_prompt
from leap.rollout.prompts import PromptError
from leap.sandbox.judge.verdict import Verdict
from leap.tasks.task import parse_task

SRC = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)

batch_size = 64
dim = 128

def get_inputs():
    return [torch.rand(batch_size, dim)]

def get_init_inputs():
    return []
"""


def ok(run_us: float, ref_us: float) -> Verdict:
    return Verdict(status="ok", correct=True, compiled=True, device="cuda", runtime_us=run_us, ref_runtime_us=ref_us,
                   speedup_eager=ref_us / run_us)


def bad(status: str = "incorrect", compiled: bool = True) -> Verdict:
    return Verdict(status=status, compiled=compiled, device="cuda", feedback="max abs error 3.0\nmore")


def test_problem_id_from_names():
    assert problem_id("kb_l1_19_ReLU", 0) == 19
    assert problem_id("23_Softmax", 5) == 23
    assert problem_id("relu_fp32", 4) == 5


def test_problem_ids_never_collide_within_a_file():
    assert problem_ids(["kb_l1_2_b", "kb_l1_19_c"]) == [2, 19]
    assert problem_ids(["1_a", "b", "2_c"]) == [1, 2, 3]  # "b" would be 2 by position, as "2_c" is


def test_several_levels_get_one_file_and_score_each(tmp_path):
    # a whole checkout: level 1 and level 2 both have a problem 19; one file would merge them
    results = {"kb_l1_19_ReLU": [[ok(50.0, 100.0)]], "kb_l2_19_ConvTranspose2d_GELU_GroupNorm": [[bad()]],
               "kb_l2_20_X": [[ok(100.0, 300.0)]]}
    names = ["kb_l1_19_ReLU", "kb_l2_19_ConvTranspose2d_GELU_GroupNorm", "kb_l2_20_X"]
    scores = kernelbench_results(tmp_path, results, names)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eval_results_level1.json", "eval_results_level2.json"]
    l1 = json.loads((tmp_path / "eval_results_level1.json").read_text())
    l2 = json.loads((tmp_path / "eval_results_level2.json").read_text())
    assert list(l1) == ["19"] and l1["19"][0]["correctness"] and len(l1["19"]) == 1
    assert list(l2) == ["19", "20"] and not l2["19"][0]["correctness"] and len(l2["19"]) == 1
    assert set(scores) == {"kernelbench_level1", "kernelbench_level2"}
    assert scores["kernelbench_level1"]["correct"] == 1 and scores["kernelbench_level1"]["problems"] == 1
    assert scores["kernelbench_level2"]["correct"] == 1 and scores["kernelbench_level2"]["problems"] == 2
    assert scores["kernelbench_level2"]["fast_2"] == 0.5
    one = kernelbench_results(tmp_path / "one", {"kb_l1_19_ReLU": [[ok(50.0, 100.0)], [bad()]]}, ["kb_l1_19_ReLU"])
    assert set(one) == {"kernelbench"} and (tmp_path / "one" / "eval_results.json").is_file()


def test_eval_results_layout_and_turn_choice():
    results = {"kb_l1_2_B": [[bad(), ok(50.0, 100.0)], [ok(200.0, 100.0)]], "kb_l1_1_A": [[bad("compile_error", False)]]}
    first = eval_results(results, ["kb_l1_1_A", "kb_l1_2_B"])
    assert list(first) == ["1", "2"]
    e = first["2"][0]
    assert set(e) == {"sample_id", "compiled", "correctness", "metadata", "runtime", "runtime_stats"}
    assert (e["sample_id"], e["compiled"], e["correctness"], e["runtime"]) == (0, True, False, -1.0)
    assert e["metadata"]["error"] == "max abs error 3.0" and e["metadata"]["turn"] == 1
    assert first["2"][1]["correctness"] and first["2"][1]["runtime"] == pytest.approx(0.2)
    assert first["2"][1]["runtime_stats"]["unit"] == "ms"
    last = eval_results(results, ["kb_l1_1_A", "kb_l1_2_B"], turn=-1)
    assert last["2"][0]["correctness"] and last["2"][0]["metadata"]["turn"] == 2
    assert not first["1"][0]["compiled"]


def test_scores_follow_kernelbench_rules():
    # problem 1: sample 0 correct 2x; problem 2: sample 0 wrong, sample 1 correct (ignored: sample-0 rule);
    # problem 3: correct 1.2x; problem 4: no entry at all (still in the denominator)
    results = {"kb_l1_1_a": [[ok(50.0, 100.0)]], "kb_l1_2_b": [[bad()], [ok(10.0, 100.0)]],
               "kb_l1_3_c": [[ok(100.0, 120.0)]]}
    js = eval_results(results, ["kb_l1_1_a", "kb_l1_2_b", "kb_l1_3_c"])
    s = kb_scores(js, [1, 2, 3, 4])
    assert s["problems"] == 4 and s["correct"] == 2 and s["correct_rate"] == 0.5
    assert s["fast_0"] == 0.5 and s["fast_1"] == 0.5 and s["fast_1.5"] == 0.25 and s["fast_2"] == 0.0
    assert s["geomean_speedup_correct"] == pytest.approx(math.sqrt(2.0 * 1.2))


def test_scores_untimed_cpu_run():
    v = Verdict(status="ok", correct=True, compiled=True, device="cpu")
    s = kb_scores(eval_results({"kb_l1_1_a": [[v]]}, ["kb_l1_1_a"]), [1, 2])
    assert s["correct"] == 1 and s["fast_1"] is None and s["geomean_speedup_correct"] is None


def test_kernelbench_prompt_fallback_structure():
    task = parse_task(SRC, "19_ReLU")
    for kernel, display in (("triton", "Triton kernels"), ("cuda_inline", "CUDA kernels")):
        p = kernelbench_prompt(task, kernel)
        # five parts in KernelBench's order: statement, example, the architecture, precision, instruction
        order = [p.index(display), p.index("Example:"), p.index("Input architecture:"),
                 p.index("Optimized with"), p.index("batch_size = 64"), p.index("FP32"), p.rindex("ModelNew")]
        assert order == sorted(order)
    assert "triton.jit" in kernelbench_prompt(task, "triton") and "load_inline" in kernelbench_prompt(task, "cuda_inline")
    msgs = kernelbench_messages(task, "triton")
    assert [m["role"] for m in msgs] == ["user"]


def _checkout(root, toml: str, example_in: str, example_out: str):
    """A KernelBench checkout's prompt files: prompts.toml and its two example files."""
    (root / "src/kernelbench/prompts").mkdir(parents=True)
    (root / "ex.py").write_text(example_in)
    (root / "ex_new.py").write_text(example_out)
    (root / "src/kernelbench/prompts/prompts.toml").write_text(toml)
    return root


def test_kernelbench_prompt_from_checkout(tmp_path):
    _checkout(tmp_path, '''
[shared]
problem_statement = "STATEMENT {backend_display}"
instruction = "INSTRUCTION {backend_display}"
few_shot_example_arch = "ex.py"
[backends.triton]
backend_display = "TRI"
one_shot_new_arch = "ex_new.py"
[precision.fp32]
precision_display = "PREC32"
[templates.common]
arch_block = "ARCH\\n{ref_arch_src}\\n"
example_intro_one_shot = "INTRO {backend_display}"
example_entry_template = "{example_label}\\nIN\\n{input_code}\\nOUT {backend_display}\\n{output_code}"
precision_note = "NOTE {precision_display}"
''', "EXAMPLE_IN", "EXAMPLE_OUT_TRITON")
    p = kernelbench_prompt(parse_task(SRC, "19_ReLU"), "triton", checkout=tmp_path)
    parts = ["STATEMENT TRI", "INTRO TRI", "Example:", "EXAMPLE_IN", "OUT TRI", "EXAMPLE_OUT_TRITON", "ARCH",
             "batch_size = 64", "NOTE PREC32", "INSTRUCTION TRI"]
    assert [p.index(x) for x in parts] == sorted(p.index(x) for x in parts)
    with pytest.raises(PromptError, match="prompts.toml"):
        kernelbench_prompt(parse_task(SRC, "x"), "cuda_inline", checkout=tmp_path)  # no cuda backend there


def test_guarded_verifier_turns_judge_failures_into_sandbox_error():
    task = parse_task(SRC, "t")

    def verifier(pairs):
        if any(code == "huge" for _, code in pairs):
            raise MemoryError("judge out of memory")
        return [Verdict(status="ok", correct=True) for _ in pairs]

    out = guarded_verifier(verifier)([(task, "a"), (task, "huge"), (task, "b")])
    assert [v.status for v in out] == ["ok", "sandbox_error", "ok"]
    assert "MemoryError" in out[1].detail and not out[1].correct


def test_kernelbench_prompt_keeps_the_sources_own_blank_lines(tmp_path):
    # KernelBench trims each template block, then formats the composed prompt: the reference source goes in
    # verbatim, its trailing blank line included (28 of its level-1..3 files end with one)
    _checkout(tmp_path, '''
[shared]
problem_statement = "S {backend_display}"
instruction = "I"
few_shot_example_arch = "ex.py"
[backends.triton]
backend_display = "T"
one_shot_new_arch = "ex_new.py"
[precision.fp32]
precision_display = "P"
[templates.common]
arch_block = """
You are given:


{ref_arch_src}

"""
example_intro_one_shot = "X"
example_entry_template = "{example_label} {input_code}|{output_code}"
precision_note = "N {precision_display}"
''', "IN\n", "OUT\n")
    src = SRC + "\n"  # ends with a blank line
    p = kernelbench_prompt(parse_task(src, "19_ReLU"), "triton", checkout=tmp_path)
    assert p == f"S T\n\nX\n\nExample: IN\n|OUT\n\nYou are given:\n\n\n{src}\n\nN P\n\nI\n"


def test_runtime_is_the_mean_with_kernelbench_stats_and_speedups_compare_medians():
    from leap.sandbox.judge.verdict import RuntimeStats

    v = ok(100.0, 300.0).model_copy(update={"runtime_stats": RuntimeStats(
        median_us=100.0, mean_us=150.0, std_us=40.0, min_us=90.0, max_us=400.0, samples=30)})
    e = eval_results({"a": [[v]]}, ["a"])[next(iter(eval_results({"a": [[v]]}, ["a"])))][0]
    assert e["runtime"] == pytest.approx(0.15)  # KernelBench's runtime: the mean of its trials, in ms
    st = e["runtime_stats"]
    assert (st["mean"], st["std"], st["min"], st["max"], st["num_trials"]) == pytest.approx((0.15, 0.04, 0.09, 0.4, 30))
    assert e["metadata"]["runtime_median_ms"] == pytest.approx(0.1)
    pid = int(next(iter(eval_results({"a": [[v]]}, ["a"]))))
    scores = kb_scores({str(pid): [e]}, [pid])
    assert scores["geomean_speedup_correct"] == pytest.approx(3.0)  # 300 us / 100 us: medians, not 300 / 150
    assert scores["fast_2"] == 1.0


def test_the_childs_timing_record_gives_the_runtime_stats():
    from leap.sandbox.judge.verifier import runtime_stats
    from leap.sandbox.worker.timing import TimingResult, summarize

    xs = [10.0, 12.0, 11.0, 30.0]
    rec = TimingResult(host_us=None, samples=len(xs), flush_bytes=0, **summarize(xs)).to_dict()
    st = runtime_stats(rec)
    assert st is not None and st.samples == 4 and st.median_us == 11.5 and st.max_us == 30.0
    assert st.mean_us == pytest.approx(15.75)
    assert runtime_stats({"median_us": 11.5}) is None  # an older record without them: no stats, no guess
