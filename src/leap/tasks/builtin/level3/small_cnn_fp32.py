"""Small CNN: two conv-ReLU-maxpool stages, global average pool, linear head (fp32)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

LEAP_TAGS = ["cnn", "conv", "pooling"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["conv2d", "linear", "matmul"]

DTYPE = torch.float32
BATCH, H, W, CLASSES = 256, 128, 128, 100


class Model(nn.Module):
    def __init__(self, classes: int):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = F.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.head(x.mean(dim=(2, 3)))


def get_inputs():
    return [torch.randn(BATCH, 3, H, W, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, 3, 12, 12, dtype=DTYPE)]


def get_init_inputs():
    return [CLASSES]
