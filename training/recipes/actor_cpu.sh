#!/usr/bin/env bash
# CLIPort's single-task protocol on a CPU: put-block-in-bowl from 100 demos of its seen colours,
# with colour-match maps, their grounding loss and their prior on the logits, in 75-80 minutes
# on two cores
# (checkpoints/README.md, `cliport-seen100-cpu`). Everything runs here: demos (~10 s), instruction vectors (~10 s),
# training (2,400 steps of batch 8; resumable: run it again after an interruption), then the
# seen / unseen evaluation of docs/RESULTS.md (100 episodes each, seeds 10000-10099).
set -euo pipefail
CODEPLAN=${CODEPLAN:-codeplan}
RUNS=${RUNS:-runs}
DEMOS=${DEMOS:-data/demos/seen}
OUT=${OUT:-$RUNS/actor-seen100-cpu}
STEPS=${STEPS:-2400}
SEED=${SEED:-0}  # training seed (shuffling, augmentation, initialisation)

$CODEPLAN datagen demos --task put-block-in-bowl-seen-colors --n 100 --out "$DEMOS"
$CODEPLAN datagen embeddings --demos "$DEMOS" --language minilm+rgb --out "$DEMOS-minilm+rgb.npz"
resume=()
[ -d "$OUT/checkpoints" ] && resume=(--resume)
$CODEPLAN train cliport --demos "$DEMOS" --embeddings "$DEMOS-minilm+rgb.npz" --max-demos 100 \
    --language minilm+rgb --color-match 8 --color-match-loss 0.5 --color-prior --shift 16 --out "$OUT" \
    --steps "$STEPS" --batch-size 8 --lr 3e-4 --warmup 100 --checkpoint-every 400 --seed "$SEED" "${resume[@]}"
for split in seen unseen; do
    $CODEPLAN eval actor --checkpoint "$OUT" --task "put-block-in-bowl-$split-colors" \
        --episodes 100 --json > "$OUT/eval-$split.json"
done
