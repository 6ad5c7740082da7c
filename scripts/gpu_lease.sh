#!/usr/bin/env bash
# One lease of one H200 for everything GPU in a session: scripts/gpu_session.sh's model chains (1.5B
# train-step bench, SFT, LEAP RL, evals) plus a sandbox chain and a KernelBench chain, all under /tmp/leap15.
#   bash scripts/gpu_lease.sh start      # carry .whl .sftdata .kb: snapshot the repo, launch every chain
#   bash scripts/gpu_lease.sh piece      # carry .gguf_pieces (one piece a call; the last one starts the build)
#   bash scripts/gpu_lease.sh wait SECS  # poll; pack results into $OUT (results.tgz + lease.tgz)
# Sandbox chain: throughput bench and audit first (a quiet GPU while the model travels), then every
# gpu-marked test while the model chains generate on the same GPU (the shared-GPU run).
# KernelBench chain: once the model is built and the train-step bench is done, the base 1.5B on
# KernelBench level 1 (.kb/KernelBench/level1, an unmodified checkout) with the Triton and the CUDA prompt.
set -u
W=${LEAP_GPU_DIR:-/tmp/leap15}
M=$W/q15

stage() {  # stage NAME SECONDS CMD...
  local name=$1 secs=$2; shift 2; local t0=$SECONDS
  echo "$(date -u +%H:%M:%S) === $name start (limit ${secs}s)"
  timeout -s TERM -k 30 "$secs" "$@" > "$W/out/logs/$name.log" 2>&1; local rc=$?
  echo "$(date -u +%H:%M:%S) === $name rc=$rc in $((SECONDS - t0))s"
  tail -3 "$W/out/logs/$name.log" | cut -c1-240
}

env_here() {
  cd "$W/repo" || exit 1
  export PYTHONPATH=$W/repo/src:/tmp/site PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false NCCL_NVLS_ENABLE=0 PATH=$W/bin:$PATH
  mkdir -p "$W/bin" && printf '#!/bin/sh\nexec python3 -m leap.cli.main "$@"\n' > "$W/bin/leap" && chmod +x "$W/bin/leap"
}

wait_for() { local t=0; while [ ! -e "$1" ] && [ "$t" -lt "$2" ]; do sleep 5; t=$((t + 5)); done; [ -e "$1" ]; }

chain_sandbox() {
  env_here
  stage tp_pool 200 python3 bench/sandbox_throughput.py --device cuda --n 40 --n-inline 0 --mode pool \
    --results "$W/out/sandbox/tp_pool.json" --out "$W/out/sandbox/tp_pool.md"
  stage audit_quiet 300 leap sandbox audit --device cuda --timeout 30 --compile-timeout 150 \
    --out "$W/out/sandbox/AUDIT_GPU_quiet.md"
  nvidia-smi > "$W/out/sandbox/nvidia_smi_before_tests.txt" 2>&1
  stage gpu_tests 1000 python3 -m pytest -q -p no:cacheprovider -m gpu --timeout 300 -rfEs \
    --junitxml "$W/out/sandbox/gpu_tests.xml" tests
  python3 scripts/gpu_tests_report.py "$W/out/sandbox/gpu_tests.xml" > "$W/out/sandbox/GPU_TESTS.md" 2>&1
  nvidia-smi > "$W/out/sandbox/nvidia_smi_after_tests.txt" 2>&1
  touch "$W/out/S.done"
}

chain_kb() {
  env_here
  wait_for "$W/out/bench.done" 1500
  [ -f "$M/.ready" ] || { touch "$W/out/K.done"; return; }
  for k in triton cuda_inline; do
    stage "kb_l1_$k" 330 leap eval --model "$M" --backend hf --cache static --tasks .kb/KernelBench/level1 \
      --prompt kernelbench --kernelbench-root .kb --kernel "$k" --samples 1 --turns 1 --temperature 0 \
      --max-new-tokens 1024 --tasks-per-batch 100 --device cuda --out "$W/out/kb_l1_$k"
  done
  touch "$W/out/K.done"
}

progress() {
  bash scripts/gpu_session.sh status 2>/dev/null | head -40
  for c in S K; do echo "--- $c$([ -f "$W/out/$c.done" ] && echo ' (done)')"; grep -E "===" "$W/out/logs/$c.log" 2>/dev/null | tail -4; done
}

case "${1:-}" in
  start)
    bash scripts/gpu_session.sh start
    mkdir -p "$W/out/sandbox"
    setsid nohup bash "$W/repo/scripts/gpu_lease.sh" S > "$W/out/logs/S.log" 2>&1 < /dev/null &
    setsid nohup bash "$W/repo/scripts/gpu_lease.sh" K > "$W/out/logs/K.log" 2>&1 < /dev/null &
    sleep 1; progress ;;
  piece) bash scripts/gpu_session.sh piece ;;
  wait)
    end=$((SECONDS + ${2:-300}))
    while [ $SECONDS -lt $end ] && ! { [ -f "$W/out/A.done" ] && [ -f "$W/out/B.done" ] && [ -f "$W/out/S.done" ] \
        && [ -f "$W/out/K.done" ]; }; do sleep 10; done
    progress
    bash scripts/gpu_session.sh pack > /dev/null 2>&1 ;;
  S) chain_sandbox ;;
  K) chain_kb ;;
  *) echo "usage: $0 start|piece|wait SECONDS"; exit 2 ;;
esac
