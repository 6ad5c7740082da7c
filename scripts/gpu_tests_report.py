"""Markdown summary of pytest JUnit XML files (the parts of one run): counts, then every failure, error and skip with its reason
(so a GPU run's record in docs/ shows what did not run and why). A part cut off by its time limit writes no XML:
its verbose log (``../logs/gpu_tests_N.log`` beside ``sandbox/gpu_tests_N.xml``) gives the outcomes it reached."""

from __future__ import annotations

import glob
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

VERBOSE = re.compile(r"^(tests/\S+::\S+) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b")
KINDS = {"PASSED": "passed", "FAILED": "failure", "ERROR": "error", "SKIPPED": "skipped", "XFAIL": "skipped",
         "XPASS": "passed"}


def _from_log(log: Path) -> list[tuple[str, str, str]]:
    """(test, outcome, message) from the verbose log of a part that wrote no XML."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return []
    return [(m.group(1), KINDS[m.group(2)], "(from the log: the part was cut off; see gpu_test_failures.txt)")
            for m in map(VERBOSE.match, lines) if m]


def _parts(paths: list[str]) -> list[tuple[Path, Path]]:
    """(XML, log) per part: the XML files given, plus every ``logs/gpu_tests_N.log`` beside their folder (a part
    cut off by its time limit has a log and no XML; an unmatched shell glob names no file at all)."""
    parts: dict[str, tuple[Path, Path]] = {}
    xmls = [Path(p) for p in paths]
    for p in xmls:
        parts[p.stem] = (p, p.parent.parent / "logs" / f"{p.stem}.log")
    for folder in {p.parent for p in xmls}:
        for log in map(Path, glob.glob(str(folder.parent / "logs" / "gpu_tests_[0-9]*.log"))):
            parts.setdefault(log.stem, (folder / f"{log.stem}.xml", log))
    return [v for k, v in sorted(parts.items()) if "*" not in k]


def main(paths: list[str]) -> None:
    rows = []
    for xml, log in _parts(paths):  # a run resumed after a kill writes one file per part
        try:
            for c in ET.parse(xml).getroot().iter("testcase"):
                kind = next((k for k in ("failure", "error", "skipped") if c.find(k) is not None), "passed")
                msg = (c.find(kind).get("message") or "").splitlines()[0][:200] if kind != "passed" else ""
                rows.append((f"{c.get('classname')}::{c.get('name')}", kind, msg))
        except (OSError, ET.ParseError) as exc:
            got = _from_log(log)
            print(f"{xml}: unreadable ({exc}); a killed part writes none: {len(got)} outcomes read from {log.name}\n")
            rows += got
    outcome, notes = Counter(), []
    for name, kind, msg in rows:
        outcome[kind] += 1
        if kind != "passed":
            notes.append(f"| {kind} | `{name}` | {msg} |")
    print(f"# GPU tests ({datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC)\n")
    print(f"{len(rows)} with an outcome: {outcome['passed']} passed, {outcome['failure']} failed, "
          f"{outcome['error']} errors, {outcome['skipped']} skipped\n")
    if notes:
        print("| outcome | test | message |\n|---|---|---|")
        print("\n".join(notes))


if __name__ == "__main__":
    main(sys.argv[1:])
