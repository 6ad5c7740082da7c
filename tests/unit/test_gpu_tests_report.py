"""scripts/gpu_tests_report.py: a GPU run's summary from its parts' JUnit XML, and from the verbose log of a
part cut off by its time limit (which writes no XML)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu_tests_report.py"
XML = """<testsuites><testsuite>
<testcase classname="tests.integration.test_demo" name="test_quick_demo_on_cuda"/>
<testcase classname="tests.gpu.test_x" name="test_skipped"><skipped message="no vLLM"/></testcase>
</testsuite></testsuites>"""
LOG = """collecting ... collected 3 items
tests/gpu/test_a.py::test_one PASSED [ 33%]
tests/gpu/test_a.py::test_two FAILED [ 66%]
tests/gpu/test_b.py::test_three[case-1] PASSED [100%]
tests/gpu/test_b.py::test_four """


def test_parts_from_xml_and_from_the_log_of_a_cut_off_part(tmp_path):
    (tmp_path / "sandbox").mkdir()
    (tmp_path / "logs").mkdir()
    (tmp_path / "sandbox" / "gpu_tests_0.xml").write_text(XML)
    (tmp_path / "logs" / "gpu_tests_1.log").write_text(LOG)  # part 1: cut off, no XML
    # the shell passes what its glob matched: part 0's XML only
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "sandbox" / "gpu_tests_0.xml")],
                         capture_output=True, text=True, check=True).stdout
    assert "5 with an outcome: 3 passed, 1 failed, 0 errors, 1 skipped" in out, out
    assert "`tests/gpu/test_a.py::test_two`" in out and "no vLLM" in out
    assert "3 outcomes read from gpu_tests_1.log" in out
