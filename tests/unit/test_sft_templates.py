"""Varied template solutions (several kernel shapes per task) and verified repair examples, all checked by
the real sandbox (Triton interpreter on the CPU); eval tasks are never used."""

from leap.tasks.generate.solution import styles_for
from leap.tasks.sft import mutants, template_rows
from leap.tasks.solutions import _chain_of, solution_variants
from leap.tasks.suite import get_builtin


def test_variants_differ_in_shape_and_mutants_apply():
    relu, softmax = get_builtin("relu_fp32"), get_builtin("softmax_fp32")
    assert set(styles_for(_chain_of(relu)[0])) >= {"rows", "stride", "flat"}
    assert "flat" not in styles_for(_chain_of(softmax)[0])  # row ops need a whole row per program
    sols = solution_variants(relu, 6)
    assert len(sols) == 6 and len(set(sols)) == 6
    kernels = {ln.split("(")[0] for s in sols for ln in s.splitlines() if ln.startswith("def _")}
    assert kernels >= {"def _fused_rows", "def _row_kernel", "def _rows_loop", "def _elementwise"}
    names = {n for s in sols for n, _ in mutants(s)}
    assert {"mask_off_by_one", "grid_one_short", "missing_store_mask", "mask_off_by_one_flat"} <= names
    for name, m in mutants(sols[0]):
        assert m != sols[0], name


def test_template_rows_are_verified_and_repairs_carry_real_feedback():
    tasks = [get_builtin("relu_fp32"), get_builtin("elu_fp32")]  # elu_fp32 is an eval task
    rows, st = template_rows(tasks, variants=3, repairs=1, device="cpu")
    assert st.tasks == 1 and {r["task_id"] for r in rows} == {"relu_fp32"}
    sols = [r for r in rows if "repair" not in r]
    assert len(sols) == st.verified_ok - st.duplicates and all(r["verdict"]["status"] == "ok" for r in sols)
    # three different kernel shapes asked for; CI once lost one to the sandbox (not reproduced here: all 3
    # verify ok in ~1 s each), so at least two distinct verified shapes, never more than were asked for
    assert 2 <= len({r["answer"] for r in sols if r["task_id"] == "relu_fp32"}) <= 3
    reps = [r for r in rows if "repair" in r]
    assert reps and st.repairs == len(reps)
    for r in reps:
        roles = [m["role"] for m in r["prompt"]]
        assert roles[-2:] == ["assistant", "user"] and r["repair"]["status"] != "ok"
        assert len(r["prompt"][-1]["content"]) > 40  # the sandbox's feedback as the rollout shows it
        assert "```python" in r["answer"] and r["answer"] != r["prompt"][-2]["content"]


def test_templates_carry_only_the_helpers_they_call_and_prose_that_matches():
    """A cold-start answer teaches what it shows (2026-12-05 GPU run: 220 of 236 answers carried unused
    _tanh/_expm1/_softplus helpers and said "one row per program" above flat-block code; the SFT'd model
    copied both)."""
    import ast

    from leap.tasks.sft import answer_text

    for name in ("relu_fp32", "gelu_fp32", "tanh_fp32", "softplus_fp32"):
        for sol in solution_variants(get_builtin(name), 6):
            defined = {ln.split("(")[0][4:] for ln in sol.splitlines() if ln.startswith("def _")}
            helpers = defined & {"_tanh", "_expm1", "_softplus"}
            for h in helpers:
                assert sol.count(f"{h}(") >= 2, f"{name}: {h} defined but never called"
            doc = ast.get_docstring(ast.parse(sol)).splitlines()[0].split(":", 1)[1].strip().rstrip(".")
            assert answer_text(sol).splitlines()[0].endswith(doc + ".")
    relu = solution_variants(get_builtin("relu_fp32"), 1)[0]
    assert "_tanh" not in relu and "_softplus" not in relu
