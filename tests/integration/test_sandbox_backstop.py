"""The run-time compute backstop (issue 12): independent of the static gate (switched off here), the child
records PyTorch compute ops during forward; harness state the candidate can reach does not switch any
check off."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox_cases import kernels as K

from leap.sandbox import Sandbox, SandboxConfig
from leap.tasks.suite import get_builtin

LAUNCH = "y = torch.empty_like(x)\n        relu_kernel[(1,)](x, y, 0, BLOCK=1024)\n        "
COMPUTES = {
    "direct": K.RELU.replace("y = torch.empty_like(x)", "return torch.relu(x)"),
    "submodule": K.RELU.replace("y = torch.empty_like(x)", "return nn.ReLU()(x)"),
    "copy_of_compute": K.RELU.replace("y = torch.empty_like(x)", LAUNCH + "y.copy_(x.clamp(min=0))\n        return y"),
    "getattr_chain": K.RELU.replace("y = torch.empty_like(x)",
                                    "f = getattr(type(x), ''.join(['cl', 'amp']))\n        return f(x, min=0)"),
}
# copies that convert dtypes compute (truncation, sign extension, rounding and overflow to inf: relu was built
# from such copies and dtype views alone), handed to the kernel: refused whatever the comparison would say
CONVERSIONS = {
    name: K.RELU.replace("y = torch.empty_like(x)", f"q = torch.empty(x.shape, dtype={dt})\n        q.copy_({src})\n"
                         "        r = torch.empty_like(x)\n        r.copy_(q)\n        y = torch.empty_like(x)"
                         ).replace("(x, y, n, BLOCK=1024)", "(r, y, n, BLOCK=1024)")
    for name, dt, src in [("float_to_int", "torch.int32", "x"), ("float_to_float", "torch.float64", "x"),
                          ("int_to_int", "torch.int64", "x.view(torch.int32)")]}
# the judge's trial input files are read and unlinked before the candidate is imported: its __init__ finds
# the input folder (its working directory's "in") without a file in it
TRIAL_FILES_AT_INIT = K.RELU.replace("        super().__init__()\n", """        super().__init__()
        import os
        left = os.listdir("in")
        if left:
            raise RuntimeError("trial input files readable at init: " + ", ".join(sorted(left)))
""")
CORPUS = Path(__file__).resolve().parents[1] / "corpus"
SAME_DTYPE_COPY = K.RELU.replace(
    "y = torch.empty_like(x)", "w = torch.empty(x.shape, dtype=x.dtype)\n        w.copy_(x)\n        y = torch.empty_like(w)")
POPS_THE_MODE = K.RELU.replace(
    "y = torch.empty_like(x)",
    "from torch.utils import _python_dispatch as P\n        with P._disable_current_modes():\n"
    "            return torch.relu(x)")
# output allocated while the mode sees it, the answer computed with the Python dispatch key switched off,
# then a Triton kernel (here the relu kernel itself, as a copy: max(r, 0) == r) writes it into the output
SWITCH_OFF_THEN_COPY = {
    name: K.RELU.replace("y = torch.empty_like(x)", "y = torch.empty_like(x)\n        with " + ctx +
                         ":\n            r = x.clamp(min=0)").replace("(x, y, n, BLOCK=1024)", "(r, y, n, BLOCK=1024)")
    for name, ctx in {"disable_torch_dispatch": "torch._C._DisableTorchDispatch()",
                      "disable_current_modes": "torch.utils._python_dispatch._disable_current_modes()"}.items()}
# numpy writes the answer into an output PyTorch allocated; the kernel launch sits in a branch that never runs
NO_LAUNCH = K.RELU.replace(
    "        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)\n",
    "        if n < 0:\n            relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)\n"
    "        import numpy as np\n        np.maximum(x.numpy(), 0, out=y.numpy())\n")
# the answer computed on the host from values read out of the input (numpy, a list, scalars, raw bytes), then
# copied into the output by the relu kernel itself (max(r, 0) == r): the dispatch mode sees no compute op
HOST_READS = {
    name: K.RELU.replace("y = torch.empty_like(x)", "import numpy as np\n        y = torch.empty_like(x)\n        r = "
                         + expr).replace("(x, y, n, BLOCK=1024)", "(r, y, n, BLOCK=1024)")
    for name, expr in {
        "numpy": "torch.from_numpy(np.maximum(x.numpy(), 0))",
        "c_method": "torch.from_numpy(np.maximum(super(torch.Tensor, x).numpy(), 0))",  # past the wrapper
        "apply": "x.clone().apply_(lambda v: max(v, 0.0))",  # a Python callable per element, no aten op
        "grid_function_tolist": "torch.empty_like(x)\n        vals = []\n"
                                "        relu_kernel[lambda m: (vals.extend(x.reshape(-1).tolist()) or 1,)](x, r, 0, BLOCK=1024)\n"
                                "        r = torch.tensor([max(v, 0.0) for v in vals]).reshape(x.shape)",
        "c_tolist": "torch.tensor([max(v, 0.0) for v in super(torch.Tensor, x.reshape(-1)).tolist()]).reshape(x.shape)",
        "array_protocol": "torch.from_numpy(np.maximum(np.asarray(x), 0))",
        "dlpack": "torch.from_numpy(np.maximum(np.from_dlpack(x), 0))",
        "tolist": "torch.tensor([max(v, 0.0) for v in x.reshape(-1).tolist()]).reshape(x.shape)",
        "scalar_loop": "torch.tensor([max(float(v), 0.0) for v in x.reshape(-1)]).reshape(x.shape)",
        "storage_bytes": "torch.from_numpy(np.maximum(np.frombuffer(bytes(x.untyped_storage()), "
                         "dtype=np.float32).reshape(x.shape), 0).copy())",
    }.items()}
# a few scalars read in forward (a flag, a size) are not host compute
FEW_SCALARS = K.RELU.replace("n = x.numel()", "n = x.numel() + int(torch.zeros(()).item()) + len(x[:3, 0].tolist()) - 3")
GLOBAL_SWITCH = K.RELU.replace(
    "y = torch.empty_like(x)",
    "import sys, threading, time\n        sys.modules['leap.sandbox.worker.child']._D = None\n"
    "        threading.Thread(target=time.sleep, args=(20,), daemon=True).start()\n        y = torch.empty_like(x)")
# the output writer rebound (it could write what it likes) and the integrity check silenced
HARNESS_REBIND = K.RELU.replace(
    "y = torch.empty_like(x)",
    "import sys\n        c = sys.modules['leap.sandbox.worker.child']\n        real = c._save\n"
    "        c._save = lambda obj, path: real(obj, path)\n"
    "        sys.modules['leap.sandbox.worker.detectors'].integrity_problems = lambda: []\n"
    "        y = torch.empty_like(x)")
# a wrong kernel that answers for the harness: "the harness failed" (a judge-side fault, never the
# candidate's) through the child's own pipe, found by walking frames, then exits
FORGED_HARNESS_FAULT = K.RELU.replace("tl.maximum(x, 0.0)", "x * 0.0").replace(
    "y = torch.empty_like(x)",
    "import json, os, sys\n        f = sys._getframe()\n        while f is not None and 'conn' not in f.f_locals:\n"
    "            f = f.f_back\n        f.f_locals['conn'].send_bytes(json.dumps({'type': 'result', 'ok': False, "
    "'stage': 'harness', 'error': {'kind': 'OSError', 'message': 'disk', 'traceback': ''}}).encode())\n"
    "        os._exit(0)\n        y = torch.empty_like(x)")
# a wrong kernel that answers with a malformed result (stages as a list) through its pipe: the judge's
# reading of it would fail, which must not turn into the neutral sandbox_error
FORGED_MALFORMED = FORGED_HARNESS_FAULT.replace("'stage': 'harness', ", "'stages': [0], ")
FRAME_WALK = K.RELU_READS_UNINIT.replace(
    "    def forward(self, x):\n",
    "    def forward(self, x):\n        import sys\n        f = sys._getframe()\n        while f is not None:\n"
    "            job = f.f_locals.get('job')\n            if isinstance(job, dict):\n"
    "                job['poison_rechecks'] = 0\n                job['child_checks'] = False\n"
    "            f = f.f_back\n", 1)

# the guard reached through frames (the harness's `run_job` locals), switched off while PyTorch writes the
# answer into the output, switched on again; the output is then re-registered by a view made while armed
DISARM_THROUGH_FRAMES = K.RELU.replace(
    "y = torch.empty_like(x)",
    "import sys\n        f = sys._getframe()\n        while f is not None and f.f_code.co_name != 'run_job':\n"
    "            f = f.f_back\n        g = f.f_locals['guard']\n        y = torch.empty_like(x)\n"
    "        g.disarm()\n        y.copy_(x.clamp(min=0))\n        g.arm()\n        y = y.view(y.shape)\n"
    "        if x.numel() < 0:\n            relu_kernel[(1,)](x, y, 0, BLOCK=1024)\n        return y\n"
    "        y = torch.empty_like(x)")

# after one launch, Triton's CPU interpreter copies its module globals (inspect, np, ...) into the kernel's
# module where a name is missing; a candidate reading `inspect` it never imported would reach the harness
INTERPRETER_GLOBALS = K.RELU.replace(
    "        return y", "        return y if inspect.stack is None else y  # noqa: F821")
# a host object handed to a kernel: the interpreter runs the body as Python, which calls the object's method
HOST_OBJECT_ARGUMENT = K.RELU.replace("(x, y, n, BLOCK=1024)", "(x, y, n, BLOCK=1024, HOST=self)").replace(
    "BLOCK: tl.constexpr):", "BLOCK: tl.constexpr, HOST=None):")


@pytest.fixture(scope="module")
def sb():
    with Sandbox(SandboxConfig(workers=2, prewarm=1, static_gate=False), device="cpu") as box:
        yield box


@pytest.fixture(scope="module")
def relu():
    return get_builtin("relu_fp32")


def test_legit_triton_kernel_passes_the_backstop(sb, relu):
    v = sb.verify(relu, K.RELU)
    assert v.status == "ok", (v.feedback, v.detail)


@pytest.mark.parametrize("name", sorted(COMPUTES))
def test_pytorch_compute_in_forward_is_rejected_at_run_time(sb, relu, name):
    v = sb.verify(relu, COMPUTES[name])
    assert v.status == "rejected", (v.status, v.feedback, v.detail)
    assert "PyTorch computed" in v.feedback and "PyTorch compute ran in forward" in v.detail


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_copies_that_convert_dtypes_are_compute(sb, relu, name):
    v = sb.verify(relu, CONVERSIONS[name])
    assert v.status == "rejected" and "a dtype conversion" in v.detail, (v.status, v.detail)


def test_the_trial_input_files_are_gone_before_the_candidate_runs(sb, relu):
    v = sb.verify(relu, TRIAL_FILES_AT_INIT)
    assert v.status == "ok", (v.status, v.feedback, v.detail)


def test_bit_views_and_integer_gemms_of_an_allowed_op_are_compute(sb):
    """relu from a bf16->int16 view, an int32 mm's wraparound and int16 addmm/bmm (the task allows F.linear)."""
    src = (CORPUS / "hacks" / "allowed_linear_bitview_int_gemm.py").read_text()
    v = sb.verify(get_builtin("gemm_relu_bf16"), src)
    assert v.status == "rejected", (v.status, v.feedback, v.detail)
    assert "view (to another dtype)" in v.detail and "(on integer tensors)" in v.detail, v.detail


def test_a_copy_within_a_dtype_moves_data(sb, relu):
    v = sb.verify(relu, SAME_DTYPE_COPY)
    assert v.status == "ok", (v.status, v.feedback, v.detail)


def test_switching_the_backstop_off_during_forward_is_rejected(sb, relu):
    v = sb.verify(relu, POPS_THE_MODE)
    assert v.status == "rejected" and "not produced by any op the run-time backstop saw" in v.detail, v.detail


@pytest.mark.parametrize("name", sorted(SWITCH_OFF_THEN_COPY))
def test_compute_with_the_mode_switched_off_then_copied_by_a_kernel_is_rejected(sb, relu, name):
    v = sb.verify(relu, SWITCH_OFF_THEN_COPY[name])
    assert v.status == "rejected" and "switched off during forward" in v.detail, (v.status, v.detail)


def test_a_triton_candidate_that_launches_no_kernel_is_rejected(sb, relu):
    assert "np.maximum" in NO_LAUNCH
    v = sb.verify(relu, NO_LAUNCH, backend="triton")
    assert v.status == "rejected" and "no Triton kernel ran" in v.detail, (v.status, v.detail)


@pytest.mark.parametrize("name", sorted(HOST_READS))
def test_values_read_out_to_the_host_are_compute(sb, relu, name):
    v = sb.verify(relu, HOST_READS[name])
    assert v.status == "rejected" and "read" in v.detail and "host" in v.detail, (v.status, v.detail)
    assert "numpy or Python" in v.feedback, v.feedback


def test_a_few_scalar_reads_pass(sb, relu):
    v = sb.verify(relu, FEW_SCALARS)
    assert v.status == "ok", (v.status, v.feedback, v.detail)


def test_module_global_does_not_switch_the_detectors_off(sb, relu):
    v = sb.verify(relu, GLOBAL_SWITCH)
    assert v.status == "rejected" and "thread" in v.detail, (v.status, v.detail)


def test_rebinding_the_output_writer_is_seen_even_with_the_check_rebound(sb, relu):
    v = sb.verify(relu, HARNESS_REBIND)
    assert v.status == "rejected" and "monkey-patched" in v.detail and "_save" in v.detail, (v.status, v.detail)


def test_a_harness_fault_claimed_after_the_candidate_started_is_the_candidates(sb, relu):
    v = sb.verify(relu, FORGED_HARNESS_FAULT)
    assert v.status == "runtime_error", (v.status, v.feedback, v.detail)


def test_a_malformed_answer_after_the_candidate_started_is_the_candidates(sb, relu):
    assert "'stages': [0]" in FORGED_MALFORMED
    v = sb.verify(relu, FORGED_MALFORMED)
    assert v.status == "runtime_error" and "malformed result" in v.feedback, (v.status, v.feedback, v.detail)


def test_the_backstop_switched_off_and_on_through_the_harness_frames_is_seen(sb, relu):
    v = sb.verify(relu, DISARM_THROUGH_FRAMES)
    assert v.status == "rejected" and "switched off and on by the candidate" in v.detail, (v.status, v.detail)


def test_interpreter_globals_never_reach_the_candidates_module(sb, relu):
    assert "return y if inspect.stack" in INTERPRETER_GLOBALS
    v = sb.verify(relu, INTERPRETER_GLOBALS)
    assert v.status == "runtime_error" and "NoneType" in (v.feedback + v.detail), (v.status, v.feedback, v.detail)


def test_a_python_object_launched_as_a_kernel_argument_is_rejected(sb, relu):
    assert "HOST=self" in HOST_OBJECT_ARGUMENT
    v = sb.verify(relu, HOST_OBJECT_ARGUMENT)  # refused by the front-end check (it cannot type it) or the backstop
    assert v.status in ("rejected", "compile_error") and "ModelNew" in v.detail + v.feedback, (v.status, v.detail)
    assert ("a kernel was launched with a" in v.detail) or ("could not be typed" in v.detail + v.feedback)


def test_job_settings_reached_through_frames_change_nothing(sb, relu):
    v = sb.verify(relu, FRAME_WALK)
    assert v.status == "incorrect", (v.status, v.feedback, v.detail)


def test_kernelbench_rules_allow_partial_pytorch_once_a_kernel_ran(relu):
    with Sandbox(SandboxConfig(workers=1, prewarm=0, static_gate=False, rules="kernelbench"), device="cpu") as box:
        assert box.verify(relu, COMPUTES["copy_of_compute"]).status == "ok"
        assert box.verify(relu, COMPUTES["direct"]).status == "rejected"  # no custom kernel at all


RT23 = Path(__file__).parents[1] / "corpus" / "hacks"
UNSEEN_ROUTES = {  # red-team pass 2026-12-05 (23a): paid with the gate off
    "output_method_shadowed": ("rt23_relu_init_partial_torch_detach.py", "attributes of its own (detach"),
    "thread_joined_in_forward": ("rt23_thread_compute_joined.py", "started a thread or process"),
    "thread_started_at_import": ("rt23_thread_started_at_import.py", "started a thread or process"),
    "int_subclass_argument": ("rt23_int_subclass_kernel_arg_duck_tensor.py", "a kernel was launched with a"),
}


@pytest.mark.parametrize("name", sorted(UNSEEN_ROUTES))
def test_compute_by_routes_out_of_the_dispatch_modes_sight_is_rejected(sb, relu, name):
    """The answer computed where the recording mode cannot see it: by a method the harness calls after the
    backstop is off (an attribute of the output's own shadowing ``detach``), in a thread started and
    joined inside forward, or by an ``int`` subclass's methods inside the interpreter's launch."""
    file, needle = UNSEEN_ROUTES[name]
    v = sb.verify(relu, (RT23 / file).read_text())
    assert v.status == "rejected" and needle in v.detail, (v.status, v.detail)
