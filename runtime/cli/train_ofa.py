"""`codeplan train vqa`: train the OFA-style VQA model (`training.ofa.train`) on the command line.

    codeplan train vqa --data data/vqa-train --val data/vqa-val --out runs/vqa-tiny \
        --preset tiny --steps 20000 --batch-size 64 --lr 5e-4 --warmup 500 [--resume]
    codeplan train vqa --data data/vqa-train --init runs/vqa-tiny/model --freeze-encoder \
        --lr 5e-5 --out runs/vqa-ft --steps 5000          # fine-tune only the decoder
    accelerate launch -m runtime.cli train vqa ... --preset base   # several GPUs

Why a separate module: the main CLI (`runtime.cli`) adds this with `add_train_vqa_parser`,
and torch, datasets and the model load only when the command runs, so `codeplan --help` stays
fast. Values argparse cannot judge (directories, --mix splits, the preset) are checked by
`spec_from_args` and raise ValueError naming the problem (the main CLI prints one line and
exits 2).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from runtime.cli.args import non_negative_int as _count
from runtime.cli.args import positive_int as _positive


def add_train_vqa_parser(tsub: argparse._SubParsersAction) -> None:
    """Add `vqa` to the `train` group's sub-parsers."""
    p = tsub.add_parser("vqa", help="train the OFA-style VQA model on datagen vqa data")
    p.add_argument("--data", required=True, metavar="DIR[,DIR]",
                   help="`codeplan datagen vqa` output dirs (or their hf/), comma-separated")
    p.add_argument("--mix", default=None, metavar="SPLIT=W,...",
                   help="split weights, e.g. block_bowl=2,block_stack=1 (default: all, 1 each)")
    p.add_argument("--val", default=None, metavar="DIR",
                   help="held-out dataset for the learning curve (default: hold out "
                        "--holdout of the training images)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="run dir: checkpoints/, curve.jsonl, train_log.jsonl, model/")
    p.add_argument("--preset", default="tiny", help="tiny (CPU) | base (OFA-base, GPU)")
    p.add_argument("--steps", type=_positive, required=True, help="optimizer steps in total")
    p.add_argument("--batch-size", type=_positive, default=64, help="questions per step")
    p.add_argument("--questions-per-image", type=_positive, default=8, metavar="K",
                   help="questions of one image per batch, sharing its encoding (default 8)")
    p.add_argument("--lr", type=float, default=5e-4,
                   help="peak lr (default 5e-4, from scratch; the paper fine-tuned at 5e-5)")
    p.add_argument("--warmup", type=_count, default=500, help="linear warmup steps")
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--freeze-encoder", action="store_true",
                   help="train only the decoder (the seed paper's fine-tuning; use with --init)")
    p.add_argument("--init", default=None, metavar="CHECKPOINT",
                   help="start from this checkpoint directory (fine-tuning; its config and "
                        "tokenizer are used, --preset is ignored)")
    p.add_argument("--resume", action="store_true", help="continue from the latest checkpoint")
    p.add_argument("--eval-every", type=_positive, default=1000, metavar="N")
    p.add_argument("--eval-questions", type=_count, default=2000, metavar="N",
                   help="held-out questions per evaluation (0: all)")
    p.add_argument("--holdout", type=float, default=0.05,
                   help="share of training images held out when there is no --val")
    p.add_argument("--save-every", type=_positive, default=1000, metavar="N")
    p.add_argument("--seed", type=_count, default=0)
    p.add_argument("--threads", type=_count, default=1,
                   help="torch CPU threads (default 1; 0: torch's default)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(handler=_train_vqa)


def _existing_dir(text: str, option: str) -> Path:
    path = Path(text)
    if not path.is_dir():
        raise ValueError(f"{option}: no directory {path}")
    return path


def spec_from_args(args: argparse.Namespace) -> object:
    """The TrainOfaSpec the options say; ValueError naming every bad value."""
    from training.ofa.train import TrainOfaSpec

    dirs = [d.strip() for d in args.data.split(",") if d.strip()]
    if not dirs:
        raise ValueError("--data names no directory")
    spec = TrainOfaSpec(
        data=[_existing_dir(d, "--data") for d in dirs], out=Path(args.out), steps=args.steps,
        val=_existing_dir(args.val, "--val") if args.val else None, mix=args.mix,
        preset=args.preset, batch_size=args.batch_size,
        questions_per_image=args.questions_per_image, lr=args.lr, warmup=args.warmup,
        weight_decay=args.weight_decay, freeze_encoder=args.freeze_encoder,
        init=_existing_dir(args.init, "--init") if args.init else None, resume=args.resume,
        eval_every=args.eval_every, eval_questions=args.eval_questions, holdout=args.holdout,
        save_every=args.save_every, seed=args.seed, threads=args.threads,
        progress=not (args.no_progress or args.json))
    spec.check()
    return spec


def _train_vqa(args: argparse.Namespace) -> int:
    from training.ofa.train import train_ofa

    summary = train_ofa(spec_from_args(args))
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    last = summary.get("last_eval") or {}
    acc = last.get("accuracy")
    print(f"trained {summary['preset']} VQA model ({summary['parameters']['total']:,} "
          f"parameters) to step {summary['step']} (from {summary['start_step']}), "
          f"{summary['samples']:,} samples, {summary['samples_per_s']:.1f} samples/s; "
          f"held-out accuracy {acc if acc is not None else 'n/a'}; "
          f"curve: {args.out}/curve.jsonl; model: {summary['model']}")
    return 0
