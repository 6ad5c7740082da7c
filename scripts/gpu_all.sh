#!/usr/bin/env bash
# The project's batched GPU session: every gpu-marked test and every GPU benchmark, each bounded in time,
# logs and Markdown results written to $OUT (default ./gpu_out). Run on a lent H200 machine:
#   bash scripts/gpu_all.sh tests     # gpu tests + sandbox audit (~9 min)
#   bash scripts/gpu_all.sh bench     # throughput, reference timings, repeatability, generation (~9 min)
set -u
OUT=${OUT:-gpu_out}; mkdir -p "$OUT"
source scripts/gpu_env.sh > "$OUT/env.log" 2>&1; cat "$OUT/env.log" | tail -2
LOG="$OUT/gpu_$1.log"
stage() {  # stage NAME SECONDS CMD...
  local name=$1 secs=$2; shift 2; local t0=$SECONDS
  echo "=== $name (limit ${secs}s)" | tee -a "$LOG"
  timeout -s KILL "$secs" "$@" >> "$LOG" 2>&1; local rc=$?
  echo "=== $name rc=$rc in $((SECONDS - t0))s" | tee -a "$LOG"
}
case "$1" in
  tests)
    stage gpu_tests 330 python3 -m pytest -q -p no:cacheprovider -m gpu --timeout 100 -rfE tests/gpu tests/unit/test_loss.py
    stage audit 200 leap sandbox audit --device cuda --timeout 30 --compile-timeout 150 --out "$OUT/AUDIT_GPU.md"
    grep -E "passed|failed|^FAILED|^ERROR" "$LOG" | tail -30 ;;
  bench)
    stage throughput 260 python3 bench/sandbox_throughput.py --device cuda --n 30 --n-inline 1 --repeats 5 \
      --out "$OUT/SANDBOX_THROUGHPUT.md" --results "$OUT/throughput.json"
    stage ref_timings 150 python3 bench/reference_timings.py --device cuda --out "$OUT/REFERENCE_TIMINGS.md"
    stage repeatability 60 python3 bench/timing_repeatability.py --out "$OUT/TIMING_REPEATABILITY.md"
    stage generation 90 python3 bench/generation.py --out "$OUT/GENERATION_BENCH.md"
    tail -c 3000 "$LOG" ;;
esac
