"""A verdict with non-finite errors (a candidate that outputs NaN/Inf) is strict JSON and reads back."""

from __future__ import annotations

import json
import math

from leap.sandbox.judge.verdict import Verdict


def test_non_finite_errors_are_strict_json_and_round_trip():
    v = Verdict(status="incorrect", max_abs_error=float("inf"), max_rel_error=float("nan"),
                stage_seconds={"check": 0.5}, detail="internal")
    d = v.public_dict()
    text = json.dumps(d, allow_nan=False)  # raises on NaN/Infinity literals
    assert "detail" not in d and d["max_abs_error"] == "Infinity" and d["max_rel_error"] == "NaN"
    back = Verdict(**json.loads(text))
    assert back.max_abs_error == math.inf and math.isnan(back.max_rel_error)
    assert back.status == "incorrect" and back.stage_seconds == {"check": 0.5}
