#!/usr/bin/env bash
# Issue 13's GPU session: ONE lease of one H200 (kind nvidia-h200), ~22 min of work after the model is built.
# Everything runs in background process sessions (setsid) under /tmp/leap15, outside the repository (the
# working tree is re-copied on every call); short `status` / `wait` calls poll it and pack results into $OUT.
#
# Before (here, on the CPU):
#   * split the 1.5B GGUF (1,117,320,768 bytes, sha256 cc324af0...) into pieces, e.g.
#       split -b 55000000 model.gguf piece.     # piece.aa, piece.ab, ... (sorted names = file order)
#     or `leap models stage-split model.gguf --out STAGE --chunk-mb 52` (manifest.json + parts).
#   * .whl/ (see scripts/gpu_env.sh) and the cold-start SFT pairs in .sftdata/sft.jsonl, e.g.
#       TRITON_INTERPRET=1 leap tasks generate --n 240 --seed 7 --out /tmp/sftgen --with-solutions
#       mkdir -p .sftdata && cp /tmp/sftgen/sft.jsonl .sftdata/
# Calls (each one `run`, kind nvidia-h200, back to back so the machine stays warm):
#   bash scripts/gpu_session.sh piece    # carry .gguf_pieces (one or more pieces): stashed in /tmp/leap15/pieces;
#                                        #   the call that completes the bytes starts the assembly
#   bash scripts/gpu_session.sh start    # carry .whl .sftdata: set up, launch the chains (they wait for the model)
#   bash scripts/gpu_session.sh status   # progress only (a few seconds)
#   bash scripts/gpu_session.sh wait 540 # poll up to 540 s (returns early when all is done); packs $OUT
# `start` may come before, between or after the pieces; `piece` and `start` both stash .gguf_pieces/*.
#
# Work, once the model is ready (every stage under a hard `timeout`; SIGTERM makes sft/train checkpoint):
#   data:    leap sft-data templates (varied verified templates + repairs) + the carried .sftdata/sft.jsonl
#   chain A: train_step bench (old vs new generation settings, 2 groups; new at 16 groups) -> generation bench
#            (1.5B shape, static/graph at batch 16/128: the ceiling) -> leap sft on the
#            cold-start pairs -> leap train (LEAP, from the SFT adapter, rollouts/step-N.jsonl) -> eval after RL
#   chain B: (after the bench, so its timings are clean) eval of the base model -> pass rates of the SFT'd
#            model on the train tasks (histogram + expert-iteration harvest) -> eval after SFT
#   Stages after the bench share the GPU: their step times are upper bounds.
# Results: $OUT/results.tgz (logs, bench JSON/MD, eval summaries/reports, rollouts, pass rates, harvested
# SFT rows; no weights) and $OUT/status.txt.
set -u
W=${LEAP_GPU_DIR:-/tmp/leap15}
# settings a lease's first call chose (scripts/gpu_lease.sh save_env): every later call of the lease sees them
[ -f "$W/lease.env" ] && . "$W/lease.env"
MODEL=${LEASE_MODEL:-qwen2.5-coder-1.5b-instruct}  # qwen2.5-coder-0.5b-instruct: 9 pieces instead of 19
case $MODEL in *0.5b*) GGUF_BYTES=491400064 ;; *) GGUF_BYTES=1117320768 ;; esac
M=$W/q15
EVAL_S=${EVAL_S:-420}     # one leap eval on builtin:eval (20 tasks x 4 samples x EVAL_TURNS turns); 2026-12-05 on an
EVAL_TURNS=${EVAL_TURNS:-3}  # H100: 3 turns did not finish in 270 s alone; 1 turn took 148 s beside another eval
SFT_S=${SFT_S:-240}
SFT_EPOCHS=${SFT_EPOCHS:-1}  # 2026-12-05: the second epoch drove the loss to 0.04 and its step 30 overflowed
RL_S=${RL_S:-420}
RL_STEPS=${RL_STEPS:-8}
LEARN=${LEARN:-0}         # 1 (`gpu_lease.sh learn`): no benches, no base eval, no pass rates; eval after SFT beside RL;
                          # the SFT and RL checkpoints come back slimmed (bf16, 15 MB pieces) for the next lease
RL_SET=${RL_SET:-}        # extra `leap train` overrides for the RL stage, space-separated

log() { echo "$(date -u +%H:%M:%S) $*"; }

stage() {  # stage NAME SECONDS CMD...: logs to $W/out/logs/NAME.log; never stops the chain
  local name=$1 secs=$2; shift 2; local t0=$SECONDS
  log "=== $name start (limit ${secs}s)"
  timeout -s TERM -k 60 "$secs" "$@" > "$W/out/logs/$name.log" 2>&1; local rc=$?
  log "=== $name rc=$rc in $((SECONDS - t0))s"
  tail -3 "$W/out/logs/$name.log" | cut -c1-240
  return 0
}

env_here() {  # the carried wheels were installed by `start` (scripts/gpu_env.sh); LEAP runs from src/
  cd "$W/repo" || exit 1
  export PYTHONPATH=$W/repo/src:/tmp/site PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false NCCL_NVLS_ENABLE=0
  mkdir -p "$W/bin"  # a `leap` executable (stages run under `timeout`, which needs a program)
  printf '#!/bin/sh\nexec python3 -m leap.cli.main "$@"\n' > "$W/bin/leap" && chmod +x "$W/bin/leap"
  export PATH=$W/bin:$PATH
}

stash() {  # copy carried pieces out of the repository (the next call replaces the carried folder)
  mkdir -p "$W/pieces" "$W/out/logs" "$W/ck_in"
  if [ -d .ckpt_in ] && [ ! -f "$W/ck_in/.done" ]; then  # slim checkpoints a learn lease returned (ck_NAME.tar.part-*)
    for c in sft rl_leap; do
      ls .ckpt_in/ck_$c.tar.part-* >/dev/null 2>&1 && cat .ckpt_in/ck_$c.tar.part-* | tar xf - -C "$W/ck_in" \
        && echo "checkpoint carried in: $c"
    done
    touch "$W/ck_in/.done"
  fi
  if [ -d .gguf_pieces ]; then
    for f in .gguf_pieces/*; do [ -f "$f" ] && cp -f "$f" "$W/pieces/"; done
  fi
  local have; have=$(find "$W/pieces" -maxdepth 1 -type f ! -name manifest.json -printf '%s\n' | awk '{s+=$1} END {print s+0}')
  echo "pieces: $(ls "$W/pieces" | wc -l) files, $have of $GGUF_BYTES bytes"
  if [ "$have" -ge "$GGUF_BYTES" ] && [ ! -f "$W/assemble.started" ] && [ -d "$W/repo" ]; then
    touch "$W/assemble.started"
    setsid nohup bash "$W/repo/scripts/gpu_session.sh" assemble > "$W/out/logs/assemble_chain.log" 2>&1 < /dev/null &
    echo "assembly started"
  fi
}

assemble() {  # pieces -> checked GGUF -> bf16 transformers folder (~75 s)
  env_here
  stage fetch_model 600 leap models fetch "$MODEL" --pieces "$W/pieces" --out "$M"
  if [ -f "$M/config.json" ]; then touch "$M/.ready"; rm -rf "$W/.q15.work" "$W/pieces"; fi
}

wait_for() {  # wait_for FILE SECONDS
  local t=0
  while [ ! -e "$1" ] && [ "$t" -lt "$2" ]; do sleep 5; t=$((t + 5)); done
  [ -e "$1" ]
}

eval_stage() {  # eval_stage NAME [--checkpoint DIR]
  local name=$1; shift
  LEAP_DECODE_TRACE=$W/out/decode_$name.jsonl stage "$name" "$EVAL_S" leap eval --model "$M" "$@" --backend hf --cache graph --tasks builtin:eval --samples 4 \
    --turns "$EVAL_TURNS" --tasks-per-batch 20 --max-new-tokens 1024 --temperature 0.7 --device cuda --out "$W/out/$name"
}

chain_a() {
  env_here
  wait_for "$M/.ready" 900 || { log "no model"; touch "$W/out/A.done" "$W/out/bench.done"; return; }
  mkdir -p "$W/out/bench"
  [ "$LEARN" = 1 ] || bench
  touch "$W/out/bench.done"
  wait_for "$W/out/data.done" 240
  local sft=$W/sft_all.jsonl init=()
  [ -s "$sft" ] || sft=.sftdata/sft.jsonl
  if [ -f "$W/ck_in/sft/state.json" ]; then
    log "SFT checkpoint carried in: no SFT here"; mkdir -p "$W/ck" && cp -r "$W/ck_in/sft" "$W/ck/sft_in"
    init=("model.init_from=$W/ck/sft_in")
  elif [ "${LEARN_SFT:-1}" = 0 ]; then  # 2026-12-05: the template-SFT'd 1.5B did worse on eval than the base
    log "LEARN_SFT=0: RL starts from the base model"
  elif [ -s "$sft" ]; then
    stage sft "$SFT_S" leap sft --config configs/qwen15b_h200.yaml --data "$sft" "model.path=$M" "sft.epochs=${SFT_EPOCHS:-1}" \
      sft.max_length=3072 optim.lr=1e-4 optim.micro_batch_size=8 optim.grad_accumulation=2 optim.warmup_steps=3 \
      "logging.dir=$W/out/sft" "checkpoint.dir=$W/ck/sft" checkpoint.every=20 logging.progress=false
  else
    log "no SFT data: RL starts from the base model"
  fi
  [ -f "$W/ck/sft/latest" ] && init=("model.init_from=$W/ck/sft")
  [ -f "$W/ck_in/rl_leap/state.json" ] && init=("model.init_from=$W/ck_in/rl_leap")  # RL continued from a lease
  touch "$W/out/sft.done"
  [ -f "$W/out/P.started" ] && wait_for "$W/out/P.done" 420  # the learn lease's benches (quiet GPU) end first
  # time_budget_s: the trainer stops after the last step that ends in time (2026-12-05: the stage's kill cut a
  # 200 s step short and its GPU time was lost); 60 s of the stage are the model's load and the sandbox's start
  # shellcheck disable=SC2086
  LEAP_DECODE_TRACE=$W/out/decode_rl_leap.jsonl stage rl_leap "$RL_S" leap train --config configs/qwen15b_h200.yaml "model.path=$M" "${init[@]}" "steps=$RL_STEPS" \
    "time_budget_s=$((RL_S - 60))" \
    "logging.dir=$W/out/rl_leap" "checkpoint.dir=$W/ck/rl_leap" checkpoint.every="${RL_CKPT_EVERY:-0}" \
    logging.progress=false $RL_SET
  grep -E "^step [0-9]+:" "$W/out/logs/rl_leap.log" | tail -10
  # what the RL started from, evaluated after the RL, not beside it (side by side with the RL on 2026-12-05 the
  # eval never finished and RL steps took 210 s); LEARN_EVAL_PAR=1: the two evals side by side (same settings,
  # one GPU: each one's speedups are measured on a shared GPU, its accuracy is not affected)
  local before=eval_sft pre=()
  if [ "$LEARN" = 1 ] && [ -f "$W/ck/sft/latest" ]; then
    pre=(eval_sft --checkpoint "$W/ck/sft")
  elif [ "$LEARN" = 1 ] && { [ ${#init[@]} -eq 0 ] || [ "${LEARN_SFT:-1}" = 0 ]; }; then  # RL from the base
    before=eval_base; pre=(eval_base)  # (also when it continues a carried RL checkpoint)
  fi
  if [ ${#pre[@]} -gt 0 ] && [ "${LEARN_EVAL_PAR:-0}" = 1 ] && [ -f "$W/ck/rl_leap/latest" ]; then
    eval_stage "${pre[@]}" & sleep 20
    eval_stage eval_rl --checkpoint "$W/ck/rl_leap"; wait
  else
    [ ${#pre[@]} -gt 0 ] && eval_stage "${pre[@]}"
    [ -f "$W/ck/rl_leap/latest" ] && eval_stage eval_rl --checkpoint "$W/ck/rl_leap"
  fi
  wait_for "$W/out/B.done" 300  # the eval after SFT (chain B) may still run
  [ -s "$W/out/$before/results.jsonl" ] && [ -s "$W/out/eval_rl/results.jsonl" ] && stage compare 120 \
    leap compare "$W/out/$before" "$W/out/eval_rl" --out "$W/out/compare_${before#eval_}_rl"
  touch "$W/out/A.done"
}

bench() {  # the step-time bench (old vs new generation settings) and the generation ceiling, on a quiet GPU
  stage train_step_bench 480 python3 bench/train_step.py --config configs/qwen15b_h200.yaml --set "model.path=$M" \
    --no-warmup --variants new:2,old:2,new:16 --out "$W/out/bench/train_step.json"
  # the same GPU's static-cache/graph ceiling at the step's batch (random weights, the 1.5B shape)
  stage generation_bench_15b 150 python3 bench/generation.py --shape 1.5b --batches 16,128 --paths static,graph \
    --prompt 1024 --new 256 --out "$W/out/bench/GENERATION_BENCH_15B.md"
}

chain_b() {
  env_here
  wait_for "$W/out/bench.done" 1500
  [ -f "$M/.ready" ] || { touch "$W/out/B.done"; return; }
  [ "$LEARN" = 1 ] || eval_stage eval_base
  wait_for "$W/out/sft.done" 900
  local ck=()
  [ -f "$W/ck/sft/latest" ] && ck=(--checkpoint "$W/ck/sft")
  if [ "$LEARN" = 1 ]; then  # chain A evaluates the SFT policy after RL (a carried SFT was measured before)
    touch "$W/out/B.done"; return
  fi
  stage passrate_sft 300 leap eval --model "$M" "${ck[@]}" --backend hf --cache graph --tasks builtin:train \
    --samples 8 --turns 1 --tasks-per-batch 31 --max-new-tokens 1024 --temperature 1.0 --device cuda \
    --out "$W/out/passrate_sft"
  stage passrate_hist 60 leap sft-data pass-rates "$W/out/passrate_sft" --out "$W/out/passrate_sft/pass_rates.json" \
    --title "SFT'd 1.5B on builtin:train, 8 samples"
  stage harvest 60 leap sft-data harvest "$W/out/passrate_sft" --tasks builtin:train --out "$W/out/harvest_sft.jsonl"
  [ ${#ck[@]} -gt 0 ] && eval_stage eval_sft "${ck[@]}"
  touch "$W/out/B.done"
}

prepare_data() {  # SFT pairs: the carried .sftdata/sft.jsonl (or generated tasks' templates built here) plus
  env_here         # the varied templates + verified repairs of the train tasks, all verified on this GPU
  if [ -s .sftdata/templates.jsonl ]; then  # made and verified before the lease (leap sft-data templates)
    cp .sftdata/templates.jsonl "$W/templates.jsonl"
  else stage sft_templates 200 leap sft-data templates --tasks builtin:train --variants 6 --repairs 2 --device cuda \
    --out "$W/templates.jsonl" --stats "$W/out/sft_templates_stats.md"
  fi
  if [ ! -f .sftdata/sft.jsonl ]; then
    stage sft_data 200 leap tasks generate --n 160 --seed 7 --out "$W/sftgen" --with-solutions --device cuda
  fi
  cat .sftdata/sft.jsonl "$W/sftgen/sft.jsonl" "$W/templates.jsonl" 2>/dev/null > "$W/sft_all.jsonl"
  wc -l "$W/sft_all.jsonl"
  touch "$W/out/data.done"
}

status() {
  date -u +%H:%M:%S
  [ -f "$M/.ready" ] && echo "model: ready" || echo "model: not ready"
  for c in assemble_chain data A B; do
    [ -f "$W/out/logs/$c.log" ] || continue
    echo "--- $c$([ -f "$W/out/${c}.done" ] && echo ' (done)')"
    grep -E "^[0-9:]+ ===|^step [0-9]+:|acc_at_turn|wrote|rows|tasks," "$W/out/logs/$c.log" | tail -8 | cut -c1-240
  done
  local running; running=$(ls -t "$W"/out/logs/*.log 2>/dev/null | head -1)
  [ -n "$running" ] && { echo "--- newest log: $(basename "$running")"; tail -2 "$running" | cut -c1-240; }
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader 2>/dev/null
}

pack() {
  [ -n "${OUT:-}" ] && [ -d "$W/out" ] || return 0
  status > "$W/out/status.txt" 2>&1
  cp "$W/out/status.txt" "$OUT/status.txt"
  tar czf "$OUT/results.tgz" --exclude='*.pt' --exclude='*.safetensors' --exclude='*.bin' -C "$W" out 2>/dev/null
  [ "$LEARN" = 1 ] && for c in sft rl_leap; do  # trained weights back in pieces a call can carry (<= 16 MiB each)
    [ -f "$W/ck/$c/latest" ] || continue
    rm -rf "$W/slim/$c" && PYTHONPATH=$W/repo/src:/tmp/site python3 -c "import sys; from leap.trainer.checkpoint import slim_checkpoint as s; \
s(sys.argv[1], sys.argv[2])" "$W/ck/$c" "$W/slim/$c" && tar cf - -C "$W/slim" "$c" | split -b 15M - "$OUT/ck_$c.tar.part-"
  done
  ls -la "$OUT"
}

case "${1:-}" in
  piece) stash ;;
  start)
    if [ ! -d "$W/repo" ]; then
      mkdir -p "$W/repo" "$W/out/logs" "$W/ck"
      tar --exclude=./.gguf_pieces --exclude=./.git -cf - . | (cd "$W/repo" && tar xf -)
      (cd "$W/repo" && source scripts/gpu_env.sh) > "$W/out/logs/env.log" 2>&1; tail -2 "$W/out/logs/env.log"
      setsid nohup bash "$W/repo/scripts/gpu_session.sh" data > "$W/out/logs/data.log" 2>&1 < /dev/null &
      setsid nohup bash "$W/repo/scripts/gpu_session.sh" A > "$W/out/logs/A.log" 2>&1 < /dev/null &
      setsid nohup bash "$W/repo/scripts/gpu_session.sh" B > "$W/out/logs/B.log" 2>&1 < /dev/null &
    else
      echo "already started"
    fi
    stash; sleep 1; status ;;
  status) status ;;
  wait)
    end=$((SECONDS + ${2:-540}))
    while [ $SECONDS -lt $end ] && ! { [ -f "$W/out/A.done" ] && [ -f "$W/out/B.done" ]; }; do sleep 10; done
    status; pack ;;
  pack) pack ;;
  assemble) assemble ;;
  data) prepare_data ;;
  A) chain_a ;;
  B) chain_b ;;
  *) echo "usage: $0 piece|start|status|wait SECONDS|pack"; exit 2 ;;
esac
