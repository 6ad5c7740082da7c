#!/usr/bin/env bash
# LEAP with Qwen2.5-Coder-0.5B-Instruct on one H200: >= 10 steps with metrics and checkpoints, a stop by
# SIGTERM part-way (checkpoint on the signal), then a resume to step 10; prints the run summary.
#   source scripts/gpu_env.sh && bash scripts/train_qwen05b_h200.sh /path/to/Qwen2.5-Coder-0.5B-Instruct[.gguf]
# Each leg stays under the device tool's 10-minute limit (timeout sends SIGTERM; the step finishes first).
set -u
MODEL=${1:?model path (HF dir or .gguf)}
OUT=${OUT:-runs/qwen05b_h200}
STEPS=${STEPS:-10}
LEG1_S=${LEG1_S:-${LEG_S:-420}}   # leg 1 is stopped by SIGTERM after this many seconds
LEG2_S=${LEG2_S:-${LEG_S:-420}}
ARGS=(--config configs/qwen05b_h200.yaml "model.path=$MODEL" "steps=$STEPS" "checkpoint.every=2"
      "logging.dir=$OUT" "checkpoint.dir=$OUT/checkpoints" "logging.progress=false"
      "rollout.tasks_per_step=${TASKS:-4}" "rollout.sampling.max_new_tokens=${NEW_TOKENS:-768}"
      "rollout.generation_batch_size=16" ${EXTRA:-})  # EXTRA: more overrides, e.g. model.init_from=SFT_CKPT
rm -rf "$OUT"
timeout -s TERM -k 120 "$LEG1_S" leap train "${ARGS[@]}"; echo "leg 1 exit $?"
echo "checkpoint after leg 1: $(cat "$OUT/checkpoints/latest" 2>/dev/null)"
timeout -s TERM -k 120 "$LEG2_S" leap train "${ARGS[@]}" --resume "$OUT/checkpoints"; echo "leg 2 exit $?"
python -m leap.trainer.report "$OUT/metrics.jsonl" | tee "$OUT/summary.md"
ls "$OUT/checkpoints"
