"""The demo's tiny kernel-writing policy: a line-level BPE tokenizer trained on the code corpus and a
small Qwen2-style decoder built from a config (nothing downloaded), plus its compact prompt format.

Prompts are short so that a few minutes on 2 CPU cores suffice: the task's op lines, and on later turns
the previous answer's code and the first sentence of the sandbox feedback.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

PAD, EOS = 0, 1
ANSWER = "### Answer\n"


def first_sentence(feedback: str, limit: int = 60) -> str:
    """The policy-facing gist of a verdict's feedback (the tiny policy cannot use long numeric text)."""
    head = feedback.strip().split("\n", 1)[0]
    for sep in (":", ". "):
        if sep in head:
            head = head.split(sep, 1)[0]
    return head[:limit]


def build_prompt(spec: str, history: list[tuple[str, str]] | None = None) -> str:
    """Turn-1 prompt, or a later turn's prompt with the last (code, feedback) pair of ``history``."""
    text = "### Task\n" + spec.strip() + "\n"
    if history:
        code, feedback = history[-1]
        text += "### Previous\n" + (code or "").strip() + "\n### Feedback\n" + first_sentence(feedback) + "\n"
    return text + ANSWER


# The demo's prompt layout as a chat template, so `leap eval` / `leap train` (which speak chat messages)
# can drive a saved demo policy: first user message = the task, later ones = feedback, assistant = code.
CHAT_TEMPLATE = (
    "{%- set ns = namespace(first=true) -%}"
    "{%- for m in messages -%}"
    "{%- if m['role'] == 'user' and ns.first -%}{{ '### Task\\n' + (m['content'] | trim) + '\\n' }}"
    "{%- set ns.first = false -%}"
    "{%- elif m['role'] == 'user' -%}{{ '### Feedback\\n' + (m['content'] | trim) + '\\n' }}"
    "{%- elif m['role'] == 'assistant' -%}{{ '### Previous\\n' + (m['content'] | trim) + '\\n' }}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '### Answer\\n' }}{%- endif -%}")


def format_answer(code: str) -> str:
    return "```python\n" + code.strip() + "\n```\n"


def extract_code(completion: str) -> str | None:
    """The last fenced python block (or the text itself when it has no fence)."""
    try:  # the rollout package's extractor, once it lands
        from leap.rollout.extract import extract_code as _rollout_extract  # type: ignore

        return _rollout_extract(completion)
    except ImportError:
        pass
    if "```" not in completion:
        return completion.strip() or None
    parts = completion.split("```")
    blocks = [parts[i] for i in range(1, len(parts), 2)]
    if not blocks:
        return None
    block = blocks[-1]
    if block.startswith("python"):
        block = block[len("python"):]
    return block.strip("\n") + "\n" if block.strip() else None


def train_tokenizer(texts: list[str], vocab_size: int = 768) -> Tokenizer:
    """Byte-level BPE whose merges never cross a line end (frequent code lines become single tokens)."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(r"[^\n]*\n+|[^\n]+$"), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<pad>", "<eos>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(texts, trainer)
    return tok


@dataclass
class TinyConfig:
    hidden: int = 128
    layers: int = 2
    heads: int = 4
    vocab_size: int = 768
    max_positions: int = 1024


def build_model(cfg: TinyConfig, vocab_size: int, seed: int = 0) -> torch.nn.Module:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(vocab_size=vocab_size, hidden_size=cfg.hidden, intermediate_size=4 * cfg.hidden,
                         num_hidden_layers=cfg.layers, num_attention_heads=cfg.heads,
                         num_key_value_heads=cfg.heads, max_position_embeddings=cfg.max_positions,
                         tie_word_embeddings=True, pad_token_id=PAD, eos_token_id=EOS, bos_token_id=EOS)
    return Qwen2ForCausalLM(config)


class TinyPolicy:
    """Tokenizer + model with batched sampling and per-token log-probabilities of completions."""

    def __init__(self, tokenizer: Tokenizer, model: torch.nn.Module, device: str = "cpu"):
        self.tok = tokenizer
        self.model = model.to(device)
        self.device = device

    # ---- text <-> ids
    def encode(self, text: str) -> list[int]:
        return self.tok.encode(text).ids

    def decode(self, ids: list[int]) -> str:
        return self.tok.decode([i for i in ids if i not in (PAD, EOS)])

    # ---- sampling
    @torch.no_grad()
    def generate(self, prompts: list[str], temperature: float = 1.0, max_new_tokens: int = 96,
                 batch_size: int = 64) -> list[tuple[list[int], list[int], str]]:
        """Sample one completion per prompt: (prompt_ids, completion_ids incl. EOS if any, text)."""
        self.model.eval()
        out: list[tuple[list[int], list[int], str]] = []
        for start in range(0, len(prompts), batch_size):
            enc = [self.encode(p) for p in prompts[start:start + batch_size]]
            width = max(map(len, enc))
            ids = torch.full((len(enc), width), PAD, dtype=torch.long)
            att = torch.zeros_like(ids)
            for i, e in enumerate(enc):
                ids[i, width - len(e):] = torch.tensor(e)
                att[i, width - len(e):] = 1
            kwargs = {"do_sample": True, "temperature": temperature, "top_k": 0} if temperature > 0 \
                else {"do_sample": False}
            gen = self.model.generate(input_ids=ids.to(self.device), attention_mask=att.to(self.device),
                                      max_new_tokens=max_new_tokens, pad_token_id=PAD, eos_token_id=EOS,
                                      **kwargs)
            for e, row in zip(enc, gen[:, width:].tolist(), strict=False):
                comp = row[:row.index(EOS) + 1] if EOS in row else [t for t in row if t != PAD]
                out.append((e, comp, self.decode(comp)))
        return out

    # ---- persistence
    def save(self, path: str | Path) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(path)
        self.hf_tokenizer().save_pretrained(path)  # tokenizer.json + tokenizer_config.json (chat template)

    def hf_tokenizer(self):
        """The tokenizer as a transformers tokenizer with the demo's chat template, pad and EOS tokens."""
        from transformers import PreTrainedTokenizerFast

        fast = PreTrainedTokenizerFast(tokenizer_object=self.tok, pad_token="<pad>", eos_token="<eos>",
                                       padding_side="left")
        fast.chat_template = CHAT_TEMPLATE
        return fast

    @classmethod
    def load(cls, path: str | Path, device: str = "cpu") -> TinyPolicy:
        from transformers import Qwen2ForCausalLM

        path = Path(path)
        return cls(Tokenizer.from_file(str(path / "tokenizer.json")),
                   Qwen2ForCausalLM.from_pretrained(path), device)

    def state_copy(self) -> dict:
        return {k: v.detach().clone() for k, v in self.model.state_dict().items()}


def dump_json(path: Path, obj) -> None:
    path.write_text(json.dumps(obj, indent=2, sort_keys=True))
