"""The poison patterns (`leap.sandbox.worker.poison`): the two runs' GPU poisons differ in every bit pattern
a float32 comparison sees, and the CPU path only configures glibc (nothing to fill, nothing reported)."""

import math
import struct

from leap.sandbox.worker.poison import POISONS, pattern, poison


def test_patterns_are_the_float32_bits_of_the_poisons():
    assert pattern(float("nan")) == 0x7FC00000 and pattern(-7.0) == 0xC0E00000
    back = [struct.unpack("<f", struct.pack("<I", pattern(v)))[0] for v in POISONS]
    assert math.isnan(back[0]) and back[1] == -7.0
    assert pattern(POISONS[0]) != pattern(POISONS[1])


def test_cpu_poison_fills_nothing_itself_and_zero_bytes_is_a_no_op():
    assert poison("cpu", 1 << 20, 0) == 0 and poison("cpu", 1 << 20, 1) == 0
    assert poison("cuda", 0, 0) == 0  # disabled: returns before touching the device
