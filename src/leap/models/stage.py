"""Move big files through small transfers: split into chunks with a manifest, join with checksums.

``split(path, out_dir, chunk_mb)`` writes ``out_dir/manifest.json`` and ``<file>.partNNNN`` chunks of at most
``chunk_mb`` × 10^6 bytes; ``path`` may be a file or a folder (every file inside, relative paths kept).
``join(stage_dir, out)`` verifies every chunk and file sha256 and rebuilds the file (or folder).
Standard library only, so it also runs as ``python -m leap.models.stage split|join ...`` on a bare machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

MANIFEST = "manifest.json"
_BUF = 1 << 20


class StageError(ValueError):
    """A bad stage folder or checksum; the message is one line."""


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_BUF):
            h.update(chunk)
    return h.hexdigest()


def _split_one(src: Path, rel: str, out_dir: Path, chunk: int) -> dict:
    parts, whole = [], hashlib.sha256()
    stem = rel.replace("/", "__")
    with src.open("rb") as f:
        i = 0
        while True:
            data = f.read(chunk)
            if not data and i:
                break
            whole.update(data)
            name = f"{stem}.part{i:04d}"
            (out_dir / name).write_bytes(data)
            parts.append({"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
            i += 1
            if len(data) < chunk:
                break
    return {"path": rel, "size": src.stat().st_size, "sha256": whole.hexdigest(), "parts": parts}


def split(path: str | Path, out_dir: str | Path, chunk_mb: float = 60) -> dict:
    """Split a file or folder into ``out_dir``; returns the manifest."""
    src, out = Path(path), Path(out_dir)
    if not src.exists():
        raise StageError(f"{src}: no such file or folder")
    if chunk_mb <= 0:
        raise StageError(f"--chunk-mb must be > 0 (got {chunk_mb})")
    chunk = int(chunk_mb * 1_000_000)
    out.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        files = sorted(p for p in src.rglob("*") if p.is_file())
        entries = [_split_one(p, p.relative_to(src).as_posix(), out, chunk) for p in files]
        manifest = {"kind": "dir", "name": src.name, "chunk_bytes": chunk, "files": entries}
    else:
        manifest = {"kind": "file", "name": src.name, "chunk_bytes": chunk,
                    "files": [_split_one(src, src.name, out, chunk)]}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def join(stage_dir: str | Path, out: str | Path, sha256: str | None = None) -> Path:
    """Rebuild the staged file (or folder) at ``out`` after checking every checksum."""
    stage = Path(stage_dir)
    try:
        manifest = json.loads((stage / MANIFEST).read_text())
        files = manifest["files"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise StageError(f"{stage / MANIFEST}: missing or unreadable manifest ({exc.__class__.__name__})") from None
    target = Path(out)
    if manifest.get("kind") == "file" and sha256 and files[0]["sha256"] != sha256.lower():
        raise StageError(f"{stage / MANIFEST}: records sha256 {files[0]['sha256']}, expected {sha256}")
    for entry in files:
        dest = target / entry["path"] if manifest.get("kind") == "dir" else target
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".joining")
        whole = hashlib.sha256()
        with tmp.open("wb") as f:
            for part in entry["parts"]:
                p = stage / part["name"]
                if not p.is_file():
                    tmp.unlink()
                    raise StageError(f"{p}: missing chunk ({len(entry['parts'])} expected for {entry['path']})")
                data = p.read_bytes()
                if hashlib.sha256(data).hexdigest() != part["sha256"]:
                    tmp.unlink()
                    raise StageError(f"{p}: sha256 mismatch (chunk corrupted in transfer)")
                whole.update(data)
                f.write(data)
        if whole.hexdigest() != entry["sha256"]:
            tmp.unlink()
            raise StageError(f"{entry['path']}: sha256 mismatch after joining")
        tmp.replace(dest)
    if sha256 and manifest.get("kind") == "file" and sha256_file(target) != sha256.lower():
        raise StageError(f"{target}: sha256 does not match {sha256}")
    return target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m leap.models.stage")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("split")
    s.add_argument("path")
    s.add_argument("--out", required=True)
    s.add_argument("--chunk-mb", type=float, default=60)
    j = sub.add_parser("join")
    j.add_argument("stage_dir")
    j.add_argument("--out", required=True)
    j.add_argument("--sha256", default=None)
    a = ap.parse_args(argv)
    try:
        if a.cmd == "split":
            m = split(a.path, a.out, a.chunk_mb)
            print(f"{sum(len(f['parts']) for f in m['files'])} chunks in {a.out}")
        else:
            print(f"joined {join(a.stage_dir, a.out, a.sha256)}")
    except StageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
