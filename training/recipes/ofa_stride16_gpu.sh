#!/usr/bin/env bash
# `ofa-custom` at token stride 16 (issue 25): the same network and weights with 15x20 = 300
# image tokens instead of 8x10 = 80, fine-tuned on VQA with the per-patch object loss, in one
# GPU call of TRAIN_S seconds of training.
#
# Why: at stride 32 a block and the bowl it sits in fall in one token, and the patch head
# (`--patch-loss`) showed the tokens know *which* objects a patch holds but not how they
# stand to each other; questions that bind a colour to a relation ("what colour is the block
# in the green bowl?") stayed near chance. `codeplan ofa regrid` keeps every weight (the stem's
# fifth stage runs at stride 1 with the same kernels) and resizes the position embeddings.
#
# Steps: a 120-step probe measures steps/s with this data and machine, so the cosine schedule
# of the real run ends inside TRAIN_S; if the run is still stopped early (`timeout`), the
# newest checkpoint is exported instead and its config says so.
# The stride-32 `ofa-custom` it started from is in git history (the shipped one is this
# recipe's output):  git archive 482125b checkpoints/ofa-custom | tar x -C /tmp &&
#                    mv /tmp/checkpoints/ofa-custom data/ofa-custom-s32
# INIT at stride 16 (a run's model/) continues it instead: call 2 of the shipped model was
#   INIT=runs/ofa16/model RUNS=runs/ofa16-2 TRAIN_S=520 LR=1e-4 bash ofa_stride16_gpu.sh
# Data: data/ofa-lite.tar.xz (ofa_patch_gpu.sh's header says how it is made; unseen and
# cogent_b stay out of training). Writes RUNS/ofa16/ and, fp16, EXPORT/ (the shipped form).
set -euo pipefail
CODEPLAN=${CODEPLAN:-codeplan}   # `python3 -m runtime.cli` where the package is not installed
DATA=${DATA:-data/ofa-lite}
INIT=${INIT:-data/ofa-custom-s32}  # the stride-32 model, or a stride-16 run to continue
RUNS=${RUNS:-runs}
EXPORT=${EXPORT:-$RUNS/ofa16-export}
TRAIN_S=${TRAIN_S:-400}
LR=${LR:-2e-4}
BATCH=${BATCH:-512}
export ACCELERATE_MIXED_PRECISION=${ACCELERATE_MIXED_PRECISION:-bf16}
[ -d "$DATA" ] || { mkdir -p "$DATA" && tar xJf "$DATA.tar.xz" -C "$DATA"; }
mkdir -p "$RUNS"
if grep -q '"token_stride": 16' "$INIT/config.json"; then  # a continuation: already regridded
    rm -rf "$RUNS/ofa16-warm" && cp -r "$INIT" "$RUNS/ofa16-warm"
else
    $CODEPLAN ofa regrid "$INIT" "$RUNS/ofa16-warm" --token-stride 16
fi
common=(--data "$DATA" --init "$RUNS/ofa16-warm" --tasks vqa --patch-loss 1.0 --batch-size "$BATCH"
        --questions-per-image 8 --holdout 0.03 --threads 4 --eval-questions 3000 --lr "$LR"
        --no-progress --json)

$CODEPLAN train vqa "${common[@]}" --out "$RUNS/ofa16-probe" --steps 120 --warmup 10 \
    --eval-every 100000 --save-every 100000 > "$RUNS/ofa16-probe.json"
steps=$(python3 -m training.ofa.probe_steps "$RUNS/ofa16-probe/train_log.jsonl" "$TRAIN_S")
echo "probe: $steps steps fit ${TRAIN_S}s" >&2
timeout $((TRAIN_S + 120)) $CODEPLAN train vqa "${common[@]}" --out "$RUNS/ofa16" \
    --steps "$steps" --warmup 200 --eval-every $((steps / 4)) --save-every 500 \
    > "$RUNS/ofa16.json" || echo "training stopped early (exit $?)" >&2
python3 -m training.ofa.export_run "$RUNS/ofa16" "$RUNS/ofa16-warm" "$EXPORT"
