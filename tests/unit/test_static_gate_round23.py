"""The static gate after red-team round 23 (2026-12-05): honest idioms it refused — data movement (``torch.cat``,
``F.pad``, ``flip``, slice stores), widening casts (``x.float()``), ``torch.set_grad_enabled``, ``__post_init__``,
``torch.__version__`` strings, autotune configs from ``itertools.product``, ``nn.init``'s fan helper — pass;
the conversions and stores around them that compute stay refused, and attributes set on tensors are refused
in init code too."""

from __future__ import annotations

import pytest
from test_static_gate import LAUNCH, assert_ok, assert_rejected, triton_src

HONEST = {  # forward body (before the launch), module-level extra, __init__ body
    "cat_and_stack": ("x = torch.cat([x, torch.zeros_like(x)], dim=0)[: x.shape[0]]\n"
                      "y = torch.stack([x, x]).reshape(-1)[: x.numel()].view_as(x)", "", "pass"),
    "constant_pad_and_flip": ("x = F.pad(x, (1, 1), value=0.0)[..., 1:-1].flip(-1).flip(-1)", "", "pass"),
    "slice_store_of_a_zero_padded_copy": ("xp = torch.zeros(x.shape[0] + 2, device=x.device)\nxp[1:-1] = x\n"
                                          "xp[0] = 0.0\nx = xp[1:-1]", "", "pass"),
    "widening_casts": ("x = x.float()\nx = x.to(torch.float32)\nx = x.to(x.device, dtype=torch.float32)", "",
                       "pass"),
    "set_grad_enabled": ("with torch.set_grad_enabled(False):\n    x = x.contiguous()", "", "pass"),
    "version_string": ("x = x.contiguous()", "NEW = int(torch.__version__.split('.')[0]) >= 2\n", "pass"),
    "dataclass_post_init": ("x = x.contiguous()",
                            "import dataclasses\n\n@dataclasses.dataclass\nclass Cfg:\n    block: int = 256\n\n"
                            "    def __post_init__(self):\n        assert self.block % 32 == 0\n", "self.cfg = Cfg()"),
    "fan_in_helper": ("x = x.contiguous()", "",
                      "w = torch.empty(4, 4)\nfan_in, _ = nn.init._calculate_fan_in_and_fan_out(w)\nself.s = fan_in"),
    "itertools_configs": ("x = x.contiguous()",
                          "import itertools\nCONFIGS = [triton.Config({'BLOCK': b}, num_warps=w)\n"
                          "           for b, w in itertools.product([128, 256], [4, 8])]\n", "pass"),
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_idioms_of_round_23_pass(name):
    fwd, extra, init = HONEST[name]
    assert_ok(triton_src(fwd + "\n" + LAUNCH + "return out", extra=extra, init=init))


STILL_REFUSED = {  # forward body; the rule
    "narrowing_cast": ("x = x.half()", "torch_compute"),
    "integer_cast": ("x = x.to(torch.int32)", "torch_compute"),
    "cast_to_a_dtype_the_gate_cannot_see": ("x = x.to(x.dtype)", "torch_compute"),
    "cat_into_out_of_another_dtype": ("r = torch.empty(x.shape, dtype=torch.int8)\ntorch.cat([x], out=r)",
                                      "torch_compute"),
    "fill_from_a_tensor": ("t = torch.empty(1, dtype=torch.int64)\nt.fill_(x[0])", "torch_compute"),
    "scatter_through_a_tensor_index": ("i = torch.arange(4)\nx[i] = 0.0", "torch_compute"),
    "reflect_pad": ("x = F.pad(x, (1, 1), mode='reflect')", "torch_compute"),
}


@pytest.mark.parametrize("name", sorted(STILL_REFUSED))
def test_conversions_and_scatters_around_them_stay_refused(name):
    fwd, rule = STILL_REFUSED[name]
    assert_rejected(triton_src(fwd + "\n" + LAUNCH + "return out"), rule)


def test_attributes_set_on_tensors_are_refused_in_init_code_too():
    """``t.detach = partial(torch.relu, buf)`` in ``__init__`` shadowed the method the harness called once the
    backstop was off (paid, 2026-12-05); ``requires_grad`` and ``data`` are the tensor's own descriptors."""
    init = "self.buf = torch.zeros(0)\nt = torch.zeros(0)\n{}\nself.t = t"
    for store in ("t.detach = self.buf.clone", "setattr(t, 'clone', self.buf.detach)"):
        assert_rejected(triton_src(LAUNCH + "return out", init=init.format(store)), "tensor_attribute")
    assert_ok(triton_src(LAUNCH + "return out", init=init.format("t.requires_grad = False")))


def test_a_bias_added_to_a_product_is_the_allowed_linear():
    """``x @ W.T + self.bias`` is what ``F.linear(x, W, self.bias)`` computes: allowed where linear is; a residual
    add of two activations is not."""
    init = "self.w = nn.Parameter(torch.randn(4, 4))\nself.bias = nn.Parameter(torch.zeros(4))"
    for expr in ("x @ self.w.T + self.bias", "self.bias + torch.mm(x, self.w.t())"):
        src = triton_src(f"x = {expr}\n" + LAUNCH + "return out", init=init)
        assert_ok(src, allowed=["linear", "matmul"])
        assert_rejected(src, "torch_compute", allowed=["matmul"])  # the product alone is allowed, not the add
    assert_rejected(triton_src("x = x @ self.w.T + x\n" + LAUNCH + "return out", init=init), "torch_compute",
                    allowed=["linear", "matmul"])


AMP = """
class _Fn(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda"{cast})
    def forward(ctx, x):
        out = torch.empty_like(x)
        n = x.numel()
        k_relu[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256){extra}
        return out

    @staticmethod
    @torch.amp.custom_bwd(device_type="cuda")
    def backward(ctx, g):
        return g
"""


def test_autocast_markers_on_autograd_functions():
    """``torch.amp.custom_fwd``/``custom_bwd`` (Liger, Unsloth) only record the autocast state: allowed, the
    decorated body still analysed; ``cast_inputs=`` converts the inputs and stays refused."""
    fwd = "return _Fn.apply(x)"
    assert_ok(triton_src(fwd, extra=AMP.format(cast="", extra="")))
    assert_rejected(triton_src(fwd, extra=AMP.format(cast="", extra="\n        out = torch.relu(x)")), "torch_compute")
    assert_rejected(triton_src(fwd, extra=AMP.format(cast=", cast_inputs=torch.float16", extra="")), "forbidden_name")


def test_a_bias_written_outside_init_is_no_bias():
    """``self.bias.resize_(x.shape); self.bias[:] = x`` then ``x @ W + self.bias``: a residual add dressed as a
    linear's bias (paid, red-team pass 2026-12-05)."""
    init = "self.w = nn.Parameter(torch.randn(4, 4))\nself.register_buffer('bias', torch.zeros(0))"
    fwd = "self.bias.resize_(x.shape)\nself.bias[:] = x\nx = x @ self.w.T + self.bias\n"
    assert_rejected(triton_src(fwd + LAUNCH + "return out", init=init), "torch_compute", allowed=["linear", "matmul"])


def test_the_backstop_allows_an_add_under_linear_only_as_a_bias():
    import torch

    from leap.sandbox.worker.compute_guard import bias_adds_only, misuse

    only = bias_adds_only(["linear"])
    assert only and not bias_adds_only(["linear", "add"]) and not bias_adds_only([])
    h, b = torch.ones(8, 4), torch.ones(4)
    assert misuse("add", (h, b), {}, only) is None and misuse("add", (h, torch.ones(1, 4, 1, 1)), {}, only) is None
    assert "not a layer's bias" in misuse("add", (h, h), {}, only)
