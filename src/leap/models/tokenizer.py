"""Loading a tokenizer exactly as it was saved.

transformers 5's ``AutoTokenizer`` picks the tokenizer class of the *model type* in ``config.json``; for a
Qwen2 config it builds ``Qwen2Tokenizer``, whose own pre-tokenizer replaces the saved one. LEAP's own
tokenizers (the demo's line-level BPE, the tiny test models) are saved with the generic backend class, so
loading them through ``AutoTokenizer`` silently changes their token ids (the demo's 3-token prompt became
22 tokens, and the policy wrote garbage under `leap eval`). Here a folder whose ``tokenizer_config.json``
names the generic class is loaded with that class; everything else goes through ``AutoTokenizer``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GENERIC = frozenset({"TokenizersBackend", "PreTrainedTokenizerFast"})


def saved_class(folder: str | Path) -> str | None:
    """The ``tokenizer_class`` a folder's ``tokenizer_config.json`` names (None when absent/unreadable)."""
    cfg = Path(folder) / "tokenizer_config.json"
    try:
        return json.loads(cfg.read_text()).get("tokenizer_class")
    except (OSError, ValueError, AttributeError):
        return None


def load_tokenizer(folder: str | Path, **kwargs: Any):
    """The tokenizer saved in ``folder`` (kwargs go to ``from_pretrained``)."""
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    if "gguf_file" not in kwargs and saved_class(folder) in GENERIC and (Path(folder) / "tokenizer.json").is_file():
        kwargs.pop("trust_remote_code", None)
        return PreTrainedTokenizerFast.from_pretrained(folder, **kwargs)
    return AutoTokenizer.from_pretrained(folder, **kwargs)
