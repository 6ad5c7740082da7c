"""The ``kernelbench`` prompt mode: KernelBench's one-shot prompt for CUDA or Triton.

KernelBench (ScalingIntelligence/KernelBench) sends one user message, no system message, made of five
parts in this order: a problem statement (write custom kernels of the backend to replace PyTorch
operators for speedups), an example block (an intro line, then an example architecture and its
optimised version), the architecture to optimise, a precision note and the instruction (name the result
``ModelNew``, output code blocks only).

LEAP does not ship KernelBench's text. Given a KernelBench checkout (``checkout``: the repository root,
which holds ``src/kernelbench/prompts/prompts.toml``), the prompt is built at run time from that
checkout's own template file and example files, in its one-shot composition, so it is KernelBench's
prompt for that commit. Without a checkout the same five parts are filled with LEAP's own wording and
LEAP's worked example (`leap.rollout.prompts`); the structure matches, the words do not.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from leap.rollout.context import DEFAULT_BUDGET, next_messages
from leap.rollout.prompts import PromptError, example_solution, example_task_source
from leap.tasks.task import Task

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the tomli backport, where installed
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

KB_BACKEND = {"triton": "triton", "cuda_inline": "cuda", "cuda_nvrtc": "cuda"}
TEMPLATES = Path("src/kernelbench/prompts/prompts.toml")
PRECISION = {"fp32": "fp32", "fp16": "fp16", "bf16": "bf16", "int": "fp32"}

_OWN = {
    "problem_statement": "Your job: speed up the PyTorch architecture below by writing custom {backend_display} "
                         "that take the place of its PyTorch operators. Which operators you replace is up to "
                         "you: one, several fused together (say a matmul with its activation), or all of "
                         "them, and algorithmic changes are welcome.",
    "example_intro": "This example shows how custom {backend_display} are embedded in a PyTorch model:",
    "example_entry": "Example:\n\nInput architecture:\n\n{input_code}\n\nOptimized with {backend_display}:"
                     "\n\n{output_code}",
    "arch_block": "Here is the architecture to optimise:\n\n\n{ref_arch_src}",
    "precision_note": "Note: optimise the kernels for {precision_display} precision.",
    "instruction": "Rewrite the architecture named Model with custom {backend_display} and call the result "
                   "ModelNew. Give the complete new code in a code block: real, compilable, working code, no "
                   "pseudocode, no explanations and no test code.",
}
_OWN_DISPLAY = {"cuda": "CUDA kernels", "triton": "Triton kernels"}
_OWN_PRECISION = {"fp32": "FP32", "fp16": "FP16", "bf16": "BF16"}


def _part(text: str) -> str:
    return text.strip() + "\n"


@lru_cache(maxsize=4)
def _checkout_parts(root: str, backend: str) -> dict[str, str]:
    """The template parts and example files for ``backend`` read from a KernelBench checkout."""
    base = Path(root)
    path = base / TEMPLATES
    if tomllib is None:
        raise PromptError(f"{path}: reading KernelBench's templates needs Python >= 3.11 (or tomli)")
    try:
        data = tomllib.loads(path.read_text())
        shared, common = data["shared"], data["templates"]["common"]
        bk = data["backends"][backend]
        ex_arch = bk.get("few_shot_example_arch") or shared["few_shot_example_arch"]
        parts = {"problem_statement": shared["problem_statement"], "instruction": shared["instruction"],
                 "example_intro": common["example_intro_one_shot"], "example_entry": common["example_entry_template"],
                 "arch_block": common["arch_block"], "precision_note": common["precision_note"],
                 "backend_display": bk["backend_display"],
                 "input_code": (base / ex_arch).read_text(), "output_code": (base / bk["one_shot_new_arch"]).read_text()}
        parts.update({f"precision_display_{k}": v["precision_display"] for k, v in data["precision"].items()})
    except (OSError, KeyError, TypeError, tomllib.TOMLDecodeError) as exc:
        raise PromptError(f"{path}: not a usable KernelBench prompt template ({type(exc).__name__}: {exc})") from None
    return parts


def _own_parts(backend: str, kernel: str) -> dict[str, str]:
    parts = dict(_OWN, backend_display=_OWN_DISPLAY[backend], input_code=example_task_source(),
                 output_code=example_solution(kernel))
    parts.update({f"precision_display_{k}": v for k, v in _OWN_PRECISION.items()})
    return parts


def kernelbench_prompt(task: Task, kernel: str = "triton", checkout: str | Path | None = None) -> str:
    """KernelBench's one-shot user prompt for ``task`` with LEAP kernel backend ``kernel``."""
    if kernel not in KB_BACKEND:
        raise PromptError(f"unknown kernel backend {kernel!r} (expected one of {', '.join(KB_BACKEND)})")
    backend = KB_BACKEND[kernel]
    parts = _checkout_parts(str(checkout), backend) if checkout else _own_parts(backend, kernel)
    display = parts["backend_display"]
    precision = parts.get(f"precision_display_{PRECISION[task.dtype]}", PRECISION[task.dtype].upper())
    intro = _part(parts["example_intro"]).format(backend_display=display).strip()
    one = _part(parts["example_entry"]).format(example_label="Example:", input_code=parts["input_code"],
                                               output_code=parts["output_code"], backend_display=display).strip()
    blocks = [_part(parts["problem_statement"]).format(backend_display=display),
              _part(f"{intro}\n\n{one}"),
              # the template is trimmed before the source goes in (KernelBench formats the composed text),
              # so the source keeps its own leading and trailing blank lines
              _part(parts["arch_block"]).replace("{ref_arch_src}", task.source),
              _part(parts["precision_note"]).format(precision_display=precision),
              _part(parts["instruction"]).format(backend_display=display)]
    return "\n".join(blocks).strip() + "\n"


def kernelbench_messages(task: Task, kernel: str = "triton", checkout: str | Path | None = None) -> list[dict]:
    """Turn-1 messages of the ``kernelbench`` mode: one user message, as KernelBench sends it."""
    return [{"role": "user", "content": kernelbench_prompt(task, kernel, checkout)}]


def kernelbench_prompt_fn(kernel: str = "triton", checkout: str | Path | None = None, budget: int = DEFAULT_BUDGET):
    """An `EpisodeConfig.prompt_fn` for the ``kernelbench`` mode (checks the checkout once, up front);
    later turns are LEAP's feedback turns within ``budget`` characters."""
    if checkout:
        _checkout_parts(str(checkout), KB_BACKEND.get(kernel, "cuda"))

    def fn(task: Task, history: list) -> list[dict]:
        first = kernelbench_messages(task, kernel, checkout)
        return next_messages(first, history, budget=budget) if history else first  # later turns: LEAP's feedback turns
    return fn


PROMPT_MODES = ("leap", "kernelbench")


def prompt_mode_fn(mode: str, kernel: str = "triton", checkout: str | Path | None = None,
                   budget: int = DEFAULT_BUDGET):
    """The turn-1 context builder of a prompt mode, the one `leap eval --prompt` and the trainer's
    ``rollout.prompt`` share: None for ``leap`` (the rollout package's own prompt), KernelBench's one-shot
    prompt for ``kernelbench``. Raises `PromptError` for an unknown mode or an unusable checkout."""
    if mode == "leap":
        return None
    if mode == "kernelbench":
        return kernelbench_prompt_fn(kernel, checkout or None, budget)
    raise PromptError(f"unknown prompt mode {mode!r} (expected {' or '.join(PROMPT_MODES)})")
