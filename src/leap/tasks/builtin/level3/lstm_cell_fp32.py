"""LSTM cell returning the new hidden state, fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["rnn", "gemm"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["linear", "matmul"]

DTYPE = torch.float32
BATCH, IN, HID = 8192, 1024, 1024


class Model(nn.Module):
    def __init__(self, inp: int, hid: int):
        super().__init__()
        self.wx = nn.Linear(inp, 4 * hid)
        self.wh = nn.Linear(hid, 4 * hid, bias=False)

    def forward(self, x, h, c):
        gates = self.wx(x) + self.wh(h)
        i, f, g, o = gates.chunk(4, dim=-1)
        c_new = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c_new)


def get_inputs():
    return [torch.randn(BATCH, IN, dtype=DTYPE), torch.randn(BATCH, HID, dtype=DTYPE), torch.randn(BATCH, HID, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(4, IN, dtype=DTYPE), torch.randn(4, HID, dtype=DTYPE), torch.randn(4, HID, dtype=DTYPE)]


def get_init_inputs():
    return [IN, HID]
