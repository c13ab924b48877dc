"""The CLIPort actor's command lines: demonstrations, training, evaluation.

    codeplan datagen demos --task put-block-in-bowl --n 1000 --out data/demos
    codeplan train actor --demos data/demos --out runs/actor --steps 20000 --batch-size 8 \
        --preset cpu [--resume]
    codeplan eval actor --checkpoint runs/actor --task put-block-in-bowl --episodes 100 [--json]

Each function adds one sub-command to the sub-parsers of its group (`datagen`, `train`,
`eval`), which `runtime.cli` owns. Heavy imports (torch, the simulator) happen in the handlers,
so `codeplan --help` stays fast. Bad values are ValueErrors: the main CLI prints one line and
exits 2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from runtime.cli.args import non_negative_int as _count
from runtime.cli.args import positive_int as _positive

LANGUAGE_CHOICES = ("minilm", "minilm+rgb", "hash", "hash+rgb")


def add_demos_subcommand(datagen_subparsers: argparse._SubParsersAction) -> None:
    """Add `demos` to the `datagen` group: oracle demonstrations for the actor."""
    p = datagen_subparsers.add_parser("demos", help="oracle demonstrations for the CLIPort actor")
    p.add_argument("--task", required=True, help="task id (see `codeplan tasks list`)")
    p.add_argument("--n", type=_positive, required=True, help="episodes")
    p.add_argument("--out", type=Path, required=True, help="directory of .npz episode files")
    p.add_argument("--seed-start", type=_count, default=0,
                   help="first episode seed (default 0; evaluation uses 10000 on)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(handler=_demos)


add_demos_parser = add_demos_subcommand  # the name the brief used


def add_embeddings_subcommand(datagen_subparsers: argparse._SubParsersAction) -> None:
    """Add `embeddings` to the `datagen` group: the demos' instructions, embedded once."""
    p = datagen_subparsers.add_parser(
        "embeddings", help="embed the demos' instructions (train where the encoder is absent)")
    p.add_argument("--demos", type=Path, required=True, help="directory of demo .npz files")
    p.add_argument("--out", type=Path, required=True, help="the .npz of vectors to write")
    p.add_argument("--language", choices=LANGUAGE_CHOICES, default="minilm")
    p.set_defaults(handler=_embeddings)


def _embeddings(args: argparse.Namespace) -> int:
    from datagen.cliport_demo_files import demo_instructions
    from ravens_env.cliport.language import make_encoder, save_embeddings

    try:
        texts = demo_instructions(args.demos)
    except FileNotFoundError as e:
        raise ValueError(str(e)) from None
    n = save_embeddings(make_encoder(args.language), texts, args.out)
    print(f"{n} distinct instructions of {len(texts)} steps embedded with {args.language}: "
          f"{args.out}")
    return 0


def _demos(args: argparse.Namespace) -> int:
    from datagen.cliport_demos import generate_demos
    from ravens_env.tasks import make_task

    make_task(args.task)  # fail fast, naming the known tasks
    summary = generate_demos(args.task, args.n, args.out, args.seed_start,
                             progress=not (args.no_progress or args.json))
    if args.json:
        print(json.dumps({**summary, "made": len(summary["made"]),
                          "skipped": len(summary["skipped"])}, indent=2))
    else:
        print(f"{args.task}: made {len(summary['made'])} episodes ({summary['steps']} steps), "
              f"skipped {len(summary['skipped'])} already present, {summary['seconds']:.1f} s "
              f"({summary['episodes_per_min']:.0f} episodes/min), oracle failures "
              f"{summary['oracle_failures']}; files in {args.out}")
    return 0


def add_train_actor_parser(train_subparsers: argparse._SubParsersAction) -> None:
    """Add `actor` to the `train` group: train the CLIPort actor on demonstrations."""
    p = train_subparsers.add_parser("actor", help="train the CLIPort actor on demonstrations")
    p.add_argument("--demos", type=Path, required=True, help="directory of demo .npz files")
    p.add_argument("--out", type=Path, required=True,
                   help="run directory: checkpoints/, train_log.jsonl, the exported model")
    p.add_argument("--steps", type=_positive, required=True, help="optimizer steps in total")
    p.add_argument("--batch-size", type=_positive, default=8)
    p.add_argument("--preset", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--resume", action="store_true", help="continue from the latest checkpoint")
    p.add_argument("--lr", type=float, default=1e-4, help="peak learning rate")
    p.add_argument("--max-demos", type=_positive, default=None, metavar="N",
                   help="train on the first N demo files only (lowest seeds), e.g. 100")
    p.add_argument("--warmup", type=_count, default=200, help="linear warmup steps, then cosine")
    p.add_argument("--embeddings", type=Path, default=None,
                   help="precomputed instruction vectors (`codeplan datagen embeddings`) for "
                        "a machine without the sentence encoder")
    p.add_argument("--checkpoint-every", type=_positive, default=500, metavar="N")
    p.add_argument("--workers", type=_count, default=0, help="DataLoader worker processes")
    p.add_argument("--seed", type=_count, default=0)
    p.add_argument("--language", choices=LANGUAGE_CHOICES, default=None,
                   help="sentence encoder (default: the preset's, minilm); +rgb appends the "
                        "lexicon RGB of the colors a step names (helps unseen colors)")
    p.add_argument("--color-match", type=_count, default=None, metavar="E",
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
    p.set_defaults(handler=_train_actor)


def _overrides(args: argparse.Namespace) -> dict:
    """CliportConfig fields the command line sets over the preset."""
    out = {} if args.color_match is None else {"color_match_dim": args.color_match}
    return {**out, "color_prior": True} if args.color_prior else out


def _train_actor(args: argparse.Namespace) -> int:
    from training.cliport.train import TrainCliportSpec, train_cliport

    spec = TrainCliportSpec(demos=args.demos, out=args.out, steps=args.steps,
                          batch_size=args.batch_size, preset=args.preset, lr=args.lr,
                          checkpoint_every=args.checkpoint_every, resume=args.resume,
                          seed=args.seed, workers=args.workers, augment=not args.no_augment,
                          shift_sigma=args.shift, color_match_weight=args.color_match_loss,
                          language=args.language, warmup=args.warmup, embeddings=args.embeddings,
                          max_demos=args.max_demos,
                          config_overrides=_overrides(args),
                          progress=not (args.no_progress or args.json))
    try:
        summary = train_cliport(spec)
    except FileNotFoundError as e:  # no demos: bad input, one line and exit 2
        raise ValueError(str(e)) from None
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"trained {summary['preset']} actor ({summary['parameters']:,} parameters) to "
              f"step {summary['steps']} (from {summary['start_step']}) in "
              f"{summary['seconds']:.1f} s, {summary['steps_per_s']:.2f} steps/s; final loss "
              f"{summary.get('final_loss', float('nan')):.3f}; model: {args.out}/model.safetensors")
    return 0


def add_eval_actor_parser(eval_subparsers: argparse._SubParsersAction) -> None:
    """Add `actor` to the `eval` group: step and episode success of a trained actor."""
    p = eval_subparsers.add_parser("actor", help="success rate of a trained CLIPort actor")
    p.add_argument("--checkpoint", type=Path, required=True,
                   help="directory with config.json + model.safetensors")
    p.add_argument("--task", required=True, help="task id")
    p.add_argument("--episodes", type=_positive, default=20)
    p.add_argument("--seed-start", type=_count, default=10_000)
    p.add_argument("--device", default="cpu", help="torch device (cpu, cuda, cuda:1, ...)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_eval_actor)


def _eval_actor(args: argparse.Namespace) -> int:
    from ravens_env.tasks import make_task
    from training.cliport.eval import eval_actor, format_eval

    make_task(args.task)
    try:
        result = eval_actor(args.checkpoint, args.task, args.episodes, args.seed_start,
                            args.device, progress=not (args.no_progress or args.json))
    except FileNotFoundError as e:  # not a checkpoint: bad input, one line and exit 2
        raise ValueError(str(e)) from None
    print(json.dumps(result, indent=2) if args.json else format_eval(result))
    return 0
