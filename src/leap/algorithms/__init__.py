"""LEAP's algorithms: pure functions over rollout records and tensors (DESIGN.md §5)."""

from leap.algorithms.advantages import PackedBatch, TurnSample, build_batch, turn_samples
from leap.algorithms.config import CreditConfig, DCPConfig, LossConfig, RewardConfig
from leap.algorithms.credit import batch_credits, group_advantages, group_credits
from leap.algorithms.dcp import DCPStats, dcp_decide, dcp_step_stats, needs_turn
from leap.algorithms.loss import LossOutputs, gather_logprobs, policy_loss, token_entropy
from leap.algorithms.scalar import group_normalize, scalar_advantages, turn_score
from leap.algorithms.tournament import Outcome, compare, outcome, tournament_advantages

__all__ = [
    "CreditConfig", "DCPConfig", "DCPStats", "LossConfig", "LossOutputs", "Outcome", "PackedBatch",
    "RewardConfig", "TurnSample", "batch_credits", "build_batch", "compare", "dcp_decide", "dcp_step_stats",
    "gather_logprobs", "group_advantages", "group_credits", "group_normalize", "needs_turn", "outcome",
    "policy_loss", "scalar_advantages", "token_entropy", "tournament_advantages", "turn_samples",
    "turn_score",
]
