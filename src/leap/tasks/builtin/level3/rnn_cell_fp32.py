"""Elman RNN cell: tanh(W_x x + W_h h + b), fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["rnn", "gemm"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["linear", "matmul"]

DTYPE = torch.float32
BATCH, IN, HID = 16384, 1024, 1024


class Model(nn.Module):
    def __init__(self, inp: int, hid: int):
        super().__init__()
        self.wx = nn.Linear(inp, hid)
        self.wh = nn.Linear(hid, hid, bias=False)

    def forward(self, x, h):
        return torch.tanh(self.wx(x) + self.wh(h))


def get_inputs():
    return [torch.randn(BATCH, IN, dtype=DTYPE), torch.randn(BATCH, HID, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(4, IN, dtype=DTYPE), torch.randn(4, HID, dtype=DTYPE)]


def get_init_inputs():
    return [IN, HID]
