"""Extract the candidate from a policy answer: the last fenced python block (DESIGN.md §4).

Robust to reasoning sections (``<think>…</think>`` is dropped; an unclosed ``<think>`` with no answer
after it yields nothing), several blocks (the last python block wins; a block with ``class ModelNew``
is preferred over a later one without), ```` ```py ````/```` ```python3 ```` tags, an unclosed final fence,
and missing fences (fallback: the code-looking tail that starts at an import or ``class ModelNew``).
"""

from __future__ import annotations

import re

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_OPEN_THINK = re.compile(r"<think>", re.IGNORECASE)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+.-]*)[^\n]*$", re.MULTILINE)
_PY_TAGS = {"python", "py", "python3", "py3", "python2", ""}
_CODE_START = re.compile(r"^(import |from \S+ import |class ModelNew\b|@triton\.jit)", re.MULTILINE)


def strip_reasoning(text: str) -> str:
    """Drop ``<think>…</think>`` sections; a dangling ``</think>`` drops everything before it, and an
    unclosed ``<think>`` drops everything after it."""
    text = _THINK.sub("", text)
    if "</think>" in text.lower():
        text = text[text.lower().rindex("</think>") + len("</think>"):]
    m = _OPEN_THINK.search(text)
    if m:
        text = text[:m.start()]
    return text


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """All fenced blocks as (tag, body), in order; an unclosed final fence runs to the end of text."""
    blocks: list[tuple[str, str]] = []
    fences = list(_FENCE.finditer(text))
    i = 0
    while i < len(fences):
        opening = fences[i]
        marker, tag = opening.group(1), opening.group(2).lower()
        start = opening.end() + 1
        close = None
        for j in range(i + 1, len(fences)):
            f = fences[j]
            if f.group(1)[0] == marker[0] and len(f.group(1)) >= len(marker) and not f.group(2):
                close = j
                break
        if close is None:
            blocks.append((tag, text[start:]))
            break
        blocks.append((tag, text[start:fences[close].start()]))
        i = close + 1
    return blocks


def _dedent_tail(body: str) -> str:
    return body.strip("\n").rstrip() + "\n"


def extract_code(text: str) -> str | None:
    """The candidate source in a policy answer, or None when there is none."""
    text = strip_reasoning(text)
    blocks = [b for tag, b in fenced_blocks(text) if tag in _PY_TAGS and b.strip()]
    if blocks:
        with_model = [b for b in blocks if "class ModelNew" in b]
        return _dedent_tail((with_model or blocks)[-1])
    if "```" in text or "~~~" in text:
        return None
    # No fences: the code-looking tail that contains ModelNew.
    idx = text.find("class ModelNew")
    if idx < 0:
        return None
    starts = [m.start() for m in _CODE_START.finditer(text) if m.start() <= idx]
    start = next((s for s in starts if _is_code_region(text[s:idx])), idx)
    return _dedent_tail(text[start:])


def _is_code_region(chunk: str) -> bool:
    """True if every non-blank line looks like Python (not prose)."""
    for line in chunk.splitlines():
        s = line.strip()
        if not s or s.startswith(("#", "@", "import ", "from ", "def ", "class ", "return ", ")", "]")):
            continue
        if line.startswith((" ", "\t")) or re.match(r"^[A-Za-z_][\w.]*\s*(=|\(|:)", s):
            continue
        return False
    return True
