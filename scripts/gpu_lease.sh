#!/usr/bin/env bash
# One lease of one H200 (nvidia-h200) for the whole GPU session, driven by back-to-back `run` calls:
#   bash scripts/gpu_lease.sh start      # carry .whl and .gguf_pieces (piece 0): snapshot the repo, set up,
#                                        # launch the sandbox chain (quiet GPU while the model travels)
#   bash scripts/gpu_lease.sh piece      # carry .gguf_pieces (the next piece); the last one assembles the
#                                        # GGUF, checks its sha256, converts it, then the model chains start
#   bash scripts/gpu_lease.sh wait SECS  # keep the lease busy, print progress, pack results into $OUT
# Chains (background process sessions under /tmp/leap_gpu, outside the re-copied repository):
#   sandbox: throughput bench (quiet) -> audit (quiet) -> every gpu-marked test (while the model chains
#            generate on the same GPU: the "shared GPU" run)
#   model:   train-step bench (old vs new generation settings) -> base 1.5B on builtin:train (samples for
#            expert iteration + pass-rate histogram) -> harvest -> SFT -> LEAP RL steps -> eval of the RL policy
#   eval:    base 1.5B on builtin:eval -> KernelBench level 1 with the Triton and the CUDA prompt
# Prepare here: .whl (scripts/gpu_env.sh), .gguf_pieces/ one piece at a time (split -b 58M -d -a 2),
# .kb/KernelBench (an unmodified KernelBench checkout's KernelBench/ and src/kernelbench/prompts/), .sftdata/.
set -u
W=/tmp/leap_gpu
SHA=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
NPIECES=${NPIECES:-19}
MODEL=$W/q15

stage() {  # stage NAME SECONDS CMD...
  local name=$1 secs=$2; shift 2; local t0=$SECONDS
  echo "=== $name start $(date -u +%H:%M:%S) (limit ${secs}s)"
  timeout -s TERM -k 20 "$secs" "$@" > "$W/out/$name.log" 2>&1; local rc=$?
  echo "=== $name rc=$rc in $((SECONDS - t0))s"
  tail -3 "$W/out/$name.log" | cut -c1-300
}

env_here() {
  cd "$W/repo" || exit 1
  source scripts/gpu_env.sh > /dev/null 2>&1
  export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
}

wait_model() { local t=0; while [ ! -f "$MODEL/.ready" ] && [ "$t" -lt "$1" ]; do sleep 5; t=$((t + 5)); done; [ -f "$MODEL/.ready" ]; }

chain_sandbox() {
  env_here
  stage tp_pool 200 python3 bench/sandbox_throughput.py --device cuda --n 40 --n-inline 0 --mode pool \
    --results "$W/out/tp_pool.json" --out "$W/out/tp_pool.md"
  stage audit 300 leap sandbox audit --device cuda --timeout 30 --compile-timeout 150 --out "$W/out/AUDIT_GPU.md"
  date -u +%H:%M:%S > "$W/out/gpu_tests.start"
  stage gpu_tests 900 python3 -m pytest -q -p no:cacheprovider -m gpu --timeout 300 -rfEs \
    --junitxml "$W/out/gpu_tests.xml" tests
  python3 scripts/gpu_tests_report.py "$W/out/gpu_tests.xml" > "$W/out/GPU_TESTS.md" 2>&1
  touch "$W/out/sandbox.done"
}

chain_model() {
  env_here
  wait_model 600 || { echo "no model"; exit 1; }
  stage train_step 300 python3 bench/train_step.py --config configs/qwen15b_h200.yaml --set "model.path=$MODEL" \
    --variants old:2,new:16 --out "$W/out/train_step.json"
  stage base_train 360 leap eval --model "$MODEL" --backend hf --cache static --tasks builtin:train --samples 4 \
    --turns 1 --temperature 0.8 --max-new-tokens 1024 --tasks-per-batch 64 --device cuda --out "$W/out/base_train"
  stage pass_rates 60 leap sft-data pass-rates "$W/out/base_train" --out "$W/out/pass_rates_base.json" \
    --title "base Qwen2.5-Coder-1.5B, builtin:train, 4 samples"
  stage harvest 60 leap sft-data harvest "$W/out/base_train" --out "$W/out/harvest.jsonl"
  cat "$W/out/harvest.jsonl" .sftdata/*.jsonl 2>/dev/null > "$W/out/sft_all.jsonl"
  stage sft 240 leap sft --config configs/qwen15b_h200.yaml --data "$W/out/sft_all.jsonl" "model.path=$MODEL" \
    sft.epochs=1 optim.lr=5e-5 optim.micro_batch_size=8 "logging.dir=$W/out/sft" \
    "checkpoint.dir=$W/out/sft/checkpoints" checkpoint.every=0 logging.progress=false
  local init=""
  [ -f "$W/out/sft/checkpoints/latest" ] && init="model.init_from=$W/out/sft/checkpoints"
  stage rl "${RL_SECONDS:-540}" leap train --config configs/qwen15b_h200.yaml "model.path=$MODEL" $init \
    "steps=${RL_STEPS:-8}" "logging.dir=$W/out/rl" "checkpoint.dir=$W/out/rl/checkpoints" checkpoint.every=2 \
    logging.progress=false
  [ -f "$W/out/rl/checkpoints/latest" ] && stage eval_rl 300 leap eval --model "$MODEL" \
    --checkpoint "$W/out/rl/checkpoints" --backend hf --cache static --tasks builtin:eval --samples 4 --turns 3 \
    --tasks-per-batch 20 --device cuda --out "$W/out/eval_rl"
  touch "$W/out/model.done"
}

chain_eval() {
  env_here
  wait_model 600 || { echo "no model"; exit 1; }
  stage eval_base 300 leap eval --model "$MODEL" --backend hf --cache static --tasks builtin:eval --samples 4 \
    --turns 3 --tasks-per-batch 20 --device cuda --out "$W/out/eval_base"
  for k in triton cuda; do
    stage "kb_l1_$k" 300 leap eval --model "$MODEL" --backend hf --cache static --tasks .kb/KernelBench/level1 \
      --prompt kernelbench --kernelbench-root .kb --kernel "$k" --samples 1 --turns 1 --temperature 0 \
      --max-new-tokens 1024 --tasks-per-batch 100 --device cuda --out "$W/out/kb_l1_$k"
  done
  touch "$W/out/eval.done"
}

assemble() {
  env_here
  cat $(ls /tmp/pieces/* | sort) > "$W/q15.gguf"
  echo "$SHA  $W/q15.gguf" | sha256sum -c - || exit 1
  leap models fetch qwen2.5-coder-1.5b-instruct --out "$MODEL" --gguf "$W/q15.gguf" && touch "$MODEL/.ready"
  rm -f "$W/q15.gguf"
  ls -la "$MODEL"
}

pack() {
  [ -n "${OUT:-}" ] || return 0
  tar czf "$OUT/results.tgz" --exclude='*.pt' --exclude='*.safetensors' --exclude='*.bin' --exclude=tb -C "$W" out 2>/dev/null
  ls -la "$OUT/results.tgz"
  # the RL adapter, for a later lease (a rank-32 adapter of the 1.5B is ~35 MB)
  local latest; latest=$(cat "$W/out/rl/checkpoints/latest" 2>/dev/null)
  [ -n "$latest" ] && tar czf "$OUT/rl_adapter.tgz" -C "$W/out/rl/checkpoints" "$latest/adapter" 2>/dev/null
  for c in sandbox model eval assemble; do cp "$W/out/$c.log" "$OUT/" 2>/dev/null; done
}

progress() {
  date -u +%H:%M:%S; echo "pieces: $(ls /tmp/pieces 2>/dev/null | wc -l)"
  for c in sandbox model eval assemble; do echo "--- $c"; grep -E "^===" "$W/out/$c.log" 2>/dev/null | tail -4; done
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader 2>/dev/null
}

launch() { setsid nohup bash "$W/repo/scripts/gpu_lease.sh" "$1" > "$W/out/$2.log" 2>&1 < /dev/null & }

case "${1:-}" in
  start)
    rm -rf "$W" /tmp/pieces; mkdir -p "$W/out" "$W/repo" /tmp/pieces
    tar --exclude=./.gguf_pieces --exclude=./.git -cf - . | (cd "$W/repo" && tar xf -)
    cp .gguf_pieces/* /tmp/pieces/ 2>/dev/null
    (cd "$W/repo" && source scripts/gpu_env.sh) 2>&1 | tail -2
    nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader
    launch chain_sandbox sandbox
    sleep 2; progress ;;
  piece)
    cp .gguf_pieces/* /tmp/pieces/; echo "pieces: $(ls /tmp/pieces | wc -l)"
    if [ "$(ls /tmp/pieces | wc -l)" -ge "$NPIECES" ] && [ ! -f "$W/assemble.started" ]; then
      touch "$W/assemble.started"
      launch assemble assemble; launch chain_model model; launch chain_eval eval
    fi ;;
  wait)
    t=0; while [ "$t" -lt "${2:-300}" ]; do
      [ -f "$W/out/sandbox.done" ] && [ -f "$W/out/model.done" ] && [ -f "$W/out/eval.done" ] && break
      sleep 15; t=$((t + 15)); done
    progress; pack ;;
  chain_sandbox|chain_model|chain_eval|assemble) "$1" ;;
  *) echo "usage: $0 start|piece|wait SECS"; exit 2 ;;
esac
