"""LEAP: multi-turn GRPO with Difficulty-Conditioned Pruning and a rank-based tournament reward
for LLMs that write GPU kernels."""

__version__ = "0.1.0"
