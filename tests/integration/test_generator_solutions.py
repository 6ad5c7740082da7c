"""Template Triton solutions pass the real sandbox (CPU interpreter); broken ones never enter SFT."""

from __future__ import annotations

import json

import pytest

from leap.tasks.generate import generate_tasks
from leap.tasks.solutions import BUILTIN, MATMUL, reference_solution, solution_variants
from leap.tasks.suite import builtin_tasks, get_builtin


@pytest.fixture(scope="module")
def generated():
    items, _ = generate_tasks(60, seed=21, with_solutions=True)
    return [i for i in items if i.solution]


def test_templates_cover_most_generated_tasks(generated):
    assert len(generated) >= 40
    assert all(reference_solution(i.task) == i.solution for i in generated)


def test_reference_solutions_exist_for_builtin_elementwise_reduction_and_matmul_tasks():
    names = {t.name for t in builtin_tasks() if reference_solution(t)}
    assert names == set(BUILTIN) | set(MATMUL)
    assert len(names) >= 30
    assert reference_solution(get_builtin("conv2d_fp32")) is None


def test_gemm_and_matmul_templates_pass_the_sandbox_and_a_wrong_product_does_not():
    """Linear chains: the task's allowed nn.Linear + kernels, and one tiled tl.dot kernel with the chain as
    its epilogue; the built-in products (mm fp32/bf16, bmm, mv) in every tile variant."""
    from leap.sandbox import verify_many

    gemm = get_builtin("gemm_relu_bf16")
    sols = solution_variants(gemm, 6)
    kernels = {ln.split("(")[0] for s in sols for ln in s.splitlines() if ln.startswith("def _")}
    assert "def _gemm_epilogue" in kernels and any("self.fc(x)" in s for s in sols)
    pairs = [(gemm, s) for s in sols[:2]] + [(get_builtin("gemm_bias_gelu_fp32"), reference_solution(
        get_builtin("gemm_bias_gelu_fp32")))]
    for name in MATMUL:
        pairs += [(get_builtin(name), s) for s in solution_variants(get_builtin(name), 2)]
    mm = get_builtin("matmul_fp32")
    pairs.append((mm, reference_solution(mm).replace("acc += tl.dot", "acc -= tl.dot")))
    pairs.append((gemm, sols[0].replace("h = acc +", "h = acc * 1.5 +")))
    verdicts = dict(verify_many(pairs, device="cpu"))
    for k, (task, _) in enumerate(pairs[:-2]):
        assert verdicts[k].status == "ok", (task.name, k, verdicts[k].feedback)
    assert [verdicts[len(pairs) - i].status for i in (2, 1)] == ["incorrect", "incorrect"]


def test_sample_of_solutions_passes_the_sandbox(generated):
    from leap.sandbox import verify_many

    pairs = [(i.task, i.solution) for i in generated[:8]]
    pairs += [(get_builtin(n), reference_solution(get_builtin(n)))
              for n in ("softmax_bf16", "layernorm_fp32", "residual_rmsnorm_bf16", "logsumexp_rows_fp32")]
    broken = generated[0].solution.replace("tl.store(out_ptr", "tl.store(out_ptr + 1")
    pairs.append((generated[0].task, broken))
    verdicts = dict(verify_many(pairs, device="cpu"))
    for k, (task, _) in enumerate(pairs[:-1]):
        assert verdicts[k].status == "ok", (task.name, verdicts[k].feedback)
    assert verdicts[len(pairs) - 1].status != "ok"


def test_sft_rows_only_for_verified_pairs(generated, tmp_path):
    from leap.rollout import prompts
    from leap.tasks.sft import write_sft

    good = [(i.task, i.solution) for i in generated[:3]]
    bad = (generated[3].task, generated[3].solution.replace("tl.store(", "tl.store(out_ptr, 0.0) or tl.store("))
    stats = write_sft(good + [bad], tmp_path / "sft.jsonl", device="cpu")
    rows = [json.loads(line) for line in (tmp_path / "sft.jsonl").read_text().splitlines()]
    assert stats.verified == 4 and stats.written == 3 == len(rows)
    assert {r["task_id"] for r in rows} == {t.name for t, _ in good}
    for r, (task, sol) in zip(rows, good, strict=True):
        assert r["prompt"] == prompts.build_messages(task, "triton")
        assert r["verdict"]["status"] == "ok" and sol.strip() in r["answer"]
        assert r["answer"].rstrip().endswith("```")
