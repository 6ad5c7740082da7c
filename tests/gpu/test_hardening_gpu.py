"""GPU checks of the hardening layers (run on the H200): CUDA works inside the isolation layers, and the
run-time detectors catch side-stream work that event timing would miss."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.gpu

_PROBE = r'''
import json, os, socket, sys
import torch  # imported before isolation, as in the forkserver; CUDA is initialised after it
from leap.sandbox.pool.isolation import IsolationLimits, enter_isolation
drop = int(sys.argv[2]) if sys.argv[2] != "none" else None
rep = enter_isolation(sys.argv[1], IsolationLimits.for_device("cuda", drop_uid=drop))
x = torch.randn(1 << 20, device="cuda")
y = torch.relu(x)
torch.cuda.synchronize()
s = socket.socket()
s.settimeout(2)
try:
    s.connect(("127.0.0.1", int(sys.argv[3])))
    net = "connected"
except OSError as exc:
    net = type(exc).__name__
print(json.dumps({"layers": rep.layers, "ok": bool((y >= 0).all()), "net": net, "uid": os.getuid()}))
'''


@pytest.mark.parametrize("drop", ["none", "65534"])
def test_cuda_works_inside_isolation(tmp_path, drop):
    srv = __import__("socket").socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    priv = tmp_path / "priv"
    os.chmod(tmp_path, 0o711)
    try:
        res = subprocess.run([sys.executable, "-c", _PROBE, str(priv), drop, str(srv.getsockname()[1])],
                             capture_output=True, text=True, timeout=300)
    finally:
        srv.close()
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["ok"] and out["net"] != "connected", out
    assert out["layers"]["network"] == "ok" and out["layers"]["rlimits"] == "ok", out
    if drop != "none" and os.geteuid() == 0:
        assert out["uid"] == 65534


def test_side_stream_work_is_caught_by_fingerprint():
    import torch

    from leap.sandbox.worker import detectors as D

    class SideStream(torch.nn.Module):
        def forward(self, a, b):
            out = torch.empty(a.shape[0], b.shape[1], device=a.device)
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(8):
                    torch.matmul(a, b, out=out)
            return out

    a = torch.randn(8192, 8192, device="cuda")
    b = torch.randn(8192, 8192, device="cuda")
    _, probs = D.guarded_call(SideStream(), [a, b], "cuda")
    assert any("after forward returned" in p for p in probs), probs

    class Clean(torch.nn.Module):
        def forward(self, a, b):
            return torch.matmul(a, b)

    # the checks run here in pytest's process, where earlier tests may have left children (a sandbox's
    # forkserver, torch.compile's workers); in a sandbox child any child process is the candidate's
    before = D.child_processes()
    _, probs = D.guarded_call(Clean(), [a, b], "cuda")
    assert probs == ([f"child process(es) alive after forward: {before[:5]}"] if before else []), probs
