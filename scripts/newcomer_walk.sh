#!/usr/bin/env bash
# The newcomer's path on a fresh clone and venv, timed step by step (docs/RESULTS.md, "The path after
# the quickstart"): the README quickstart (`leap demo`), `leap eval` on the demo's RL policy, then the
# tiny CPU training config.   usage: bash scripts/newcomer_walk.sh [WORKDIR]   (default /tmp/leap_walk)
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/leap_walk}
mkdir -p "$work"
step() {
  local name=$1; shift
  local t0; t0=$(date +%s)
  echo "== $name start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$@" > "$work/$name.log" 2>&1
  local rc=$?
  echo "== $name rc $rc $(( $(date +%s) - t0 )) s (log $work/$name.log) load $(cut -d' ' -f1-3 /proc/loadavg)"
}
step clone git clone -q "$repo" "$work/leap"
step venv python3 -m venv "$work/venv"
cd "$work/leap" || exit 1
# shellcheck disable=SC1091
. "$work/venv/bin/activate"
step install sh -c 'pip install -q torch==2.13.0 && pip install -q -e ".[dev]"'
export TRITON_INTERPRET=1
step demo leap demo
step eval leap eval --model runs/demo/policy_rl --backend hf --tasks builtin:eval --samples 2 --turns 2 \
  --limit 3 --device cpu --out runs/eval_demo
step train leap train --config configs/leap_tiny_cpu.yaml
grep "^step" "$work/train.log"
