"""`codeplan datagen vqa|demos|embeddings`: the data the learned components train on.

    codeplan datagen vqa --out data/vqa --splits block_bowl,unseen --images-per-split 1000 \
        --questions-per-image 10 --shard-size 200 --workers 2 --seed-offset 0 \
        --renderer pybullet --variant default
    codeplan datagen demos --task put-block-in-bowl --n 1000 --out data/demos
    codeplan datagen embeddings --demos data/demos --out data/demos-minilm.npz

vqa (for `train detector` and `train ofa`): use a different --seed-offset for train, val and
test (e.g. 0, 100000, 200000): their shard seeds then never meet. `--renderer blender` draws the
same scenes with Blender Cycles (see datagen/README.md: setup, speed); without `bpy` it stops at
once, naming what to install. Re-running the same command finishes an interrupted run. Numbers
are parsed here rather than by argparse so that every bad value is a ValueError with one clear
line (the main CLI prints it and exits 2). demos (for `train cliport`): oracle episodes, one
.npz each, resumable. embeddings: the demos' instructions embedded once, for a machine that
trains without the sentence encoder.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from runtime.cli.args import (
    LANGUAGE_CHOICES,
    add_executor_options,
    add_group,
    executor_of,
    non_negative_int,
    positive_int,
)

SPLITS_HELP = ("comma-separated families: block_stack, block_bowl, global_table, unseen, "
               "cogent_a, cogent_b (the default), and pyramid (opt-in: part-built pyramids)")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `datagen vqa`, `datagen demos` and `datagen embeddings` to the `codeplan` verbs."""
    dsub = add_group(subparsers, "datagen", "generate training and evaluation data",
                     "datagen commands", "KIND")
    add_vqa_parser(dsub)
    add_demos_parser(dsub)  # oracle demonstrations for the actor
    add_embeddings_parser(dsub)  # their instructions, embedded once


# -- codeplan datagen vqa ------------------------------------------------------------------
def add_vqa_parser(dsub: argparse._SubParsersAction) -> None:
    """Add `vqa` to the `datagen` group: CLEVR-style scenes, images and questions."""
    vqa = dsub.add_parser("vqa", help="CLEVR-style VQA data for the visual reasoning service")
    vqa.add_argument("--out", required=True, help="output directory (shards, hf/, CLEVR files)")
    vqa.add_argument("--splits", default="", help=SPLITS_HELP)
    vqa.add_argument("--images-per-split", required=True, metavar="N")
    vqa.add_argument("--questions-per-image", default="10", metavar="K")
    vqa.add_argument("--shard-size", default="200", metavar="S",
                     help="images per shard: the unit of work and of resumption (default 200)")
    vqa.add_argument("--workers", default="1", metavar="W", help="processes (default 1)")
    vqa.add_argument("--seed-offset", default="0", metavar="O",
                     help="added to every shard seed; disjoint per train/val/test (default 0)")
    vqa.add_argument("--renderer", default="pybullet",
                     help="pybullet (default: the simulator's front camera) | blender (Cycles, "
                          "CLEVR look; needs bpy: pip install -e '.[blender]', or a venv with "
                          "bpy named by $CODEPLAN_BLENDER_PYTHON; use --workers 1)")
    vqa.add_argument("--variant", default="default",
                     help="default | jitter | arm | hires (held-out camera/render variants; "
                          "arm is pybullet-only) | random (domain randomisation: palette, "
                          "light, table, meshes, camera, exposure, blur, noise, arm; pybullet) "
                          "| foreign, studio, kitchen, workshop, gallery, lobby, library, piano, "
                          "steel, baize, slate, linen, bamboo, parquet (looks kept out of "
                          "training: each its own palette and table, and some their own light "
                          "or meshes; the dataset card says which)")
    add_executor_options(vqa, workers=False)
    vqa.add_argument("--no-progress", action="store_true", help="no progress bar")
    vqa.add_argument("--json", action="store_true", help="print the run summary as JSON")
    vqa.set_defaults(handler=_datagen_vqa)


def _datagen_vqa(args: argparse.Namespace) -> int:
    """Generate (or finish) the shards; print counts per split, or the summary as JSON."""
    from datagen.families import DEFAULT_SPLITS

    splits = ([s.strip() for s in args.splits.split(",")] if args.splits.strip()
              else list(DEFAULT_SPLITS))
    numbers = {name: _integer(name, getattr(args, name.replace("-", "_")))
               for name in ("images-per-split", "questions-per-image", "shard-size", "workers",
                            "seed-offset")}
    from datagen import generate

    executor = executor_of(args, workers=max(1, numbers["workers"]))
    manifest = generate(args.out, splits, numbers["images-per-split"],
                        numbers["questions-per-image"], numbers["shard-size"], numbers["workers"],
                        numbers["seed-offset"], args.renderer, args.variant,
                        progress=not (args.no_progress or args.json), executor=executor)
    summary = {"out": str(args.out), **manifest["run"], "totals": manifest["totals"],
               "splits": {k: {"images": v["images"], "questions": v["questions"]}
                          for k, v in manifest["families"].items()}}
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    for name, counts in summary["splits"].items():
        print(f"{name:<13} {counts['images']:>7} images {counts['questions']:>8} questions")
    print(f"made {summary['shards_made']} shards, skipped {summary['shards_skipped']} in "
          f"{summary['seconds']:.1f} s ({summary['images_per_hour']:.0f} images/hour); "
          f"dataset: {args.out}/hf, manifest: {args.out}/manifest.json")
    return 0


def _integer(name: str, text: str) -> int:
    """`text` as an int; ValueError naming the option otherwise (argparse would exit with usage)."""
    try:
        return int(str(text).strip())
    except ValueError:
        raise ValueError(f"--{name} must be an integer, got {text!r}") from None


# -- codeplan datagen demos ----------------------------------------------------------------
def add_demos_parser(datagen_subparsers: argparse._SubParsersAction) -> None:
    """Add `demos` to the `datagen` group: oracle demonstrations for `train cliport`."""
    p = datagen_subparsers.add_parser("demos", help="oracle demonstrations for the CLIPort actor")
    p.add_argument("--task", required=True, help="task id (see `codeplan tasks list`)")
    p.add_argument("--n", type=positive_int, required=True, help="episodes")
    p.add_argument("--out", type=Path, required=True, help="directory of .npz episode files")
    p.add_argument("--seed-start", type=non_negative_int, default=0,
                   help="first episode seed (default 0; evaluation uses 10000 on)")
    add_executor_options(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(handler=_datagen_demos)


def _datagen_demos(args: argparse.Namespace) -> int:
    """Record oracle episodes (resumable: files already there are skipped)."""
    from datagen.cliport_demos import generate_demos
    from ravens_env.tasks import make_task

    make_task(args.task)  # fail fast, naming the known tasks
    summary = generate_demos(args.task, args.n, args.out, args.seed_start,
                             progress=not (args.no_progress or args.json),
                             executor=executor_of(args))
    if args.json:
        print(json.dumps({**summary, "made": len(summary["made"]),
                          "skipped": len(summary["skipped"])}, indent=2))
    else:
        print(f"{args.task}: made {len(summary['made'])} episodes ({summary['steps']} steps), "
              f"skipped {len(summary['skipped'])} already present, {summary['seconds']:.1f} s "
              f"({summary['episodes_per_min']:.0f} episodes/min), oracle failures "
              f"{summary['oracle_failures']}; files in {args.out}")
    return 0


# -- codeplan datagen embeddings -----------------------------------------------------------
def add_embeddings_parser(datagen_subparsers: argparse._SubParsersAction) -> None:
    """Add `embeddings` to the `datagen` group: the demos' instructions, embedded once, for a
    machine that trains without the sentence encoder."""
    p = datagen_subparsers.add_parser(
        "embeddings", help="embed the demos' instructions (train where the encoder is absent)")
    p.add_argument("--demos", type=Path, required=True, help="directory of demo .npz files")
    p.add_argument("--out", type=Path, required=True, help="the .npz of vectors to write")
    p.add_argument("--language", choices=LANGUAGE_CHOICES, default="minilm")
    p.set_defaults(handler=_datagen_embeddings)


def _datagen_embeddings(args: argparse.Namespace) -> int:
    """Embed every distinct instruction of the demos once; a missing dir is bad input."""
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
