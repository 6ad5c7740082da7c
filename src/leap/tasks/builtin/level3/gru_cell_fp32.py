"""GRU cell returning the new hidden state, fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["rnn", "gemm"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["linear", "matmul"]

DTYPE = torch.float32
BATCH, IN, HID = 8192, 1024, 1024


class Model(nn.Module):
    def __init__(self, inp: int, hid: int):
        super().__init__()
        self.wx = nn.Linear(inp, 3 * hid)
        self.wh = nn.Linear(hid, 3 * hid)

    def forward(self, x, h):
        xr, xz, xn = self.wx(x).chunk(3, dim=-1)
        hr, hz, hn = self.wh(h).chunk(3, dim=-1)
        r = torch.sigmoid(xr + hr)
        z = torch.sigmoid(xz + hz)
        n = torch.tanh(xn + r * hn)
        return (1 - z) * n + z * h


def get_inputs():
    return [torch.randn(BATCH, IN, dtype=DTYPE), torch.randn(BATCH, HID, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(4, IN, dtype=DTYPE), torch.randn(4, HID, dtype=DTYPE)]


def get_init_inputs():
    return [IN, HID]
