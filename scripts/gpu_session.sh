#!/usr/bin/env bash
# The project's whole GPU session on one lent 2-GPU machine (nvidia-h200-x2), held by calls made back to
# back (it goes back ~30 s after a call). Work runs in background process sessions (setsid) under
# /tmp/leap_gpu, outside the repository (which is re-copied on every call):
#   GPU 1: throughput (pool variants + naive baseline) -> sandbox GPU tests -> `leap eval` of the SFT
#          checkpoint (builtin:eval, 4 samples, 3 turns) -> 5x repeat -> remaining GPU tests
#   GPU 0: CUDA-graph decode test -> cold-start `leap sft` of Qwen2.5-Coder-0.5B-Instruct on the carried
#          verified pairs (.sftdata/sft.jsonl, from `leap tasks generate --with-solutions`) -> `leap train`
#          from it (leg 1 stopped by SIGTERM, leg 2 resumed to step 10) -> `leap eval` of the RL checkpoint
#   (FULL=1 adds what session 2 measured; see `full` below)
# Before: build the SFT pairs here (CPU, ~4 min) into .sftdata/ (listed in .git/info/exclude):
#   TRITON_INTERPRET=1 leap tasks generate --n 240 --seed 7 --out /tmp/sftgen --with-solutions
#   mkdir -p .sftdata && cp /tmp/sftgen/sft.jsonl .sftdata/
# and split the GGUF (`leap models fetch` verifies its sha256) into 8 pieces: split -d -a 1 -b 60M qwen.gguf piece.
# Calls (each one `run`; the GGUF travels as 8 pieces of 60 MiB, one per call, in .stage/):
#   bash scripts/gpu_session.sh start     # carry .whl and .sftdata: set up, launch both chains
#   bash scripts/gpu_session.sh piece     # carry .stage (next piece); the 8th assembles, checks, converts
#   bash scripts/gpu_session.sh wait 540  # keep the machine busy; progress; results packed into $OUT
# Without the model, in one call (carry .whl): bash scripts/gpu_session.sh sandbox  # compile-pass test +
#   throughput (pool with/without the compile pass, 8/default workers, naive baseline) into $OUT
set -u
W=/tmp/leap_gpu
SHA=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
NPIECES=8

stage() {  # stage NAME SECONDS CMD... (log lines for progress; output to $W/out/NAME.log)
  local name=$1 secs=$2; shift 2; local t0=$SECONDS
  echo "=== $name start $(date -u +%H:%M:%S) (limit ${secs}s)"
  timeout -s TERM -k 20 "$secs" "$@" > "$W/out/$name.log" 2>&1; local rc=$?
  echo "=== $name rc=$rc in $((SECONDS - t0))s"
  tail -4 "$W/out/$name.log" | cut -c1-300
}

env_here() {  # in $W/repo: carried wheels + LEAP itself
  cd "$W/repo" || exit 1
  source scripts/gpu_env.sh > /dev/null 2>&1
  export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
}

wait_model() {  # wait up to $1 s for the converted model
  local t=0
  while [ ! -f "$W/qwen05/.ready" ] && [ "$t" -lt "$1" ]; do sleep 5; t=$((t + 5)); done
  [ -f "$W/qwen05/.ready" ]
}

# FULL=1 also re-runs what session 2 (2026-11-30) measured: generation bench, base-model eval, naive
# baseline, audit, timing repeatability, torch.compile reference timings.
full() { [ "${FULL:-0}" = 1 ]; }

eval_ckpt() {  # eval_ckpt NAME CHECKPOINT_ROOT SECONDS: the policy a run produced, on builtin:eval
  stage "eval_$1" "$3" leap eval --model "$W/qwen05" --checkpoint "$2" --backend hf --cache static \
    --tasks builtin:eval --samples 4 --turns 3 --tasks-per-batch 20 --device cuda --out "$W/out/eval_$1"
}

gpu1() {
  env_here; export CUDA_VISIBLE_DEVICES=1
  throughput "$W/out"  # first, while GPU 0 waits for the model (the host's cores are quiet)
  stage gpu_sandbox_tests 300 python3 -m pytest -q -s -p no:cacheprovider -m gpu --timeout 120 -rfE \
    tests/gpu/test_compile_pass_gpu.py tests/gpu/test_judge_gpu.py tests/gpu/test_cuda_ipc_gpu.py \
    tests/gpu/test_sandbox_gpu.py -k "not cupy and not rlimit"
  if full && wait_model 240; then
    stage eval_qwen05 480 leap eval --model "$W/qwen05" --backend hf --cache static --tasks builtin:eval \
      --samples 4 --turns 3 --tasks-per-batch 20 --device cuda --out "$W/out/eval_qwen05"
  fi
  local t=0  # Acc@turn after SFT (the SFT checkpoint appears ~1 min after the model)
  while [ ! -f "$W/out/sft_qwen05/checkpoints/latest" ] && [ "$t" -lt 300 ]; do sleep 5; t=$((t + 5)); done
  [ -f "$W/out/sft_qwen05/checkpoints/latest" ] && eval_ckpt qwen05_sft "$W/out/sft_qwen05/checkpoints" 420
  stage throughput_repeat 150 python3 bench/sandbox_throughput.py --device cuda --mode repeat --repeats 5 \
    --n-inline 0 --results "$W/out/tp_repeat.json" --out "$W/out/tp_repeat.md"
  full && stage audit 330 leap sandbox audit --device cuda --timeout 30 --compile-timeout 150 \
    --out "$W/out/AUDIT_GPU_FULL.md"
  stage gpu_other_tests 300 python3 -m pytest -q -s -p no:cacheprovider -m gpu --timeout 120 -rfE tests/gpu \
    --ignore tests/gpu/test_sandbox_gpu.py --ignore tests/gpu/test_cuda_ipc_gpu.py --ignore tests/gpu/test_judge_gpu.py \
    --ignore tests/gpu/test_fastgen_gpu.py --ignore tests/gpu/test_train_gpu.py --ignore tests/gpu/test_compile_pass_gpu.py
  touch "$W/out/gpu1.done"
}

gpu0() {
  env_here; export CUDA_VISIBLE_DEVICES=0
  full && stage generation_bench 150 python3 bench/generation.py --out "$W/out/GENERATION_BENCH.md"
  stage fastgen_test 90 python3 -m pytest -q -s -p no:cacheprovider -m gpu --timeout 80 tests/gpu/test_fastgen_gpu.py
  if wait_model 400; then
    if [ -f .sftdata/sft.jsonl ]; then  # cold start: LoRA SFT on sandbox-verified pairs, RL starts from it
      stage sft_qwen05 240 leap sft --config configs/qwen05b_h200.yaml --data .sftdata/sft.jsonl \
        "model.path=$W/qwen05" sft.epochs=1 optim.lr=5e-5 optim.micro_batch_size=8 optim.grad_accumulation=2 \
        optim.warmup_steps=2 "logging.dir=$W/out/sft_qwen05" "checkpoint.dir=$W/out/sft_qwen05/checkpoints" \
        checkpoint.every=0 logging.progress=false
      [ -f "$W/out/sft_qwen05/checkpoints/latest" ] && export EXTRA="model.init_from=$W/out/sft_qwen05/checkpoints"
    fi
    export OUT="$W/out/train_qwen05" STEPS=10 LEG1_S=${LEG1_S:-200} LEG2_S=${LEG2_S:-540} TASKS=2 NEW_TOKENS=1024
    stage train_qwen05 1000 bash scripts/train_qwen05b_h200.sh "$W/qwen05"
    unset OUT
    [ -f "$W/out/train_qwen05/checkpoints/latest" ] && eval_ckpt qwen05_rl "$W/out/train_qwen05/checkpoints" 480
  fi
  if full; then
    stage repeatability 90 python3 bench/timing_repeatability.py --json "$W/out/repeatability.json" \
      --out "$W/out/TIMING_REPEATABILITY.md"
    for i in 0 1 2 3; do
      stage "ref_compile_$i" 500 python3 bench/reference_timings.py --device cuda --compile --shard "$i/4" \
        --lock "$W/gpu0.lock" --json "$W/out/ref_compile_$i.json" --out "$W/out/ref_compile_$i.md" &
    done
    wait
    python3 bench/reference_timings.py --merge "$W"/out/ref_compile_*.json \
      --out "$W/out/REFERENCE_TIMINGS_COMPILE.md" > "$W/out/ref_merge.log" 2>&1
  fi
  touch "$W/out/gpu0.done"
}

throughput() {  # throughput DIR: the pool with and without the compile pass, and the naive baseline, here
  local o=$1 tp="python3 bench/sandbox_throughput.py --device cuda --n 40 --n-inline 0"
  stage tp_pool 150 $tp --mode pool --results "$o/tp_pool.json" --out "$o/tp_pool.md"
  stage tp_naive 200 $tp --mode naive --n 12 --results "$o/tp_naive.json" --out "$o/tp_naive.md"
  stage tp_pool_8 150 $tp --mode pool --workers 8 --results "$o/tp_pool_8.json" --out "$o/tp_pool_8.md"
  stage tp_nopass_8 150 $tp --mode pool --workers 8 --no-compile-pass --results "$o/tp_nopass_8.json" --out "$o/tp_nopass_8.md"
}

assemble() {
  env_here
  cat $(for i in $(seq 0 $((NPIECES - 1))); do echo /tmp/stage/piece.$i; done) > "$W/qwen.gguf"
  echo "$SHA  $W/qwen.gguf" | sha256sum -c - || exit 1
  leap models fetch qwen2.5-coder-0.5b-instruct --out "$W/qwen05" --gguf "$W/qwen.gguf" && touch "$W/qwen05/.ready"
  ls -la "$W/qwen05"
}

pack() {
  [ -n "${OUT:-}" ] || return 0
  tar czf "$OUT/results.tgz" --exclude='*.pt' --exclude='*.safetensors' --exclude=tb -C "$W" out 2>/dev/null
  cp "$W"/out/gpu0.log "$W"/out/gpu1.log "$OUT/" 2>/dev/null
}

progress() {
  date -u +%H:%M:%S; ls /tmp/stage 2>/dev/null | tr '\n' ' '; echo
  for g in gpu0 gpu1 assemble; do echo "--- $g"; grep -E "^===|rc=" "$W/out/$g.log" 2>/dev/null | tail -6; done
  nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv,noheader 2>/dev/null
}

case "${1:-}" in
  start)
    rm -rf "$W"; mkdir -p "$W/out" "$W/repo" /tmp/stage
    tar --exclude=./.stage --exclude=./.git -cf - . | (cd "$W/repo" && tar xf -)
    cp .stage/piece.* /tmp/stage/ 2>/dev/null
    (cd "$W/repo" && source scripts/gpu_env.sh) 2>&1 | tail -2
    setsid nohup bash "$W/repo/scripts/gpu_session.sh" gpu1 > "$W/out/gpu1.log" 2>&1 < /dev/null &
    setsid nohup bash "$W/repo/scripts/gpu_session.sh" gpu0 > "$W/out/gpu0.log" 2>&1 < /dev/null &
    sleep 2; progress ;;
  piece)
    cp .stage/piece.* /tmp/stage/; ls /tmp/stage | wc -l; sha256sum .stage/piece.* | cut -c1-16
    if [ "$(ls /tmp/stage | wc -l)" -ge "$NPIECES" ] && [ ! -f "$W/assemble.started" ]; then
      touch "$W/assemble.started"
      setsid nohup bash "$W/repo/scripts/gpu_session.sh" assemble > "$W/out/assemble.log" 2>&1 < /dev/null &
    fi
    progress ;;
  wait)
    end=$((SECONDS + ${2:-540}))
    while [ $SECONDS -lt $end ] && ! { [ -f "$W/out/gpu0.done" ] && [ -f "$W/out/gpu1.done" ]; }; do sleep 15; done
    progress; pack ;;
  sandbox)  # one foreground call, no model: throughput variants + the compile-pass GPU test, into $OUT
    mkdir -p "$W/out"; source scripts/gpu_env.sh > "$W/out/env.log" 2>&1; tail -1 "$W/out/env.log"
    stage compile_pass_test 120 python3 -m pytest -q -s -p no:cacheprovider -m gpu --timeout 100 -rfE \
      tests/gpu/test_compile_pass_gpu.py
    throughput "$OUT"
    cp "$W"/out/*.log "$OUT/" ;;
  gpu0) gpu0 ;;
  gpu1) gpu1 ;;
  assemble) assemble ;;
  *) echo "usage: $0 start|piece|wait SECONDS"; exit 2 ;;
esac
