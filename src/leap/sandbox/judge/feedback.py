"""Feedback text for the policy's next turn, per verdict status (DESIGN.md §3 step 5).

Short and actionable: the first compiler error lines (private paths removed, bounded length), the
first mismatches with the max abs/rel error, speedups against eager PyTorch and torch.compile.
Run-time rejections are described in generic words only: the text never names the detector that
fired, so a policy cannot learn to dodge one specific detector. Static-gate rejections name the rule and
quote the offending line (`gate_feedback`): those rules are fixed and public, and knowing them is
what lets a policy write admissible code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

MAX_CHARS = 2000
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
ERROR_LINE = re.compile(r"\berror\b|Error:|undefined reference", re.IGNORECASE)
BLOCK_ERROR = re.compile(r"CompilationError|\bat \d+:\d+:\s*$")  # Triton: source excerpt + caret + message
COMMAND_LINE = re.compile(r"^\s*(\[\d+/\d+\]\s|(/\S+/)?(c\+\+|g\+\+|gcc|nvcc|clang\+\+|ninja)\s|FAILED: \S+\.o\s*$)")
PRIVATE_PATH = re.compile(r"(/[\w.+-]+)*/\.?(leap-cand-|leap_ext|torch_extensions?|torch_ext|triton)[\w.+-]*(/[\w.+-]+)*")
BUILDING = re.compile(r"^(.*Error building extension '[^']*'):?.*$")  # torch puts the whole ninja log after it
CANDIDATE_FILE = re.compile(r"((/[\w.+-]+)*/)?\bcandidate\.py")
VARIANT_WORDS = {
    "task": "the task's own input distribution",
    "randn": "signed standard-normal inputs",
    "x100": "inputs scaled by 100",
    "x1e-3": "inputs scaled by 1e-3",
}
REJECTION_WORDS = {
    "rules": "The solution was rejected: it breaks the sandbox rules. The computation must be done by your "
             "own custom kernels (no PyTorch compute ops or fallbacks in forward beyond those the task allows), "
             "with no tampering with the runtime, files, processes or the environment.",
    "kernel_share": "The solution was rejected: most of its GPU time is spent outside its custom kernels. "
                    "Custom kernels must carry the computation.",
    "timing": "The solution was rejected: its running time could not be measured consistently. All work must "
              "run on the current stream and finish within the forward call.",
    "generic": "The solution was rejected: it does not follow the sandbox rules.",
}


def clean_paths(text: str, private_dirs: Iterable[str] = ()) -> str:
    """Remove the sandbox's private paths: the candidate's file becomes ``solution.py``; build/cache
    paths and anything under ``private_dirs`` are reduced to their file name."""
    text = CANDIDATE_FILE.sub("solution.py", text)
    for d in sorted({str(p).rstrip("/") for p in private_dirs if p}, key=len, reverse=True):
        text = re.sub(re.escape(d) + r"(/[\w.+-]+)*", lambda m: m.group(0).rsplit("/", 1)[-1], text)
    text = PRIVATE_PATH.sub(lambda m: m.group(0).rsplit("/", 1)[-1], text)
    return text


def _bound(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit("\n", 1)[0] if "\n" in text[:limit] else text[:limit]
    return cut + f"\n... ({len(text) - len(cut)} more characters)"


def trim_compiler_error(text: str, limit: int = 1500, private_dirs: Iterable[str] = (),
                        max_errors: int = 6, context: int = 2) -> str:
    """The first error lines of a compiler log (each with ``context`` lines after it: the source line and
    caret nvcc/gcc/Triton print), without command lines or private paths, at most ``limit`` characters.
    A log with no recognisable error line gives its last lines (a Python traceback ends with the error)."""
    lines = [BUILDING.sub(r"\1", ANSI.sub("", ln).rstrip()) for ln in clean_paths(text, private_dirs).splitlines()]
    lines = [ln for ln in lines if ln.strip() and not COMMAND_LINE.match(ln) and len(ln) < 1000]
    keep: list[int] = []
    errors = 0
    for i, ln in enumerate(lines):
        if errors >= max_errors:
            break
        if ERROR_LINE.search(ln) and i not in keep:
            errors += 1
            after = 20 if BLOCK_ERROR.search(ln) else context
            keep.extend(j for j in range(i, min(len(lines), i + 1 + after)) if j not in keep)
    chosen = [lines[i] for i in sorted(keep)] if keep else lines[-15:]
    return _bound("\n".join(chosen), limit)


def compile_feedback(log: str, private_dirs: Iterable[str] = ()) -> str:
    return "Compilation failed:\n" + trim_compiler_error(log, private_dirs=private_dirs)


def mismatch_feedback(result: Any, trial_index: int, variant: str = "", n_trials: int | None = None) -> str:
    """'Incorrect output on trial i of n (distribution): <comparison message>' from a `CompareResult`."""
    of = f" of {n_trials}" if n_trials else ""
    words = VARIANT_WORDS.get(variant, variant or "fresh inputs")
    msg = getattr(result, "message", "") or "the output does not match the reference."
    return _bound(f"Incorrect output on trial {trial_index + 1}{of} ({words}): {msg}", MAX_CHARS)


def speed_feedback(runtime_us: float | None, eager_us: float | None, compile_us: float | None,
                   n_trials: int) -> str:
    """'Correct on n trials. Runtime r us; speedup s x vs PyTorch eager (e us), c x vs torch.compile (...)'."""
    text = f"Correct on {n_trials} trials."
    if runtime_us is None:
        return text + " Not timed (no GPU)."
    text += f" Runtime {runtime_us:.1f} us"
    parts = []
    if eager_us:
        parts.append(f"{eager_us / runtime_us:.2f}x vs PyTorch eager ({eager_us:.1f} us)")
    if compile_us:
        parts.append(f"{compile_us / runtime_us:.2f}x vs torch.compile ({compile_us:.1f} us)")
    if parts:
        text += "; speedup " + ", ".join(parts)
    text += "."
    if eager_us and eager_us < runtime_us:
        text += " Slower than PyTorch: consider fusing operations, better memory access or larger blocks."
    return text


def rejection_feedback(kind: str = "generic") -> str:
    """Generic words for a rejection category (``rules``, ``kernel_share``, ``timing``); unknown -> generic."""
    return REJECTION_WORDS.get(kind, REJECTION_WORDS["generic"])


def runtime_feedback(kind: str, message: str, where: str = "", candidate_lines: str = "",
                     private_dirs: Iterable[str] = ()) -> str:
    """'Runtime error while running forward: ValueError: ...' plus the solution's own traceback lines."""
    msg = clean_paths(message.strip(), private_dirs)
    text = f"Runtime error{' ' + where if where else ''}: {kind}: {_bound(msg, 800)}"
    if candidate_lines:
        text += "\n" + clean_paths(candidate_lines, private_dirs)
    return _bound(text, MAX_CHARS)


def timeout_feedback(seconds: float) -> str:
    return (f"Time limit exceeded: the solution did not finish within {seconds:.0f} s "
            "(infinite loop, deadlock or far too slow).")


def feedback_for(status: str, **info: Any) -> str:
    """Feedback for any status; ``info`` holds what that status needs (see the functions above)."""
    if status == "ok":
        return speed_feedback(info.get("runtime_us"), info.get("eager_us"), info.get("compile_us"),
                              int(info.get("n_trials", 0)))
    if status == "compile_error":
        return compile_feedback(info.get("log", ""), info.get("private_dirs", ()))
    if status == "incorrect":
        if info.get("result") is not None:
            return mismatch_feedback(info["result"], int(info.get("trial_index", 0)), info.get("variant", ""),
                                     info.get("n_trials"))
        return _bound(info.get("message", "The output does not match the reference."), MAX_CHARS)
    if status == "rejected":
        return rejection_feedback(info.get("kind", "generic"))
    if status == "timeout":
        return timeout_feedback(float(info.get("seconds", 0)))
    if status == "runtime_error":
        return runtime_feedback(info.get("kind", "Error"), info.get("message", ""), info.get("where", ""),
                                info.get("candidate_lines", ""), info.get("private_dirs", ()))
    if status == "format_error":
        return info.get("message") or ("No usable solution found: answer with one fenced python block that "
                                       "defines class ModelNew(nn.Module).")
    raise ValueError(f"unknown verdict status {status!r}")


def source_line(source: str, line: int, limit: int = 160) -> str:
    """The text of 1-based ``line`` of ``source`` (stripped, bounded), or "" when out of range."""
    lines = source.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    text = lines[line - 1].strip()
    return text if len(text) <= limit else text[:limit] + " ..."


def gate_feedback(reason: str, rule: str, line: int, col: int, message: str, source: str) -> str:
    """A static-gate rejection for the policy: the general reason, then the rule, where it fired and the
    offending line, e.g. ``Rule torch_compute, line 12: PyTorch compute ...`` + ``    12 | y = x * 2``.
    A syntax error gives line and column. The gate's rules are fixed and public (unlike the run-time
    detectors, whose words stay generic), so naming them teaches the rule rather than a dodge."""
    where = f"line {line}, column {col + 1}" if rule == "syntax" else (f"line {line}" if line else "")
    text = f"{reason}\nRule {rule}" + (f", {where}" if where else "") + f": {message}"
    quoted = source_line(source, line) if line else ""
    if quoted:
        text += f"\n    {line} | {quoted}"
    return _bound(text, MAX_CHARS)
