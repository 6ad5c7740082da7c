"""`leap.trainer.distributed.Dist` with two real processes (gloo on the CPU, as `accelerate launch --cpu`
sets them up): the collectives the training loop relies on give the same answer on both ranks."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap

WORKER = textwrap.dedent("""
    import json, sys
    import torch
    from leap.trainer.distributed import Dist

    d = Dist("cpu")
    w = torch.nn.Parameter(torch.zeros(3))
    v = torch.nn.Parameter(torch.zeros(2))
    w.grad = torch.full((3,), float(d.rank + 1))  # rank 0: 1s, rank 1: 2s
    if d.rank == 1:
        v.grad = torch.full((2,), 4.0)  # rank 0 has no gradient for v (counts as zeros)
    d.average_gradients([w, v])
    out = {"rank": d.rank, "world": d.world, "is_main": d.is_main, "max": d.max_int(10 * d.rank + 3, torch.device("cpu")),
           "any": d.any(d.rank == 1, torch.device("cpu")), "none": d.any(False, torch.device("cpu")),
           "w": w.grad.tolist(), "v": v.grad.tolist()}
    d.barrier()
    print("RESULT " + json.dumps(out), flush=True)
    # gloo's threads can abort the interpreter's teardown ("terminate called without an active exception",
    # SIGABRT after the result): take the group down, then leave without running destructors
    import os
    import torch.distributed as dist
    if dist.is_initialized():
        dist.destroy_process_group()
    sys.stderr.flush()
    os._exit(0)
""")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_ranks_agree_on_collectives(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    port = _free_port()
    procs = []
    for rank in (0, 1):
        env = {**os.environ, "WORLD_SIZE": "2", "RANK": str(rank), "LOCAL_RANK": str(rank),
               "LOCAL_WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}
        procs.append(subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-3000:]
        results.append(json.loads(next(ln for ln in out.splitlines() if ln.startswith("RESULT "))[7:]))
    by_rank = {r["rank"]: r for r in results}
    assert set(by_rank) == {0, 1} and all(r["world"] == 2 for r in results)
    assert by_rank[0]["is_main"] and not by_rank[1]["is_main"]
    for r in results:
        assert r["max"] == 13 and r["any"] is True and r["none"] is False
        assert r["w"] == [1.5, 1.5, 1.5] and r["v"] == [2.0, 2.0]
