"""LEAP's algorithms: pure functions over rollout records and tensors (DESIGN.md §5)."""

from leap.algorithms.config import CreditConfig, DCPConfig, LossConfig, RewardConfig
from leap.algorithms.dcp import DCPStats, dcp_decide, dcp_step_stats
from leap.algorithms.scalar import group_normalize, scalar_advantages, turn_score
from leap.algorithms.tournament import Outcome, compare, outcome, tournament_advantages

__all__ = [
    "CreditConfig", "DCPConfig", "LossConfig", "Outcome", "RewardConfig",
    "DCPStats", "compare", "dcp_decide", "dcp_step_stats", "group_normalize", "outcome",
    "scalar_advantages", "tournament_advantages", "turn_score",
]
