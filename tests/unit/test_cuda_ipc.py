"""CUDA IPC transport, the parts that run without a GPU: records from a child are validated before any
mapping, malformed ``tensors`` messages are refused, and an output the judge never received is an error.
The transport itself runs in tests/gpu/test_cuda_ipc_gpu.py."""

from __future__ import annotations

import pytest

from leap.sandbox.judge import verifier as V
from leap.sandbox.judge.scheduler import _receive
from leap.sandbox.pool import cuda_ipc

GOOD = {"dtype": "bfloat16", "shape": [2, 3], "nbytes": 12, "ipc": "ab" * 64}


def test_valid_record_gives_dtype_shape_size():
    import torch

    assert cuda_ipc.validate(GOOD) == (torch.bfloat16, [2, 3], 12)
    assert cuda_ipc.validate({**GOOD, "shape": [], "nbytes": 2})[2] == 2


@pytest.mark.parametrize("bad", [
    "not a dict", {**GOOD, "dtype": "object"}, {**GOOD, "dtype": 7}, {**GOOD, "shape": [-1, 3]},
    {**GOOD, "shape": "2,3"}, {**GOOD, "shape": [2.0, 3]}, {**GOOD, "nbytes": 24}, {**GOOD, "nbytes": "12"},
    {**GOOD, "ipc": "ab"}, {**GOOD, "ipc": None}, {**GOOD, "shape": [1 << 40], "nbytes": 2 << 40},
    {**GOOD, "shape": [1] * 17, "nbytes": 2},
])
def test_malformed_records_are_refused(bad):
    with pytest.raises(cuda_ipc.IpcError):
        cuda_ipc.validate(bad)


@pytest.mark.parametrize("msg", [
    {"type": "tensors", "key": 3, "kind": "tensor", "items": [GOOD]},
    {"type": "tensors", "key": "t0_r0", "kind": "dict", "items": [GOOD]},
    {"type": "tensors", "key": "t0_r0", "kind": "tensor", "items": [GOOD, GOOD]},
    {"type": "tensors", "key": "t0_r0", "kind": "list", "items": "x"},
    {"type": "tensors", "key": "t0_r0", "kind": "list", "items": [{**GOOD, "dtype": "object"}]},
])
def test_judge_refuses_malformed_tensor_messages(msg):
    received: dict = {}
    reply = _receive(msg, "cuda:0", received)
    assert reply["type"] == "refused" and reply["error"]
    assert received == {}


def test_output_never_received_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="not received"):
        V.load_output({"ipc_key": "t0_r0"}, str(tmp_path), "cpu", {})
    with pytest.raises(ValueError, match="outside"):
        V.load_output("/etc/passwd", str(tmp_path), "cpu", {})
    assert V.load_output({"ipc_key": "k"}, str(tmp_path), "cpu", {"k": 5}) == 5


def test_transport_is_a_config_choice():
    from pydantic import ValidationError

    from leap.sandbox import SandboxConfig

    assert SandboxConfig().transport == "auto"
    assert SandboxConfig(transport="files").transport == "files"
    with pytest.raises(ValidationError):
        SandboxConfig(transport="carrier-pigeon")
