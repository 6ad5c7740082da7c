"""Where a candidate's error started (worker/error_origin): the judge's needs_gpu comes from the library code that
raises such errors or from the candidate's own failed "inputs are on CUDA" check, never from a message."""

from __future__ import annotations

import importlib.util

import pytest
import torch

from leap.sandbox.judge.verifier import needs_gpu_error
from leap.sandbox.worker.error_origin import CANDIDATE, CANDIDATE_CUDA_CHECK, raise_site

SOURCE = '''import torch


class Mine(Exception):
    pass


def assert_cuda(x):
    assert x.is_cuda, "Tensors must be on CUDA."


def if_device_raise(x):
    if x.device.type != "cuda":
        raise RuntimeError("needs cuda")


def forged_assert(x):
    assert x.numel() < 0, "CUDA is not available"


def forged_raise(x):
    raise RuntimeError("autotuning failed: CUDA is not available")


def own_class(x):
    raise Mine("cuda is not available")


def touch_cuda(x):
    return x.cuda()
'''


@pytest.fixture(scope="module")
def cand(tmp_path_factory):
    path = tmp_path_factory.mktemp("c") / "candidate.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("leap_candidate", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _origin(fn) -> tuple[str, str, str]:
    try:
        fn(torch.zeros(2))
    except Exception as exc:  # noqa: BLE001 - the point
        return type(exc).__name__, str(exc), raise_site(exc)
    raise AssertionError("no error")


@pytest.mark.parametrize("name", ["assert_cuda", "if_device_raise"])
def test_a_failed_check_that_inputs_are_on_cuda_needs_a_gpu(cand, name):
    kind, msg, origin = _origin(getattr(cand, name))
    assert origin == CANDIDATE_CUDA_CHECK and needs_gpu_error(kind, msg, origin)


@pytest.mark.parametrize("name", ["forged_assert", "forged_raise", "own_class"])
def test_a_message_the_candidate_wrote_says_nothing(cand, name):
    kind, msg, origin = _origin(getattr(cand, name))
    assert "cuda" in msg.lower() and origin != CANDIDATE_CUDA_CHECK
    assert not needs_gpu_error(kind, msg, origin)
    if name == "own_class":
        assert origin == CANDIDATE


@pytest.mark.skipif(torch.cuda.is_available(), reason="CPU-only behaviour")
def test_torch_cuda_initialisation_needs_a_gpu(cand):
    kind, msg, origin = _origin(cand.touch_cuda)
    assert "/torch/cuda/" in origin and needs_gpu_error(kind, msg, origin)


SELECTIVE = '''
def selective(x):
    assert x.is_cuda or x.numel() % 1024 == 0, "Tensors must be on CUDA."


def not_an_assertion(x):
    assert x.is_cuda, int("cuda is not available")
'''


def test_a_cuda_test_mixed_with_anything_else_is_not_a_cuda_check(tmp_path):
    """On a CPU ``x.is_cuda`` is False, so the rest of such a test decides when the candidate goes unjudged:
    exactly the inputs where it is wrong, say."""
    path = tmp_path / "candidate.py"
    path.write_text(SOURCE + SELECTIVE)
    spec = importlib.util.spec_from_file_location("leap_candidate", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for fn in (mod.selective, mod.not_an_assertion):
        kind, msg, origin = _origin(fn)
        assert origin != CANDIDATE_CUDA_CHECK and not needs_gpu_error(kind, msg, origin), fn.__name__


@pytest.mark.parametrize("test, value", [
    ("x.is_cuda", False), ("not x.is_cuda", True), ("x.is_cuda and x.is_contiguous()", False),
    ("x.is_cuda or n % 1024 == 0", None), ("x.device.type == 'cuda'", False), ("x.device != torch.device('cuda')", True),
    ("all(t.is_cuda for t in (a, b))", False), ("all(t.is_cuda for t in ts)", None), ("torch.cuda.is_available()", False),
    ("n > 0", None), ("not (x.is_cuda or y.is_cuda)", True)])
def test_a_cuda_check_is_a_test_cuda_alone_decides(test, value):
    import ast

    from leap.sandbox.worker.error_origin import _without_cuda

    assert _without_cuda(ast.parse(test, mode="eval").body) is value
