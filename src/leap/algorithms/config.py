"""Typed configs of the algorithms (embedded by the trainer as ``dcp``, ``reward``, ``credit``, ``loss``).

Every model forbids unknown keys, so a typo in a YAML file is an error, not a silently ignored setting.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class StrictConfig(BaseModel):
    """The one base of every LEAP config section: unknown keys are errors, assignments are validated."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


_Strict = StrictConfig


class DCPConfig(_Strict):
    """Difficulty-Conditioned Pruning: which groups earn feedback turns after turn 1 (DESIGN.md §5)."""

    enabled: bool = Field(True, description="false = expand every group with a failing sample (no pruning)")
    t_min: int | None = Field(None, ge=0, description="expand iff t_min <= #failed; None = ceil(G/2)")
    t_max: int | None = Field(None, ge=0, description="... and #failed <= t_max; None = G-1")
    eval_budget: int | None = Field(
        None, ge=0, description="cap on sandbox evaluations per step (turn 1 included); None = no cap")
    keep_solved: bool = Field(False, description="solved samples of an expanded group keep optimising speed")

    @model_validator(mode="after")
    def _ordered(self) -> DCPConfig:
        if self.t_min is not None and self.t_max is not None and self.t_min > self.t_max:
            raise ValueError(f"t_min ({self.t_min}) must be <= t_max ({self.t_max})")
        return self


class RewardConfig(_Strict):
    """Trajectory-level advantage: the group tournament (LEAP) or a group-normalised scalar (Kevin)."""

    kind: Literal["tournament", "scalar"] = Field("tournament",
        description='tournament (LEAP, rank-based) or scalar (Kevin-style, group-normalised)')
    speed_ref: Literal["eager", "compile"] = Field("eager", description="speedup baseline used")
    # tournament
    dead_zone: float = Field(0.03, ge=0, description="speedups within this relative gap tie")
    tiers: list[float] = Field(default_factory=lambda: [0.8, 1.05, 1.5, 3.0],
                               description="speed-tier boundaries (increasing)")
    token_margin: float | None = Field(
        0.10, ge=0, description="fewer tokens wins if they differ by more than this fraction; None = off")
    token_unsolved: bool = Field(False, description="also break ties between unsolved samples by tokens")
    # scalar (Kevin-style): correct_weight*correct + speed_weight*speedup (speedup only when correct+timed)
    correct_weight: float = Field(0.3, description='scalar reward: weight of correctness')
    speed_weight: float = Field(1.0, description='scalar reward: weight of the speedup')
    speed_cap: float | None = Field(None, gt=0, description="clip speedup at this value; None = no clip")
    norm: Literal["std", "mean"] = Field("std", description="std: (r-mean)/(std+eps); mean: Dr.GRPO r-mean")
    eps: float = Field(1e-6, gt=0, description='scalar reward: std normaliser epsilon')

    @field_validator("tiers")
    @classmethod
    def _increasing(cls, v: list[float]) -> list[float]:
        if any(b <= a for a, b in zip(v, v[1:], strict=False)) or any(b <= 0 for b in v):
            raise ValueError(f"tiers must be positive and strictly increasing, got {v}")
        return v


class CreditConfig(_Strict):
    """How a trajectory's result becomes one advantage per turn (each turn is a training sample).

    leap: A>0 -> turn t gets A*gamma^|T*-t| (T* = turn that decided the outcome); A<=0 -> every turn A.
    kevin: per-turn returns R_t = sum_k gamma^(k-t) s_k, normalised over the group's turns.
    loo_turn: the same returns, baseline = mean over the other trajectories at the same turn index.
    """

    kind: Literal["leap", "kevin", "loo_turn"] = Field("leap",
        description='how a trajectory advantage is spread over its turns')
    gamma: float = Field(0.4, ge=0, le=1, description='turn discount')
    traj_norm: bool = Field(False, description="divide each turn's credit by its trajectory's turn count")


class LossConfig(_Strict):
    """Token-level PPO-clip surrogate with optional k3 KL to the reference."""

    eps_low: float = Field(0.2, ge=0, description='PPO clip below (ratio >= 1 - eps_low)')
    eps_high: float = Field(0.28, ge=0, description='PPO clip above (ratio <= 1 + eps_high)')
    kl_coef: float = Field(0.0, ge=0, description="0 = no KL term (no reference forward needed)")
    aggregation: Literal["token_mean", "constant"] = Field("token_mean",
        description='token_mean, or constant (Dr.GRPO: sum / const_len)')
    const_len: int | None = Field(
        None, ge=1, description="Dr.GRPO normaliser per sample (e.g. max_new_tokens); None = padded length")


__all__ = ["CreditConfig", "DCPConfig", "LossConfig", "RewardConfig", "StrictConfig"]
