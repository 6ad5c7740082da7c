#!/usr/bin/env bash
# One lease of one H200 for everything GPU in a session: scripts/gpu_session.sh's model chains (1.5B
# train-step bench, SFT, LEAP RL, evals) plus a sandbox chain and a KernelBench chain, all under /tmp/leap15.
# Keep the calls back to back: the device tool gives a machine back after ~30 s without a call, and the
# background chains die with it (2026-12-04 18:36 UTC: a loaded pass lost that way). Issue the `wait`
# calls in the same message as the last `piece` call.
#   bash scripts/gpu_lease.sh start      # carry .whl .sftdata .kb: snapshot the repo, launch every chain
#   bash scripts/gpu_lease.sh piece      # carry .gguf_pieces (one piece a call; the last one starts the build)
#   bash scripts/gpu_lease.sh wait SECS  # poll; pack results into $OUT (results.tgz + lease.tgz)
#   bash scripts/gpu_lease.sh sandbox    # instead of start: the sandbox chain alone, quiet GPU (carry .whl)
#   bash scripts/gpu_lease.sh bigwhl     # carry .bigwhl: parts of a wheel over one call's 64 MiB (ray), see bigwhl()
#   bash scripts/gpu_lease.sh learn      # instead of start: issue 13's SFT -> RL -> evals alone (carry .whl .sftdata
#                                        # [.ckpt_in]), then the `piece` calls; see learn) below; LEARN_SFT=0: RL from
#                                        # the base model, evaluated beside the RL policy after the RL
#   bash scripts/gpu_lease.sh kb         # instead of start: a lease for the KernelBench chain alone (carry .whl .kb)
#   LEASE_MODEL=qwen2.5-coder-0.5b-instruct bash scripts/gpu_lease.sh loaded  # carry .whl; then `piece` calls:
#                                        # the sandbox chain (every gpu test, audit) while the real model's
#                                        # `leap eval` generates on the same GPU (the shared-GPU run)
#   LOADED_KB=1 KB_KERNELS=triton bash scripts/gpu_lease.sh loaded  # carry .whl .kb; 21 `piece` calls: the same,
#                                        # the 1.5B's load being KernelBench level 1 first (issue 14's run);
#                                        # LOADED_TP=1: the throughput bench first, on the quiet GPU (no demo test)
# Sandbox chain: throughput bench and audit first (a quiet GPU while the model travels), then every
# gpu-marked test while the model chains generate on the same GPU (the shared-GPU run).
# KernelBench chain: once the model is built and the train-step bench is done (`kb`: as soon as the model is
# built), the base 1.5B on KernelBench level 1 (.kb/KernelBench/level1, an unmodified checkout) with the
# Triton and the CUDA prompt (`--kernel cuda_inline`), side by side (KB_PARALLEL=0: one after the other),
# KernelBench's rules (`--rules kernelbench`, LEAP's strict verdict beside), 1 greedy sample, 1 turn, in batches
# of KB_BATCH problems with up to 3 resuming tries each. Estimated (not
# yet measured) on an H200 with 16 cores: Triton ~8 min (4 batches: ~1 min generation + verification each),
# CUDA ~20 min (4 batches: ~1 min generation + ~25 cuda_inline builds at ~60 s, 8 at a time), so ~20 min
# side by side, plus ~5 min to carry and build the model (21 piece calls, 115 s conversion). Results: out/kb_l1_{triton,cuda_inline}/{eval_results.json,
# summary.json,results.jsonl,report.md}.
set -u
W=${LEAP_GPU_DIR:-/tmp/leap15}
M=$W/q15
KB_LIMIT=${KB_LIMIT:-100}      # level-1 problems (all 100)
KB_BATCH=${KB_BATCH:-25}       # problems generated together; results are written after each batch
KB_TOKENS=${KB_TOKENS:-2048}   # new tokens per answer (a CUDA load_inline answer runs to ~1,500)
KB_TRITON_S=${KB_TRITON_S:-900}
KB_CUDA_S=${KB_CUDA_S:-1200}   # cuda_inline builds take ~60 s each, 8 at a time on 16 cores
KB_KERNELS=${KB_KERNELS:-triton cuda_inline}  # one of them alone for a short lease

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

bigwhl() {  # stash carried .bigwhl/NAME.whl.part.* (a wheel too big for one call); when NAME.whl.sha256's
  # parts are all here, assemble, check and install it into /tmp/site, and touch $W/bigwhl/NAME.ok
  mkdir -p "$W/bigwhl"
  [ -d .bigwhl ] && cp -f .bigwhl/* "$W/bigwhl/" 2>/dev/null
  local sum name
  for sum in "$W"/bigwhl/*.sha256; do
    [ -f "$sum" ] || continue
    name=${sum%.sha256}
    [ -f "$name.ok" ] && continue
    cat "$name".part.* > "$name" 2>/dev/null
    if [ "$(sha256sum "$name" | cut -d' ' -f1)" = "$(cat "$sum")" ]; then
      python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site "$name" && touch "$name.ok" \
        && echo "installed $(basename "$name")"
    else
      echo "$(basename "$name"): $(ls "$name".part.* | wc -l) parts so far"; rm -f "$name"
    fi
  done
}

tp() {  # tp MODE SECONDS ARGS...: the throughput bench's 40-candidate batch in MODE, one results file for all modes
  local mode=$1 secs=$2; shift 2
  stage "tp_$mode" "$secs" python3 bench/sandbox_throughput.py --device cuda --n 40 --mode "$mode" "$@" \
    --results "$W/out/sandbox/tp_pool.json" --out "$W/out/sandbox/tp_pool.md"
}

chain_sandbox() {  # SB_TP=0: no throughput bench; SB_INLINE: cuda_inline candidates in its batch; SB_TESTS_S: the test
  # stage's limit; SB_TEST_FILES: these test files (one per line) instead of every file with a gpu test
  env_here
  [ "${SB_TP:-1}" = 0 ] || tp pool 240 --n-inline "${SB_INLINE:-0}"
  [ "${SB_SERVICE:-0}" = 1 ] && tp service 240 --n-inline 0  # the same batch through `leap sandbox serve`
  if [ -n "${SB_RAY_WHL:-}" ] && wait_for "$W/bigwhl/$SB_RAY_WHL.ok" 300; then  # N Ray actors on the GPU
    tp ray 300 --n-inline 0 --actors "${SB_RAY_ACTORS:-2}"
  fi
  nvidia-smi > "$W/out/sandbox/nvidia_smi_before_tests.txt" 2>&1
  # the corpus test's CUDA run writes the audit report too; `leap sandbox audit` runs only when it did not
  export LEAP_AUDIT_OUT="$W/out/sandbox/AUDIT_GPU.md"
  stage gpu_tests "${SB_TESTS_S:-1000}" bash scripts/gpu_lease.sh T
  unset LEAP_AUDIT_OUT
  [ -s "$W/out/sandbox/AUDIT_GPU.md" ] || stage audit 300 leap sandbox audit --device cuda --timeout 30 \
    --compile-timeout 150 --out "$W/out/sandbox/AUDIT_GPU.md"
  python3 scripts/gpu_tests_report.py "$W"/out/sandbox/gpu_tests_*.xml > "$W/out/sandbox/GPU_TESTS.md" 2>&1
  nvidia-smi > "$W/out/sandbox/nvidia_smi_after_tests.txt" 2>&1
  touch "$W/out/S.done"
}

gpu_files() { python3 -m pytest -q -p no:cacheprovider -m gpu --collect-only tests 2>/dev/null | grep '::' | cut -d: -f1 | uniq; }

gpu_pytest() {  # gpu_pytest PART FILES...: one pytest run of gpu-marked tests; failures logged as they happen
  local part=$1; shift
  LEAP_TEST_FAILURE_LOG="$W/out/sandbox/gpu_test_failures.txt" \
    python3 -m pytest -v -p no:cacheprovider -m gpu --timeout 600 -rfEs --durations 20 \
    --junitxml "$W/out/sandbox/gpu_tests_$part.xml" "$@" > "$W/out/logs/gpu_tests_$part.log" 2>&1
}

gpu_tests() {  # every gpu-marked test; a run killed from outside (OS OOM killer...) resumes after the killed file
  local files part=0 rc last
  # the corpus (the GPU audit) first, so a stage cut at its limit keeps it; SB_SKIP: a regex of files left out
  files=${SB_TEST_FILES:-$(gpu_files)}
  files=$( (echo "$files" | grep 'test_corpus.py'; echo "$files" | grep -v 'test_corpus.py') | grep -v -E "${SB_SKIP:-^$}")
  while [ -n "$files" ]; do
    part=$((part + 1))
    # shellcheck disable=SC2086
    gpu_pytest "$part" $files; rc=$?
    echo "part $part: rc=$rc"; tail -1 "$W/out/logs/gpu_tests_$part.log"
    [ "$rc" -ge 128 ] || break  # a normal end (0 passed, 1 failures, ...): done
    last=$(grep -oE '^tests/[^ ]+::[^ ]+' "$W/out/logs/gpu_tests_$part.log" | tail -1)
    echo "part $part killed (signal $((rc - 128))) in: $last"
    files=$(echo "$files" | sed -n "\#^${last%%::*}\$#,\$p" | tail -n +2)
  done
}

chain_loaded() {  # the model generating (`leap eval`, over and over) while the sandbox chain runs beside it
  env_here
  local n=0 k secs all rest
  all=$(gpu_files); rest=$(echo "$all" | grep -v '^tests/integration/test_demo.py$')
  if [ "${LOADED_TP:-0}" = 1 ]; then  # the throughput bench on the quiet GPU while the model is carried, instead of
    mkdir -p "$W/out/sandbox"          # the CUDA demo test (it passed on 2026-12-04 18:28 UTC; no sandbox under test)
    tp pool 240 --n-inline 0
    export SB_TEST_FILES=$rest
  elif [ "$rest" != "$all" ] && [ ! -f "$M/.ready" ]; then  # the CUDA demo (~270 s, no sandbox under test) on the
    mkdir -p "$W/out/sandbox"                             # quiet GPU while the model is carried and built
    echo "$(date -u +%H:%M:%S) === gpu tests part 0 (test_demo.py) start"
    gpu_pytest 0 tests/integration/test_demo.py
    echo "$(date -u +%H:%M:%S) === gpu tests part 0 rc=$?"; tail -1 "$W/out/logs/gpu_tests_0.log"
    export SB_TEST_FILES=$rest
  fi
  wait_for "$M/.ready" 900 || { echo "no model"; touch "$W/out/S.done" "$W/out/L.done"; return; }
  # LOADED_KB=1: the generating model's first work is KernelBench level 1 (KB_KERNELS, one after the other;
  # correctness is what counts there, its speedups are measured on a shared GPU), then the builtin evals
  (if [ -n "${LOADED_KB:-}" ]; then for k in $KB_KERNELS; do
     [ "$k" = triton ] && secs=$KB_TRITON_S || secs=$KB_CUDA_S
     [ -f "$W/out/S.done" ] || kb_eval "$k" "$secs"; done; fi
   while [ ! -f "$W/out/S.done" ]; do n=$((n + 1))
     stage "eval_loaded_$n" 900 leap eval --model "$M" --backend hf --cache static --tasks builtin:eval --samples 4 \
       --turns 3 --tasks-per-batch 20 --max-new-tokens 1024 --temperature 0.7 --device cuda --out "$W/out/eval_loaded_$n"
   done) > "$W/out/logs/L_eval.log" 2>&1 &
  local evals=$!
  sleep "${LOADED_SLEEP:-30}"  # the first generation batch is under way before the tests start
  nvidia-smi > "$W/out/sandbox/nvidia_smi_loaded.txt" 2>&1
  (for t in 5 10 15; do sleep 300; nvidia-smi > "$W/out/sandbox/nvidia_smi_loaded_${t}min.txt" 2>&1; done) &
  SB_TP=0 chain_sandbox
  kill "$evals" 2>/dev/null; pkill -f "leap eval --model $M"; pkill -f "leap.cli.main eval --model $M"
  touch "$W/out/L.done"
}

kb_final() {  # kb_final DIR: how many problems have a final row in DIR/results.jsonl
  python3 -c "import json,sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(l).get('final')))" \
    "$1/results.jsonl" 2>/dev/null || echo 0
}

kb_eval() {  # kb_eval KERNEL SECONDS: the base 1.5B on level 1 with KernelBench's prompt for KERNEL
  local k=$1 secs=$2 out=$W/out/kb_l1_$1 try
  # results.jsonl gets a row set every KB_BATCH problems, so a stage stopped at its limit keeps what it
  # did and the next try resumes (a rerun skips finished problems); the last try only rewrites the summary
  for try in 1 2 3; do
    [ "$(kb_final "$out")" -ge "$KB_LIMIT" ] && [ -f "$out/summary.json" ] && break
    stage "kb_l1_${k}_$try" "$secs" leap eval --model "$M" --backend hf --cache static --tasks .kb/KernelBench/level1 \
      --limit "$KB_LIMIT" --prompt kernelbench --kernelbench-root .kb --kernel "$k" --samples 1 --turns 1 \
      --temperature 0 --max-new-tokens "$KB_TOKENS" --tasks-per-batch "$KB_BATCH" --device cuda --out "$out" \
      --rules kernelbench --sandbox-set "judge_memory_share=${KB_MEM_SHARE:-0.6}"
    echo "kb_l1_$k: $(kb_final "$out")/$KB_LIMIT problems final after try $try"
  done
}

chain_kb() {
  env_here
  # in a full lease the KernelBench evals wait for the clean train-step bench; a `kb` lease runs them alone
  [ -n "${KB_ONLY:-}" ] || wait_for "$W/out/bench.done" 1500
  wait_for "$M/.ready" 900
  [ -f "$M/.ready" ] || { touch "$W/out/K.done"; return; }
  case "$KB_KERNELS" in
    *triton*cuda_inline*|*cuda_inline*triton*)
      if [ "${KB_PARALLEL:-1}" = 1 ]; then  # Triton loads the GPU, CUDA the CPU compile pool: overlap them
        # two evals' judges on one GPU: each plans its checks within 0.3 of its memory
        KB_MEM_SHARE=0.3 kb_eval cuda_inline "$KB_CUDA_S" > "$W/out/logs/K_cuda.log" 2>&1 &
        KB_MEM_SHARE=0.3 kb_eval triton "$KB_TRITON_S"
        wait
        cat "$W/out/logs/K_cuda.log"
      else
        kb_eval triton "$KB_TRITON_S"
        kb_eval cuda_inline "$KB_CUDA_S"
      fi ;;
    *cuda_inline*) kb_eval cuda_inline "$KB_CUDA_S" ;;
    *triton*) kb_eval triton "$KB_TRITON_S" ;;
  esac
  touch "$W/out/K.done"
}

progress() {
  bash scripts/gpu_session.sh status 2>/dev/null | head -40
  for c in S K P; do echo "--- $c$([ -f "$W/out/$c.done" ] && echo ' (done)')"; grep -E "===" "$W/out/logs/$c.log" 2>/dev/null | tail -4; done
}

save_env() {  # the lease's settings, for its later calls (piece, wait: each a fresh shell)
  mkdir -p "$W"
  local v
  for v in LEASE_MODEL LEARN LEARN_SFT LEARN_EVAL_PAR RL_SET RL_S RL_STEPS RL_CKPT_EVERY EVAL_S EVAL_TURNS SFT_S SFT_EPOCHS; do
    [ -n "${!v:-}" ] && printf '%s=%q\n' "$v" "${!v}"
  done > "$W/lease.env"
  true
}

launch() {  # launch CHAIN "DONE...": on a lease's first call, copy the repo, set up, start CHAIN in the background
  local chain=$1 log=$1; [ "$chain" = L ] && log=S  # the loaded chain logs as the sandbox chain
  if [ -d "$W/repo" ]; then echo "already started"; return; fi
  save_env
  mkdir -p "$W/repo" "$W/out/logs" "$W/out/sandbox" "$W/ck"
  tar --exclude=./.gguf_pieces --exclude=./.bigwhl --exclude=./.git -cf - . | (cd "$W/repo" && tar xf -)
  (cd "$W/repo" && source scripts/gpu_env.sh) > "$W/out/logs/env.log" 2>&1; tail -2 "$W/out/logs/env.log"
  bigwhl
  for c in $2; do touch "$W/out/$c.done"; done  # the chains this lease does not run
  setsid nohup bash "$W/repo/scripts/gpu_lease.sh" "$chain" > "$W/out/logs/$log.log" 2>&1 < /dev/null &
}

case "${1:-}" in
  start)
    bash scripts/gpu_session.sh start
    mkdir -p "$W/out/sandbox"
    setsid nohup bash "$W/repo/scripts/gpu_lease.sh" S > "$W/out/logs/S.log" 2>&1 < /dev/null &
    setsid nohup bash "$W/repo/scripts/gpu_lease.sh" K > "$W/out/logs/K.log" 2>&1 < /dev/null &
    sleep 1; progress ;;
  sandbox)  # a lease for the sandbox chain alone on a quiet GPU (carry .whl): throughput, every gpu test, audit
    launch S "A B K"; sleep 1; progress ;;
  loaded)  # sandbox chain + a real model's eval on the same GPU (carry .whl, then .gguf_pieces in `piece` calls)
    launch L "A B K"; bash scripts/gpu_session.sh piece; sleep 1; progress ;;
  kb)  # a lease for the KernelBench evals alone (carry .whl .kb, then the .gguf_pieces calls as for start)
    KB_ONLY=1 launch K "A B S"; bash scripts/gpu_session.sh piece; sleep 1; progress ;;
  learn)  # issue 13's experiment alone (carry .whl .sftdata [.ckpt_in]; then the 21 `piece` calls): SFT (or the
    # carried SFT checkpoint) -> LEAP RL for RL_S seconds, the eval after SFT beside it -> eval after RL; the slimmed
    # checkpoints come back as ck_*.tar.part-* (put them in .ckpt_in/ to continue in a later lease). RL samples at
    # temperature 0.8: at 1.0, 49 of the 66 turn-1 format errors of the 1.5B's one RL step (2026-12-01) were
    # answers cut at 1,024 tokens, many of them one helper repeated until the cut
    [ -d "$W/repo" ] && { echo "already started"; progress; exit 0; }
    export LEARN=1 EVAL_TURNS=${EVAL_TURNS:-1} RL_S=${RL_S:-780} RL_STEPS=${RL_STEPS:-40} RL_CKPT_EVERY=${RL_CKPT_EVERY:-1} \
      RL_SET=${RL_SET:-rollout.levels=[1,2] rollout.sampling.temperature=0.8}
    save_env; bash scripts/gpu_session.sh start; touch "$W/out/S.done" "$W/out/K.done"
    # LEARN_TP=1: the generation bench (1.5B shape) and the sandbox throughput bench on the quiet GPU while the
    # model's pieces travel (a check of the CUDA path on this code before the RL depends on it)
    [ "${LEARN_TP:-1}" = 1 ] && setsid nohup bash "$W/repo/scripts/gpu_lease.sh" P > "$W/out/logs/P.log" 2>&1 < /dev/null &
    sleep 1; progress ;;
  piece) bash scripts/gpu_session.sh piece ;;
  bigwhl) bigwhl ;;
  wait)
    end=$((SECONDS + ${2:-300}))
    while [ $SECONDS -lt $end ] && ! { [ -f "$W/out/A.done" ] && [ -f "$W/out/B.done" ] && [ -f "$W/out/S.done" ] \
        && [ -f "$W/out/K.done" ]; }; do sleep 10; done
    progress
    bash scripts/gpu_session.sh pack > /dev/null 2>&1 ;;
  S) chain_sandbox ;;
  T) env_here; gpu_tests ;;
  P) env_here; mkdir -p "$W/out/sandbox" "$W/out/bench"; touch "$W/out/P.started"  # quiet GPU while the model travels:
    # the decode step of the 1.5B shape with packed vs repeated GQA (and where its time goes), then the sandbox
    # throughput; the RL waits for both (a quiet GPU for its first step)
    stage fastgen_gpu_tests 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/gpu/test_fastgen_gpu.py
    stage gen_bench_15b 300 python3 bench/generation.py --shape 1.5b --batches 32,128 --paths graph,graph_repeat,static \
      --prompt 1536 --new 256 --profile --out "$W/out/bench/GENERATION_BENCH_15B.md"
    tp pool 240 --n-inline 0; touch "$W/out/P.done" ;;
  L) chain_loaded ;;
  K) chain_kb ;;
  *) echo "usage: $0 start|piece|wait SECONDS"; exit 2 ;;
esac
