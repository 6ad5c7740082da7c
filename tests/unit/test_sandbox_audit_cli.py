"""`leap sandbox audit`: table, Markdown report with the date, exit 1 on a mismatch, one-line errors."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from leap.cli.main import app
from leap.sandbox.corpus import DEFAULT_CORPUS

runner = CliRunner()


def test_gate_only_audit_writes_markdown(tmp_path):
    out = tmp_path / "AUDIT.md"
    res = runner.invoke(app, ["sandbox", "audit", "--gate-only", "--device", "cpu", "--only",
                              "hacks/passthrough,legit/relu", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "hacks/passthrough_torch" in res.output
    text = out.read_text()
    assert text.startswith("# Sandbox audit") and "Date: 20" in text and "| `hacks/passthrough_torch` |" in text
    assert "false rejections 0" in text


def test_mismatch_exits_1_and_bad_args_exit_2(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "legit").mkdir(parents=True)
    shutil.copytree(DEFAULT_CORPUS / "tasks", corpus / "tasks")
    src = (DEFAULT_CORPUS / "hacks" / "passthrough_torch.py").read_text().replace("EXPECT = 'rejected'",
                                                                                  "EXPECT = 'ok'")
    Path(corpus / "legit" / "wrongly_expected.py").write_text(src)
    res = runner.invoke(app, ["sandbox", "audit", "--gate-only", "--device", "cpu", "--corpus", str(corpus)])
    assert res.exit_code == 1
    res = runner.invoke(app, ["sandbox", "audit", "--device", "tpu"])
    assert res.exit_code == 2 and "--device" in res.output
    res = runner.invoke(app, ["sandbox", "audit", "--corpus", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "corpus directory not found" in res.output
