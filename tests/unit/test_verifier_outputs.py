"""The judge reads a candidate's output files safely: only regular files in its own dir; a FIFO (which
would block the judge's open forever and wedge a whole batch) or a path outside is refused at once."""

from __future__ import annotations

import os
import threading

import pytest
import torch

from leap.sandbox.judge.verifier import load_output


def test_regular_files_load_and_fifos_or_outside_paths_are_refused(tmp_path):
    priv = tmp_path / "priv"
    priv.mkdir()
    torch.save(torch.arange(4.0), priv / "t0.pt")
    assert torch.equal(load_output(str(priv / "t0.pt"), str(priv)), torch.arange(4.0))
    os.mkfifo(priv / "t1.pt")
    done = threading.Event()

    def read_fifo():
        with pytest.raises(ValueError, match="not a regular file"):
            load_output(str(priv / "t1.pt"), str(priv))
        done.set()

    threading.Thread(target=read_fifo, daemon=True).start()
    assert done.wait(10), "the judge blocked on a FIFO"
    torch.save(torch.zeros(1), tmp_path / "elsewhere.pt")
    os.symlink(tmp_path / "elsewhere.pt", priv / "t2.pt")
    with pytest.raises(ValueError, match="outside"):
        load_output(str(priv / "t2.pt"), str(priv))
