"""Feedback text: trimmed compiler errors without private paths, mismatches, speedups, generic rejections."""

import torch

from leap.sandbox.judge.compare import compare_outputs
from leap.sandbox.judge.feedback import (
    REJECTION_WORDS,
    clean_paths,
    feedback_for,
    mismatch_feedback,
    rejection_feedback,
    speed_feedback,
    trim_compiler_error,
)

PRIV = "/dev/shm/leap-cand-x81kq2"
NVCC_LOG = f"""RuntimeError: Error building extension 'relu': [1/3] /usr/local/cuda/bin/nvcc --generate-dependencies-with-compile -DTORCH_EXTENSION_NAME=relu -O3 -Werror {PRIV}/torch_ext/abc123/cuda.cu -o cuda.cuda.o
FAILED: cuda.cuda.o
{PRIV}/torch_ext/abc123/cuda.cu(12): error: identifier "blockIdy" is undefined
      int i = blockIdy.x * blockDim.x + threadIdx.x;
              ^

{PRIV}/torch_ext/abc123/cuda.cu(14): error: expected a ";"
      out[i] = in[i] > 0 ? in[i] : 0
                                     ^

2 errors detected in the compilation of "{PRIV}/torch_ext/abc123/cuda.cu".
ninja: build stopped: subcommand failed.
""" + "\n".join(f"  noise line {i}" for i in range(400))
TRITON_LOG = """Traceback (most recent call last):
  File "/dev/shm/leap-cand-zz/candidate.py", line 30, in forward
    k[grid](x, y, n, BLOCK=128)
triton.compiler.errors.CompilationError: at 4:8:
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.lod(x_ptr + offs)
        ^
AttributeError("module 'triton.language' has no attribute 'lod'")
"""


def test_nvcc_errors_trimmed_without_private_paths():
    out = trim_compiler_error(NVCC_LOG, private_dirs=[PRIV])
    assert 'identifier "blockIdy" is undefined' in out and 'expected a ";"' in out
    assert "blockIdy.x * blockDim.x" in out  # the source line after the error is kept
    assert "leap-cand" not in out and "/dev/shm" not in out and "nvcc --generate" not in out
    assert "noise line" not in out and len(out) <= 1600
    assert "cuda.cu(12): error" in out
    assert out.splitlines()[0] == "RuntimeError: Error building extension 'relu'"


def test_triton_compilation_error_keeps_excerpt_and_message():
    out = trim_compiler_error(TRITON_LOG)
    assert "tl.lod" in out and "has no attribute 'lod'" in out
    assert "leap-cand" not in out


def test_no_error_line_gives_the_tail_bounded():
    out = trim_compiler_error("\n".join(f"line {i}" for i in range(100)), limit=50)
    assert "line 99" not in out or len(out) < 120
    assert len(out) < 120
    assert trim_compiler_error("a\nb\nc") == "a\nb\nc"


def test_clean_paths():
    assert clean_paths('File "/tmp/x/leap-cand-1/candidate.py", line 3') == 'File "solution.py", line 3'
    assert clean_paths(f"{PRIV}/out/t0.pt missing") == "t0.pt missing"
    assert clean_paths("/home/u/.triton/cache/ab/k.ptx") == "k.ptx"


def test_mismatch_feedback_has_errors_and_first_mismatch():
    ref = torch.randn(64)
    out = ref.clone()
    out[10] += 5.0
    res = compare_outputs(ref, out)
    text = mismatch_feedback(res, 1, "randn", 5)
    assert text.startswith("Incorrect output on trial 2 of 5 (signed standard-normal inputs)")
    assert "max abs error 5" in text and "output[10]" in text


def test_speed_feedback():
    text = speed_feedback(50.0, 100.0, 80.0, 5)
    assert "2.00x vs PyTorch eager (100.0 us)" in text and "1.60x vs torch.compile" in text
    assert "Slower" not in text
    assert "Slower than PyTorch" in speed_feedback(200.0, 100.0, None, 5)
    assert speed_feedback(None, None, None, 5) == "Correct on 5 trials. Not timed (no GPU)."


def test_rejections_are_generic():
    words = " ".join(REJECTION_WORDS.values()).lower()
    for detector in ("static gate", "detector", "ast", "side stream", "profiler", "try/except", "monkey"):
        assert detector not in words.split() and detector not in words
    assert rejection_feedback("some_specific_rule_id") == REJECTION_WORDS["generic"]


def test_feedback_for_every_status():
    for status in ("ok", "compile_error", "incorrect", "rejected", "timeout", "runtime_error", "format_error"):
        assert feedback_for(status)
    assert "120 s" in feedback_for("timeout", seconds=120)
    text = feedback_for("runtime_error", kind="IndexError", message=f"bad index in {PRIV}/candidate.py",
                        where="while running forward", private_dirs=[PRIV])
    assert text == "Runtime error while running forward: IndexError: bad index in solution.py"
