#!/usr/bin/env bash
# KernelBench level 1 with KernelBench's one-shot prompt: `leap eval` of a base model, Triton then CUDA.
#
#   bash scripts/kb_eval_gpu.sh MODEL_DIR LEVEL_DIR [LIMIT] [OUT_ROOT]
#
# MODEL_DIR: a transformers folder (e.g. Qwen2.5-Coder-1.5B-Instruct); LEVEL_DIR: a folder of unmodified
# KernelBench problem files (e.g. .kb/KernelBench/level1, an ignored folder: never commit KernelBench files);
# LIMIT: first N problems (default 100 = all of level 1); OUT_ROOT: default runs/kb_l1.
# Set KB_ROOT to a KernelBench checkout (holding src/kernelbench/prompts/prompts.toml) to use KernelBench's
# own prompt text; without it LEAP's wording in the same structure is used (summary.json records which).
# 1 sample, 1 turn, greedy (temperature 0), KB_TOKENS new tokens (default 2048). Results are written after
# every KB_BATCH problems (default 25), so a backend stopped at its time limit (KB_TIME, default 1200 s)
# keeps what it did; up to 3 tries per backend resume from there. Estimated on an H200 (16 cores):
# Triton ~8 min, CUDA ~20 min (each cuda_inline build ~60 s, 8 at a time).
# Writes OUT_ROOT/{triton,cuda}/{eval_results.json,summary.json,results.jsonl,report.md}.
set -uo pipefail
MODEL=${1:?model folder}
LEVEL=${2:?KernelBench level folder}
LIMIT=${3:-100}
OUT=${4:-runs/kb_l1}
KB_TIME=${KB_TIME:-1200}
KB_BATCH=${KB_BATCH:-25}
KB_TOKENS=${KB_TOKENS:-2048}
ROOT_OPT=()
if [ -n "${KB_ROOT:-}" ]; then ROOT_OPT=(--kernelbench-root "$KB_ROOT"); fi
cd "$(dirname "$0")/.."
final() { python3 -c "import json,sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(l).get('final')))" \
  "$1/results.jsonl" 2>/dev/null || echo 0; }
for pair in triton:triton cuda:cuda_inline; do
  name=${pair%%:*}; kernel=${pair##*:}
  for try in 1 2 3; do
    [ "$(final "$OUT/$name")" -ge "$LIMIT" ] && [ -f "$OUT/$name/summary.json" ] && break
    echo "== $name ($kernel) on $LEVEL, limit $LIMIT, try $try -> $OUT/$name"
    timeout -k 30 "$KB_TIME" python3 -m leap.cli.main eval --model "$MODEL" --backend hf --tasks "$LEVEL" \
      --limit "$LIMIT" --samples 1 --turns 1 --max-new-tokens "$KB_TOKENS" --temperature 0 --kernel "$kernel" \
      --prompt kernelbench "${ROOT_OPT[@]}" --device cuda --cache static --tasks-per-batch "$KB_BATCH" \
      --out "$OUT/$name"
    echo "rc=$? ($name): $(final "$OUT/$name")/$LIMIT problems final"
  done
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(json.dumps(s.get('kernelbench'), indent=1)); print(s.get('environment'))" "$OUT/$name/summary.json" || true
done
