#!/usr/bin/env bash
# The project's batched GPU session: every gpu-marked test and every GPU benchmark, each stage bounded in
# time, logs and Markdown results written to $OUT (default ./gpu_out). On a lent machine:
#   bash scripts/gpu_all.sh tests   # every gpu-marked test under tests/ + sandbox audit (one GPU)
#   bash scripts/gpu_all.sh bench   # sandbox throughput, timing repeatability, generation, reference timings
#   bash scripts/gpu_all.sh both    # two GPUs: tests on GPU 0 and benchmarks on GPU 1 at the same time
set -u
OUT=${OUT:-gpu_out}; mkdir -p "$OUT"
source scripts/gpu_env.sh > "$OUT/env.log" 2>&1; tail -2 "$OUT/env.log"
stage() {  # stage LOG NAME SECONDS CMD...
  local log=$1 name=$2 secs=$3; shift 3; local t0=$SECONDS
  echo "=== $name (limit ${secs}s) $(date -u +%H:%M:%S)" >> "$log"
  timeout -s KILL "$secs" "$@" >> "$log" 2>&1; local rc=$?
  echo "=== $name rc=$rc in $((SECONDS - t0))s" | tee -a "$log"
}
run_tests() {  # every gpu-marked test wherever it lives under tests/, nothing deselected
  local log="$OUT/gpu_tests.log"
  stage "$log" gpu_tests "${GPU_TESTS_LIMIT:-1200}" python3 -m pytest -q -p no:cacheprovider -m gpu --timeout 300 \
    -rfEs --junitxml "$OUT/gpu_tests.xml" tests
  python3 scripts/gpu_tests_report.py "$OUT/gpu_tests.xml" > "$OUT/GPU_TESTS.md" 2>> "$log"
  stage "$log" audit 300 leap sandbox audit --device cuda --timeout 30 --compile-timeout 150 --out "$OUT/AUDIT_GPU.md"
}
run_bench() {
  local log="$OUT/gpu_bench.log"
  stage "$log" throughput_pool 110 python3 bench/sandbox_throughput.py --device cuda --mode pool --n 30 --n-inline 1 \
    --results "$OUT/throughput.json"
  stage "$log" throughput_naive 160 python3 bench/sandbox_throughput.py --device cuda --mode naive --n 12 --n-inline 1 \
    --results "$OUT/throughput.json"
  stage "$log" throughput_repeat 60 python3 bench/sandbox_throughput.py --device cuda --mode repeat --repeats 5 \
    --results "$OUT/throughput.json" --out "$OUT/SANDBOX_THROUGHPUT.md"
  stage "$log" repeatability 45 python3 bench/timing_repeatability.py --out "$OUT/TIMING_REPEATABILITY.md"
  stage "$log" generation 80 python3 bench/generation.py --out "$OUT/GENERATION_BENCH.md"
  stage "$log" ref_timings 80 python3 bench/reference_timings.py --device cuda --no-compile --json "$OUT/ref_eager.json" \
    --out "$OUT/REFERENCE_TIMINGS_EAGER.md"
}
case "$1" in
  tests) run_tests ;;
  bench) run_bench ;;
  both) (CUDA_VISIBLE_DEVICES=0 run_tests) & (CUDA_VISIBLE_DEVICES=1 run_bench) & wait ;;
esac
grep -hE "passed|failed|^FAILED|^ERROR" "$OUT"/gpu_tests.log 2>/dev/null | tail -25
# the device tool returns at most 8 files: pack everything into one archive beside the two logs
tar czf /tmp/gpu_results.tgz -C "$OUT" . && mv /tmp/gpu_results.tgz "$OUT/results.tgz"
find "$OUT" -type f ! -name results.tgz ! -name "gpu_*.log" -delete
