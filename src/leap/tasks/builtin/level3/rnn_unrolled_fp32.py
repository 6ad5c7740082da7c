"""Elman RNN unrolled over a short sequence; returns the last hidden state, fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["rnn", "gemm", "sequence"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["linear", "matmul"]

DTYPE = torch.float32
STEPS, BATCH, IN, HID = 16, 4096, 512, 512


class Model(nn.Module):
    def __init__(self, inp: int, hid: int):
        super().__init__()
        self.wx = nn.Linear(inp, hid)
        self.wh = nn.Linear(hid, hid, bias=False)

    def forward(self, x):
        h = torch.zeros(x.shape[1], self.wh.in_features, dtype=x.dtype, device=x.device)
        for t in range(x.shape[0]):
            h = torch.tanh(self.wx(x[t]) + self.wh(h))
        return h


def get_inputs():
    return [torch.randn(STEPS, BATCH, IN, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(3, 4, IN, dtype=DTYPE)]


def get_init_inputs():
    return [IN, HID]
