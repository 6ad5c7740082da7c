"""Shared pytest setup: the `gpu` marker skips without a CUDA device."""

from __future__ import annotations

import os

import pytest

try:  # property tests keep nothing in the checkout (.hypothesis/): tests write only to tmp dirs
    import tempfile

    from hypothesis import configuration, settings

    configuration.set_hypothesis_home_dir(os.path.join(tempfile.gettempdir(), "leap-hypothesis"))
    settings.register_profile("leap", database=None, deadline=None)  # no wall-clock limits in CI
    settings.load_profile("leap")
except (ImportError, AttributeError):  # hypothesis is a dev extra (older ones lack the home-dir setter)
    pass


def _has_cuda() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:  # torch missing or broken: no GPU tests
        return False


def pytest_collection_modifyitems(config, items):
    if _has_cuda():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_runtest_logreport(report):
    """With ``LEAP_TEST_FAILURE_LOG`` set, each failure's traceback is appended there as it happens: a GPU run
    cut off by its time limit writes no summary and no junit XML, and the failures would be lost with them."""
    path = os.environ.get("LEAP_TEST_FAILURE_LOG")
    if path and report.failed:
        with open(path, "a") as fh:
            fh.write(f"=== {report.nodeid} ({report.when}, {report.duration:.1f} s)\n{report.longreprtext[-8000:]}\n")


@pytest.fixture(autouse=True)
def _restore_torch_threads():
    """A test that runs a CLI in-process (e.g. `leap demo`, which sets torch's thread count) must not leave the
    process-global thread count changed for later tests (the run-time detectors compare it to their baseline)."""
    import torch

    n = torch.get_num_threads()
    yield
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)
