"""Markdown summary of pytest JUnit XML files (the parts of one run): counts, then every failure, error and skip with its reason
(so a GPU run's record in docs/ shows what did not run and why)."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import datetime, timezone


def main(paths: list[str]) -> None:
    cases = []
    for path in paths:  # a run resumed after a kill writes one file per part
        try:
            cases += list(ET.parse(path).getroot().iter("testcase"))
        except (OSError, ET.ParseError) as exc:
            print(f"{path}: unreadable ({exc}); a killed part writes none\n")
    outcome, notes = Counter(), []
    for c in cases:
        name = f"{c.get('classname')}::{c.get('name')}"
        kind = next((k for k in ("failure", "error", "skipped") if c.find(k) is not None), "passed")
        outcome[kind] += 1
        if kind != "passed":
            msg = (c.find(kind).get("message") or "").splitlines()[0][:200] if c.find(kind) is not None else ""
            notes.append(f"| {kind} | `{name}` | {msg} |")
    print(f"# GPU tests ({datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC)\n")
    print(f"{len(cases)} collected: {outcome['passed']} passed, {outcome['failure']} failed, "
          f"{outcome['error']} errors, {outcome['skipped']} skipped\n")
    if notes:
        print("| outcome | test | message |\n|---|---|---|")
        print("\n".join(notes))


if __name__ == "__main__":
    main(sys.argv[1:])
