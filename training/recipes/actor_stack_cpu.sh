#!/usr/bin/env bash
# `cliport-stack` (checkpoints/README.md): the shipped multi-task actor fine-tuned for stacks
# (on two blocks of a pyramid, on a block standing in a bowl) with its pick stream frozen, on
# the CPU: demos (2,000 episodes, seeds from 0, skipped when already there; not timed as one
# run), 1,200 steps of batch 8 (24 min on the reference machine's 2 cores; resumable: run it
# again after an interruption), then the seven dev-seed evaluations of the rule it was kept by
# (docs/RESULTS.md, seeds 20000-20049, 12 min).
set -euo pipefail
CODEPLAN=${CODEPLAN:-codeplan}
RUNS=${RUNS:-runs}
DEMOS=${DEMOS:-data/demos/ft}
OUT=${OUT:-$RUNS/cliport-stack}
INIT=${INIT:-checkpoints/cliport-cpu}

for t in put-block-in-bowl:200 put-blocks-in-matching-bowls:300 put-blocks-in-mismatched-bowls:300 \
         put-darker-blocks-in-matching-bowls:300 stack-blocks:100 stack-block-pyramid:600 reverse-tower:200; do
    $CODEPLAN datagen demos --task "${t%:*}" --n "${t#*:}" --out "$DEMOS" --workers 2
done
resume=()
[ -d "$OUT/checkpoints" ] && resume=(--resume)
$CODEPLAN train cliport --demos "$DEMOS" --out "$OUT" --init "$INIT" --freeze pick \
    --steps 1200 --batch-size 8 --lr 1e-4 --warmup 50 --checkpoint-every 200 "${resume[@]}"
for t in stack-block-pyramid put-blocks-in-matching-bowls put-blocks-in-mismatched-bowls \
         put-darker-blocks-in-matching-bowls stack-blocks put-block-in-bowl reverse-tower; do
    $CODEPLAN eval actor --checkpoint "$OUT" --task "$t" --seed-start 20000 --episodes 50 \
        --workers 2 --json > "$OUT/eval-dev-$t.json"
done
