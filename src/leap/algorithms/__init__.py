"""LEAP's algorithms: pure functions over rollout records and tensors (DESIGN.md §5)."""

from leap.algorithms.config import CreditConfig, DCPConfig, LossConfig, RewardConfig
from leap.algorithms.tournament import Outcome, compare, outcome, tournament_advantages

__all__ = [
    "CreditConfig", "DCPConfig", "LossConfig", "Outcome", "RewardConfig",
    "compare", "outcome", "tournament_advantages",
]
