"""The algorithm sub-configs embedded in `TrainConfig` (dcp, reward, credit, loss).

They belong to `leap.algorithms.config`; this module only re-exports them for the trainer.
"""

from __future__ import annotations

from leap.algorithms.config import CreditConfig, DCPConfig, LossConfig, RewardConfig

__all__ = ["CreditConfig", "DCPConfig", "LossConfig", "RewardConfig"]
