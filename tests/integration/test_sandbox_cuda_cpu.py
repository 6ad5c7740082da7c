"""CUDA candidates on a machine without a GPU: nvcc compile check, else a clear "needs a GPU" verdict."""

from __future__ import annotations

import shutil

import pytest
import torch
from sandbox_cases import kernels as K

from leap.sandbox import Sandbox, SandboxConfig
from leap.sandbox.judge.cuda_check import cuda_sources
from leap.tasks.suite import get_builtin

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="CPU-only behaviour")
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")


@pytest.fixture(scope="module")
def sb(tmp_path_factory):
    cfg = SandboxConfig(workers=1, prewarm=0, cache_dir=tmp_path_factory.mktemp("cache"))
    with Sandbox(cfg, device="cpu") as box:
        yield box


def test_cuda_sources_are_read_statically():
    assert "relu_k" in cuda_sources(K.NVRTC_RELU, "cuda_nvrtc")[0]
    units = cuda_sources(K.INLINE_RELU, "cuda_inline")
    assert len(units) == 1 and "torch::Tensor relu_cuda" in units[0]


@needs_nvcc
def test_nvrtc_compiles_and_says_it_needs_a_gpu(sb):
    relu = get_builtin("relu_fp32")
    v = sb.verify(relu, K.NVRTC_RELU)
    assert v.backend == "cuda_nvrtc" and v.compiled and not v.correct and v.status == "needs_gpu"
    assert "needs a CUDA GPU" in v.feedback
    bad = sb.verify(relu, K.NVRTC_RELU_SYNTAX)
    assert bad.status == "compile_error" and not bad.compiled
    assert "kernel.cu(4)" in bad.feedback and "error" in bad.feedback


CPP_EXT = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP = r"""
#include <torch/extension.h>
torch::Tensor relu_cpu(torch::Tensor x) {
    auto y = torch::empty_like(x);
    auto a = x.data_ptr<float>();
    auto b = y.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) b[i] = a[i] > 0 ? a[i] : 0;
    return y;
}
"""
ext = load_inline(name="leap_cpu_relu", cpp_sources=CPP, functions=["relu_cpu"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_cpu(x.contiguous())
'''


@pytest.mark.slow
@pytest.mark.skipif(not (shutil.which("c++") or shutil.which("g++")) or not shutil.which("ninja"),
                    reason="building a C++ extension needs a C++ compiler and ninja")
def test_compile_job_builds_into_the_cache_and_the_check_child_reuses_it(tmp_path):
    """The cuda_inline machinery with a C++-only extension (this machine cannot link CUDA): a compile
    child builds into <cache>/<content hash>; a fresh check child finds it and does not rebuild."""
    from leap.sandbox.judge import verifier as V
    from leap.sandbox.judge.scheduler import _write_init
    from leap.sandbox.pool.pool import WorkerPool

    relu = get_builtin("relu_fp32")
    cache = tmp_path / "ext"
    cache.mkdir()
    pool = WorkerPool(tmp_path, prewarm=0, interpret=True)
    try:
        job = {"backend": "cuda_inline", "source": CPP_EXT, "device": "cpu", "ext_cache": str(cache),
               "arch_list": "9.0", "isolation": False}
        built = pool.run({**job, "type": "compile"}, 300, prepare=lambda d: _write_init(relu, d)).result
        assert built["ok"] and built["builds"][0]["ok"], built
        built_files = {p: p.stat().st_mtime_ns for p in cache.rglob("*.so")}
        assert built_files, "the compile child built no extension"
        prep = V.prepare(relu, "cpu", SandboxConfig(), None)
        out = pool.run({**job, "type": "check", "init_seed": V.INIT_SEED, "poison_rechecks": 1,
                        "poison_bytes": 1 << 20}, 300, prepare=lambda d: V.write_inputs(prep, d))
        res = out.result
        assert res["ok"], res
        assert res["builds"][0]["hash"] == built["builds"][0]["hash"]
        # the check child loaded the cached build: the shared object was not written again
        assert {p: p.stat().st_mtime_ns for p in cache.rglob("*.so")} == built_files, "the check child rebuilt it"
        bad, _ = V.judge_outputs(relu, prep, res, out.private_dir, SandboxConfig(), {"task": relu.name})
        assert bad is None
    finally:
        pool.close()


@needs_nvcc
@pytest.mark.parametrize("gate", [True, False])
def test_judge_side_nvcc_reads_no_file_outside_the_include_dirs(tmp_path, gate):
    """The compile check runs in the judge: an include by absolute path (a root-only file, the judge's stdin,
    a binary), with ``..``, spliced over two lines, or through a macro never reaches nvcc, whose errors would
    echo the file's lines; with the gate off the check itself refuses it."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP_SECRET_LINE;\n")
    secret.chmod(0o600)
    relu = get_builtin("relu_fp32")
    includes = [f'#include "{secret}"', "#include </dev/stdin>", '#inc\\\nlude "/usr/bin/true"',
                "%:include <../../../../etc/hostname>", f'#define P "{secret}"\n#include P']
    cfg = SandboxConfig(workers=1, prewarm=0, cache_dir=tmp_path / "cache", static_gate=gate)
    with Sandbox(cfg, device="cpu") as box:
        for inc in includes:
            src = K.NVRTC_RELU.replace('SRC = r"""\n', 'SRC = r"""\n' + inc + "\nbroken_line;\n")
            v = box.verify(relu, src)
            assert v.status == "rejected", (inc, v.status, v.feedback)
            assert "TOP_SECRET" not in (v.feedback + (v.detail or "")), inc
            assert "include" in v.feedback, v.feedback
        ok = box.verify(relu, K.NVRTC_RELU.replace('SRC = r"""\n', 'SRC = r"""\n#include <cuda_fp16.h>\n'))
        assert ok.status == "needs_gpu" and ok.compiled, (ok.status, ok.feedback)
