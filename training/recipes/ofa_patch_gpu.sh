#!/usr/bin/env bash
# The OFA-style model with the per-patch object loss (issue 25, `--patch-loss`), as run on one
# GPU in one call: `ofa-multitask` continued on the same multi-task + VQA mixture and the same
# schedule as its own last continuation (5,000 steps at 2e-4, batch 512), with one change --
# every image token must also say which objects (colour x type) its patch holds. So the dev
# curve compares with that continuation's (58.5 -> 61.0%), the patch loss the only difference.
#
# Data, made on the CPU (the GPU machine has no PyBullet), then packed small enough to carry:
#   codeplan datagen vqa --out data/ofa-train --splits block_stack,block_bowl,global_table,cogent_a \
#       --images-per-split 1600 --questions-per-image 30 --shard-size 100 --seed-offset 0 --workers 2
#   mkdir -p data/ofa-lite && for s in block_stack block_bowl global_table cogent_a; do
#       cp -r data/ofa-train/$s data/ofa-lite/; done
# (unseen and cogent_b stay out: Table 1's held-out conditions are held out of training).
#
# Writes RUNS/ofa-patch/{curve.jsonl,train_log.jsonl,summary.json,model/}.
set -euo pipefail
CODEPLAN=${CODEPLAN:-codeplan}   # `python3 -m runtime.cli` where the package is not installed
DATA=${DATA:-data/ofa-lite}
RUNS=${RUNS:-runs}
STEPS=${STEPS:-5000}
PATCH_LOSS=${PATCH_LOSS:-1.0}
mkdir -p "$RUNS"
ACCELERATE_MIXED_PRECISION=${ACCELERATE_MIXED_PRECISION:-bf16} \
$CODEPLAN train vqa --data "$DATA" --out "$RUNS/ofa-patch" --init checkpoints/ofa-multitask \
    --tasks pretrain,vqa --patch-loss "$PATCH_LOSS" --steps "$STEPS" --batch-size 512 \
    --questions-per-image 8 --lr 2e-4 --warmup 100 --holdout 0.03 --threads 4 \
    --eval-every $((STEPS / 5)) --eval-questions 3000 --save-every 1000 --no-progress --json \
    > "$RUNS/ofa-patch.json"
