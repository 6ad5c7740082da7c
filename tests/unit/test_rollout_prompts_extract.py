"""Prompt builder and candidate extraction (property/fuzz tests with hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leap.rollout.extract import extract_code, fenced_blocks, strip_reasoning
from leap.rollout.prompts import (
    BACKENDS,
    PromptError,
    build_messages,
    example_solution,
    feedback_message,
    shown_source,
)
from leap.tasks.suite import get_builtin

CODE = "import torch\n\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x\n"


@pytest.mark.parametrize("backend", BACKENDS)
def test_build_messages_shape(backend):
    task = get_builtin("relu_fp32")
    msgs = build_messages(task, backend)
    assert [m["role"] for m in msgs] == ["system", "user"]
    user = msgs[1]["content"]
    assert shown_source(task.source) in user
    assert "LEAP_" not in user and "def get_inputs" in user and "class Model(" in user  # bookkeeping hidden
    assert example_solution(backend) in user
    assert "class ModelNew" in user and "relu_fp32" in user
    # The worked example is a different op than the task.
    assert "torch.relu" not in example_solution(backend)
    # An answer that only echoes the prompt yields the worked example (the one ModelNew block), never the
    # task's reference Model with its input builders.
    echoed = extract_code(user)
    assert "class ModelNew" in echoed and "def get_inputs" not in echoed and "class Model(" not in echoed


def test_backend_instructions_differ_and_unknown_backend():
    task = get_builtin("relu_fp32")
    texts = {b: build_messages(task, b)[1]["content"] for b in BACKENDS}
    assert "triton.jit" in texts["triton"] and "load_inline" in texts["cuda_inline"]
    assert "RawKernel" in texts["cuda_nvrtc"]
    with pytest.raises(PromptError, match="unknown kernel backend"):
        build_messages(task, "opencl")


def test_allowed_ops_are_named():
    task = get_builtin("relu_fp32").model_copy(update={"allowed_ops": ["matmul"]})
    assert "matmul" in build_messages(task)[1]["content"]


def test_feedback_message():
    assert "mismatch at [0]" in feedback_message("mismatch at [0]", 1)
    assert "no details" in feedback_message("  ", 2)


def test_extract_basic_cases():
    assert extract_code(f"Plan.\n```python\n{CODE}```\nDone.") == CODE
    assert extract_code(f"```py\n{CODE}```") == CODE
    assert extract_code(f"```python3\n{CODE}```") == CODE
    assert extract_code(f"```python\n{CODE}") == CODE  # unclosed final fence
    two = f"```python\nx = 1\n```\ntext\n```python\n{CODE}```"
    assert extract_code(two) == CODE
    # a later block without ModelNew (e.g. usage example) does not beat the solution
    assert extract_code(f"```python\n{CODE}```\nUse:\n```python\nm = ModelNew()\n```") == CODE
    assert extract_code(f"```bash\npip install triton\n```\n```python\n{CODE}```") == CODE
    assert extract_code("no code at all") is None
    assert extract_code("```bash\nls\n```") is None


def test_extract_reasoning_and_missing_fences():
    think = f"<think>maybe\n```python\nclass ModelNew: pass\n```\n</think>\nFinal:\n```python\n{CODE}```"
    assert extract_code(think) == CODE
    assert extract_code(f"<think>\n```python\n{CODE}```\nstill thinking") is None
    assert extract_code(f"reasoning ...</think>```python\n{CODE}```") == CODE
    assert extract_code(f"Here is my solution.\n\n{CODE}") == CODE
    assert extract_code(f"Some prose here.\n{CODE}") == CODE


def test_strip_reasoning_and_blocks():
    assert strip_reasoning("a<think>b</think>c") == "ac"
    assert fenced_blocks("```python\na\n```\n~~~\nb\n~~~\n") == [("python", "a\n"), ("", "b\n")]


_prose = st.text(alphabet=st.characters(blacklist_characters="`~<>", blacklist_categories=("Cs",)), max_size=80)


@settings(max_examples=150, deadline=None)
@given(before=_prose, after=_prose, tag=st.sampled_from(["python", "py", "python3", "Python", ""]),
       closed=st.booleans(), think=st.booleans())
def test_extract_fuzz_finds_solution(before, after, tag, closed, think):
    text = (f"<think>{before}</think>" if think else before) + f"\n```{tag}\n{CODE}"
    text += f"```\n{after}" if closed else ""
    assert extract_code(text) == CODE


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_extract_never_crashes(text):
    out = extract_code(text)
    assert out is None or isinstance(out, str)


def test_shown_source_drops_only_leap_bookkeeping():
    src = ('"""Doc."""\n# leap-chain: {"ops": []}\nimport torch\n\nLEAP_TAGS = [\n    "a",\n]\nLEAP_SPLIT = "train"\n'
           'SIZE = 4\n\n\nclass Model(torch.nn.Module):\n    LEAP_NOT_TOP = 1\n')
    out = shown_source(src)
    assert "leap-chain" not in out and "LEAP_TAGS" not in out and "LEAP_SPLIT" not in out and '"a"' not in out
    assert "SIZE = 4" in out and "LEAP_NOT_TOP = 1" in out and out.startswith('"""Doc."""')
    assert shown_source("def broken(:\n") == "def broken(:"
