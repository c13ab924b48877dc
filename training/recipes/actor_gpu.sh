#!/usr/bin/env bash
# The shipped CLIPort actors, as trained on one H100 (16 CPU cores) in one ~8-minute command.
#
# Demonstrations and instruction vectors are made first, on any machine with PyBullet and the
# MiniLM package (the GPU machine needs neither; see checkpoints/README.md):
#   codeplan datagen demos --task put-block-in-bowl-seen-colors --n 600 --out data/demos/seen
#   codeplan datagen demos --task <each multi-task task> --n <N> --out data/demos/multi
#   codeplan datagen embeddings --demos data/demos/seen --language minilm+rgb \
#       --out data/demos/seen-minilm+rgb.npz        (and likewise for data/demos/multi)
#
# Three runs share the GPU, each with a third of the CPU cores for its data loader:
#   multi:   every task the controller sends steps of (shipped as `cliport-cpu`);
#   seen100: put-block-in-bowl on CLIPort's seen colors from 100 demos (its Table 1 protocol);
#   seen600: the same from 600 demos.
set -euo pipefail
CODEPLAN=${CODEPLAN:-codeplan}   # `python3 -m runtime.cli` where the package is not installed
RUNS=${RUNS:-runs}
LANGUAGE=${LANGUAGE:-minilm+rgb}
common=(--batch-size 32 --lr 5e-4 --warmup 100 --workers 5 --checkpoint-every 400 --json
        --no-progress --language "$LANGUAGE")
train() {  # name demos steps [extra args]
    local name=$1 demos=$2 steps=$3
    shift 3
    $CODEPLAN train cliport --demos "data/demos/$demos" \
        --embeddings "data/demos/$demos-$LANGUAGE.npz" --out "$RUNS/actor-$name" \
        --steps "$steps" "${common[@]}" "$@" > "$RUNS/actor-$name.json" 2> "$RUNS/actor-$name.err"
}
train multi multi "${MULTI_STEPS:-2400}" &
train seen100 seen "${SEEN100_STEPS:-1200}" --max-demos 100 &
train seen600 seen "${SEEN600_STEPS:-2000}" &
wait
