"""Run-time detectors: output type/storage, threads/processes, monkey-patches, input rotation."""

from __future__ import annotations

import json
import os
import sys
import threading
import time

import pytest
import torch

from leap.sandbox.worker import detectors as D


class Relu(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def problems_in_process(fn, *inputs) -> list[str]:
    _, probs = D.guarded_call(Fn(fn), list(inputs))
    return probs


def problems_of(fn, *inputs) -> list[str]:
    """guarded_call in a forked child, like the harness: it starts with no child processes of its own, while
    this pytest process may still hold sandbox pools (forkservers) that earlier tests left warm."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the forked child
        try:
            os.close(r)
            _, probs = D.guarded_call(Fn(fn), list(inputs))
            os.write(w, json.dumps(probs).encode())
        except BaseException as exc:  # noqa: BLE001 - report anything to the parent
            os.write(w, json.dumps([f"error in forked child: {exc!r}"]).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def test_clean_outputs_pass():
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    assert problems_of(lambda a: torch.relu(a), x) == []
    assert problems_of(lambda a, b: (a + b, (a * b).view(8, 4)), x, y) == []
    assert problems_of(lambda a: torch.empty(0), x) == []
    assert problems_of(lambda a: a.sum(), x) == []  # 0-d output
    assert problems_of(lambda a: torch.randn(8, 4).t(), x) == []  # a transposed view is dense


@pytest.mark.parametrize("fn,needle", [
    (lambda a: a.mean(1, keepdim=True).expand(4, 8), "stride-0"),
    (lambda a: torch.empty(16).as_strided((4, 8), (2, 1)), "overlapping"),
    (lambda a: a, "shares memory with an input"),
    (lambda a: a[1:].view(-1), "shares memory with an input"),
    (lambda a: (lambda t: (t, t[:2]))(torch.relu(a)), "shares memory with output[0]"),
])
def test_bad_outputs_flagged(fn, needle):
    probs = problems_of(fn, torch.randn(4, 8))
    assert any(needle in p for p in probs), probs


def test_tensor_subclass_flagged():
    class Sub(torch.Tensor):
        pass

    probs = problems_of(lambda a: torch.relu(a).as_subclass(Sub), torch.randn(4, 8))
    assert any("subclass Sub" in p for p in probs)


def test_outputs_the_harness_would_run_code_of_are_refused_before_it_touches_them():
    """A tensor with an attribute of its own shadows a method the harness calls once the backstop is off
    (``out.detach()`` computed the answer unwatched, red-team pass 2026-12-05); an object of the candidate's
    class would run its own pickling. Both are problems, the output is dropped, and inputs lose such
    attributes."""
    x = torch.randn(4, 8)
    ran = []
    shadowed = torch.zeros(4, 8)
    shadowed.detach = lambda: ran.append(1) or torch.relu(x)

    class Box:
        def __reduce_ex__(self, proto):
            ran.append(2)
            return (torch.relu, (x,))

    for out, needle in ((shadowed, "attributes of its own (detach"), ([torch.ones(1), (Box(),)], "a Box")):
        kept, probs = D.plain_output(out, [x])
        assert kept is None and any(needle in p for p in probs), probs
    assert ran == []
    x.clone = lambda: x
    assert D.plain_inputs([x, 3]) and "clone" not in vars(x)
    fine = (torch.ones(2), [torch.zeros(1), 1.5, None])
    assert D.plain_output(fine, [x]) == (fine, [])


def test_background_thread_and_child_process_flagged():
    stop = threading.Event()

    def spawn_thread(a):
        threading.Thread(target=stop.wait, daemon=True).start()
        return torch.relu(a)

    try:
        assert any("thread" in p for p in problems_in_process(spawn_thread, torch.randn(3)))
    finally:
        stop.set()
    pids = []

    def spawn_proc(a):
        pid = os.fork()
        if pid == 0:
            time.sleep(2)
            os._exit(0)
        pids.append(pid)
        return torch.relu(a)

    try:
        assert any("child process" in p for p in problems_in_process(spawn_proc, torch.randn(3)))
    finally:
        for pid in pids:
            os.kill(pid, 9)
            os.waitpid(pid, 0)


def test_monkey_patches_detected_and_harness_registered(monkeypatch):
    assert D.integrity_problems() == []
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)
    monkeypatch.setattr(torch, "allclose", lambda *a, **k: True)
    monkeypatch.setattr(torch.backends.cudnn, "benchmark", not torch.backends.cudnn.benchmark)
    probs = D.integrity_problems()
    assert "monkey-patched: time.perf_counter" in probs and "monkey-patched: torch.allclose" in probs
    assert any("cudnn.benchmark" in p for p in probs)
    monkeypatch.undo()
    assert D.integrity_problems() == []

    import types
    harness = types.ModuleType("leap_test_fake_harness")
    harness.compare = lambda a, b: a == b
    import sys
    sys.modules[harness.__name__] = harness
    try:
        D.register_harness(harness)
        harness.compare = lambda a, b: True
        assert "monkey-patched: leap_test_fake_harness.compare" in D.integrity_problems()
    finally:
        D._HARNESS.clear()
        del sys.modules[harness.__name__]


def test_fingerprint_and_rotation():
    a = torch.arange(12.0).view(3, 4)
    assert D.same_snapshot(D.snapshot(a), D.snapshot(a.clone()))
    # a large output is copied in chunks at the seed's positions: bounded host memory, a change still seen
    big = torch.zeros(D.SNAPSHOT_FULL_BYTES // 4 * 3, dtype=torch.float32)
    snap = D.snapshot(big, seed=7)
    assert snap[0][1].numel() == D.SNAPSHOT_CHUNKS * D.SNAPSHOT_CHUNK
    assert D.same_snapshot(snap, D.snapshot(big.clone(), seed=7))
    changed = big.clone()
    changed[-1] = 1.0  # the last chunk is always in the sample
    assert not D.same_snapshot(snap, D.snapshot(changed, seed=7))
    mostly = big.clone()
    mostly[big.numel() // 8: big.numel() * 7 // 8] = 1.0  # unfinished work in the middle of the output
    assert not D.same_snapshot(snap, D.snapshot(mostly, seed=7))
    assert not D.same_snapshot(D.snapshot(a), D.snapshot(a + 1))
    assert not D.same_snapshot(D.snapshot((a, [a])), D.snapshot(a))
    assert not D.same_snapshot(D.snapshot(a), D.snapshot(a.to(torch.float64)))
    rot = D.InputRotation()
    first = rot.bind([torch.randn(3, 4), 2])
    ptr = first[0].data_ptr()
    fresh = torch.randn(3, 4)
    second = rot.bind([fresh, 2])
    assert second[0].data_ptr() == ptr and torch.equal(second[0], fresh)
    # a pointer-keyed cache is now stale: same pointer, new values
    cache: dict[int, torch.Tensor] = {}

    def cached(x):
        return cache.setdefault(x.data_ptr(), torch.relu(x).clone())

    out1 = cached(rot.bind([torch.randn(3, 4), 2])[0])
    inputs = rot.bind([torch.randn(3, 4), 2])
    assert torch.equal(cached(inputs[0]), out1) and not torch.equal(out1, torch.relu(inputs[0]))
    third = rot.bind([torch.randn(5), 2])  # another shape: new buffers
    assert third[0].shape == (5,)


def test_lazy_torch_imports_by_judge_code_are_not_monkey_patches():
    """torch._dynamo re-wraps torch.manual_seed on import; a GPU launch may import it lazily after the
    baseline was taken, which once rejected every correct Triton kernel on the H200."""
    import subprocess
    import sys

    code = ("from leap.sandbox.worker import detectors as d\nimport torch._dynamo, torch.profiler\n"
            "print(d.integrity_problems())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def test_init_watch_notes_init_only_functions_started_during_forward(tmp_path):
    """Code the gate analysed as init code (numpy may compute there) reached from forward by a route it did
    not see (``print(file=self)`` runs ``write``) is noted, wherever it was called from; nothing else is."""
    from leap.sandbox.gate.static_gate import check_source

    src = (
        "import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n"
        "class Sink:\n"
        "    def __init__(self):\n"
        "        self.write('')\n\n"
        "    def write(self, s):\n"
        "        return s\n\n\n"
        "class ModelNew(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.sink = Sink()\n\n"
        "    def forward(self, x):\n"
        "        print('x', file=self.sink)\n"
        "        out = torch.empty_like(x)\n"
        "        copy_kernel[(1,)](x, out)\n"
        "        return out\n\n\n"
        "@triton.jit\n"
        "def copy_kernel(x_ptr, o_ptr):\n"
        "    tl.store(o_ptr, tl.load(x_ptr))\n"
    )
    g = check_source(src)
    assert g.ok, g.reason
    code = g.init_code
    before = sys.gettrace()
    assert (9, "Sink.write") in code and not any(line == 18 for line, _ in code)  # forward is not init code
    path = tmp_path / "candidate.py"
    path.write_text(src)
    ns: dict = {}
    exec(compile(src, str(path), "exec"), ns)
    model = ns["ModelNew"]()
    x = torch.ones(3)
    _, problems = D.guarded_call(model, [x], "cpu", False, D.InitWatch(str(path), code))
    assert any("init code ran during forward: Sink.write (line 9)" in p for p in problems), problems
    _, problems = D.guarded_call(model, [x], "cpu", False, D.InitWatch(str(path), [(9, "Sink.other")]))  # another name
    assert not any("init code" in p for p in problems), problems
    assert sys.gettrace() is before  # the watch is off again after the call
    # the init code runs, then fails (on a GPU: a CUDA tensor handed to numpy): noted, not a runtime error
    failing = src.replace("        return s\n", "        return s if s == '' else s.missing\n")
    path.write_text(failing)
    exec(compile(failing, str(path), "exec"), ns)
    model = ns["ModelNew"]()
    out, problems = D.guarded_call(model, [x], "cpu", False, D.InitWatch(str(path), code))
    assert out is None and any("Sink.write" in p for p in problems), problems
    with pytest.raises(AttributeError):  # without init code in the way, the failure is the candidate's error
        D.guarded_call(model, [x], "cpu", False, D.InitWatch(str(path), [(9, "Sink.other")]))


def test_after_timing_a_forward_must_follow_new_values_in_its_buffers():
    """A forward correct on the trials that goes stale once timing starts (call counting, a pointer cache)
    fails when another trial's values are copied into the timed call's buffers; an honest one, and one whose
    sums reorder (float atomics), passes."""
    x0, x1 = torch.randn(64, 33), torch.randn(64, 33)
    expected = D.value_sample(torch.relu(x1), seed=3)

    class Honest(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x) * (1 + 1e-6 * torch.rand(()))  # last bits vary from call to call

    class Stale(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.calls, self.last = 0, None

        def forward(self, x):
            self.calls += 1
            if self.calls > 8 and self.last is not None:
                return self.last
            self.last = torch.relu(x)
            return self.last

    stale = Stale()
    for _ in range(40):  # the trials and the timed calls, on trial 0's buffers
        stale(x0)
    assert D.follows_new_values(Honest(), [x0.clone()], [x1], expected, seed=3, device="cpu") is True
    assert D.follows_new_values(stale, [x0.clone()], [x1], expected, seed=3, device="cpu") is False
    assert D.follows_new_values(Honest(), [torch.randn(5)], [x1], expected, seed=3, device="cpu") is None
    assert D.follows_new_values(Honest(), [x0.clone(), 2], [x1, 3], expected, seed=3, device="cpu") is None
    big = torch.randn(D.SAMPLE_FULL + 5)
    assert D.close_samples(D.value_sample(big, 1), D.value_sample(big.clone(), 1))
    assert not D.close_samples(D.value_sample(big, 1), D.value_sample(-big, 1))
    assert 31 * D.SAMPLE_CHUNK < D.value_sample(big, 1)[0].numel() <= 32 * D.SAMPLE_CHUNK  # bounded



def test_trace_and_profile_functions_the_solution_installed_are_removed_and_reported():
    """A hook set at import or in forward would run in the harness after the backstop is off (round 27)."""
    def hook(frame, event, arg):
        return None

    x = torch.randn(8)
    try:
        sys.settrace(hook)  # as if set at import
        _, problems = D.guarded_call(Relu(), [x])
        assert sys.gettrace() is None and any("trace or profile function" in p for p in problems)

        def sets_one(t):
            sys.settrace(hook)
            return torch.relu(t)

        _, problems = D.guarded_call(Fn(sets_one), [x])  # set during forward
        assert sys.gettrace() is None and any("trace or profile function" in p for p in problems)
        _, problems = D.guarded_call(Relu(), [x])
        assert not any("trace or profile" in p for p in problems)
        sys.setprofile(hook)  # the child's check before its trials also looks at the profile function
        assert D.dropped_hooks() == [] and sys.getprofile() is hook
        assert D.dropped_hooks(profile=True) and sys.getprofile() is None
    finally:
        sys.settrace(None)
        sys.setprofile(None)
