"""The static gate against the third red-team pass (2026-12-03): names the file never binds (Triton's CPU
interpreter copies its own module globals, ``inspect`` and ``np`` among them, into the candidate's module on
the first launch), and kernel bodies that call or query their local values as Python objects (a host
function or an object of lost kind handed in, the interpreter's ``.handle.data`` buffers). Legitimate
shapes of the same constructs pass."""

from __future__ import annotations

import pytest
from test_static_gate import LAUNCH, assert_ok, assert_rejected, triton_src

KERNEL = "@triton.jit\ndef k_body(x_ptr, out_ptr, h, n, BLOCK: tl.constexpr):\n{body}\n"
BODY_HEAD = ("    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    mask = offs < n\n"
             "    v = tl.load(x_ptr + offs, mask=mask, other=0.0)\n")
BODY_TAIL = "    tl.store(out_ptr + offs, v, mask=mask)"
CALL_BODY = "out = torch.empty_like(x)\nn = x.numel()\nk_body[(triton.cdiv(n, 256),)](x, out, {arg}, n, BLOCK=256)\nreturn out"

UNBOUND = {  # forward body, module-level extra, rule
    "global_after_launch": (LAUNCH + "f = inspect.stack\nfr = f(0)\nreturn out", ""),
    "numpy_never_imported": (LAUNCH + "g = np.maximum\nreturn out", ""),
    "local_elsewhere_only": (LAUNCH + "g = inspect.stack\nreturn out", "def other():\n    inspect = 1\n    return inspect\n"),
    "class_body_name_in_method": (LAUNCH + "return self.helper(out)",
                                  "class Base:\n    tool = 1\n    def helper(self, o):\n        return tool and o\n"),
    "comprehension": (LAUNCH + "v = [time for _ in range(2)]\nreturn out", ""),
}


@pytest.mark.parametrize("name", sorted(UNBOUND))
def test_names_the_file_never_binds_are_rejected(name):
    fwd, extra = UNBOUND[name]
    g = assert_rejected(triton_src(fwd, extra=extra), "unbound_name")
    assert "never defined or imported" in g.detail


BOUND = {
    "global_declared_and_assigned": (LAUNCH + "setup()\nreturn out",
                                     "def setup():\n    global CACHE\n    CACHE = 4\n\ndef use():\n    return CACHE\n"),
    "builtins_and_dunders": (LAUNCH + "assert isinstance(n, int), __name__\nreturn out", ""),
    "comprehension_and_walrus": (LAUNCH + "sizes = [d for d in x.shape]\nif (m := len(sizes)) > 5:\n    pass\nreturn out", ""),
    "module_level_loop_variable": (LAUNCH + "return out", "for _B in (64, 128):\n    LAST = _B\n"),
}


@pytest.mark.parametrize("name", sorted(BOUND))
def test_names_bound_anywhere_python_finds_them_pass(name):
    fwd, extra = BOUND[name]
    assert_ok(triton_src(fwd, extra=extra))


BODIES = {  # kernel body lines between the head and the tail, the argument h gets
    "local_copy_of_host_function": ("    fn = h\n    fn(v, 0.0, v)\n", "np.maximum if n > 0 else x"),
    "interpreter_buffer": ("    buf = v.handle.data\n", "1.0"),
    "method_of_object_through_local": ("    o = h\n    o.act(v)\n", "self if n > 0 else x"),
    "subscript_call": ("    hs = (h, h)\n    hs[0](v)\n", "np.maximum if n > 0 else x"),
    "frame_attributes": ("    fl = h\n    w = fl[0].frame\n", "1.0"),
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_kernel_bodies_use_their_values_only_as_triton_values(name):
    lines, arg = BODIES[name]
    extra = "\nimport numpy as np\n" + KERNEL.format(body=BODY_HEAD + lines + BODY_TAIL)
    assert_rejected(triton_src(CALL_BODY.format(arg=arg), extra=extra), "jit_body")


def test_triton_values_keep_their_methods_and_dtype_queries():
    lines = ("    w = v.to(tl.float32)\n    s = tl.sum(w, axis=0) + w.sum(axis=0)\n"
             "    if w.dtype.is_fp16():\n        w = w.exp() * 0.0\n"
             "    r = tl.where(w > 0, w, 0.0).reshape(BLOCK)\n    v = (r + s * 0.0).to(x_ptr.dtype.element_ty)\n"
             "    sq = lambda a: a * a\n    v = v + sq(v) * 0.0\n")
    extra = KERNEL.format(body=BODY_HEAD + lines + BODY_TAIL)
    assert_ok(triton_src(CALL_BODY.format(arg="1.0"), extra=extra))


TABLE_KERNEL = ("@triton.jit\ndef k_t(x_ptr, t_ptr, out_ptr, n, S: tl.constexpr, BLOCK: tl.constexpr):\n"
                "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    mask = offs < n\n{body}\n")
TABLE_CALL = ("out = torch.empty_like(x)\nn = x.numel()\n"
              "k_t[(triton.cdiv(n, 256),)](x, self.t, out, n, S=64, BLOCK=256)\nreturn out")
LOOKUPS = {  # kernel body lines: each gathers by the input's value
    "bitcast_method": "    b = tl.load(x_ptr + offs, mask=mask).to(tl.int16, bitcast=True)\n"
                      "    tl.store(out_ptr + offs, tl.load(t_ptr + (b.to(tl.int32) & 0xFFFF)), mask=mask)",
    "bitcast_cast": "    v = tl.load(x_ptr + offs, mask=mask)\n    k = tl.cast(v, tl.int32, bitcast=True) >> 12\n"
                    "    tl.store(out_ptr + offs, tl.load(t_ptr + k), mask=mask)",
    "rounded_grid": "    v = tl.load(x_ptr + offs, mask=mask)\n    pos = (v + 8.0) * 4096\n    cell = pos.to(tl.int32)\n"
                    "    tl.store(out_ptr + offs, tl.load(t_ptr + cell), mask=mask)",
    "divided_inline": "    v = tl.load(x_ptr + offs, mask=mask)\n"
                      "    tl.store(out_ptr + offs, tl.load(t_ptr + (v / S).to(tl.int64)), mask=mask)",
    "atomic_histogram_of_values": "    v = tl.load(x_ptr + offs, mask=mask)\n    k = tl.floor(v * S).to(tl.int32)\n"
                                  "    tl.atomic_add(out_ptr + k, 1.0, mask=mask)",
}


@pytest.mark.parametrize("name", sorted(LOOKUPS))
def test_kernels_indexing_tables_by_input_values_are_rejected(name):
    extra = TABLE_KERNEL.format(body=LOOKUPS[name])
    g = assert_rejected(triton_src(TABLE_CALL, extra=extra, init="self.t = torch.zeros(65536)"), "table_lookup")
    assert "lookup table" in g.detail


GATHERS = {  # data-dependent addresses that are not lookups of the answer
    "loaded_index_widened": "    i = tl.load(x_ptr + offs, mask=mask).to(tl.int64)\n"
                            "    tl.store(out_ptr + offs, tl.load(t_ptr + i * S), mask=mask)",
    "loaded_index_arithmetic": "    i = tl.load(x_ptr + offs, mask=mask)\n    row = (i * S + 1).to(tl.int64)\n"
                               "    tl.store(out_ptr + offs, tl.load(t_ptr + row), mask=mask)",
    "coordinates_from_offsets": "    src = (offs.to(tl.float32) * 0.5).to(tl.int32)\n"
                                "    tl.store(out_ptr + offs, tl.load(x_ptr + src, mask=mask), mask=mask)",
    "quantised_values_stored": "    v = tl.load(x_ptr + offs, mask=mask)\n    q = (v * 127.0).to(tl.int8)\n"
                               "    tl.store(out_ptr + offs, q.to(tl.float32) / 127.0, mask=mask)",
    "scatter_by_value": "    v = tl.load(x_ptr + offs, mask=mask)\n    k = (v * 16.0).to(tl.int32)\n"
                        "    tl.store(out_ptr + k, v, mask=mask)",
}


@pytest.mark.parametrize("name", sorted(GATHERS))
def test_gathers_by_loaded_indices_and_computed_coordinates_pass(name):
    extra = TABLE_KERNEL.format(body=GATHERS[name])
    assert_ok(triton_src(TABLE_CALL, extra=extra, init="self.t = torch.zeros(65536)"))


def test_kernelbench_rules_relax_the_table_rule_and_report_it():
    from leap.sandbox.gate.static_gate import check_source

    src = triton_src(TABLE_CALL, extra=TABLE_KERNEL.format(body=LOOKUPS["bitcast_method"]),
                     init="self.t = torch.zeros(65536)")
    g = check_source(src, "triton", rules="kernelbench")
    assert g.ok and g.strict.startswith("rejected: table_lookup"), (g.ok, g.strict)
