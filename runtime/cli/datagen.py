"""`codeplan datagen vqa`: the VQA data generator (`datagen.generate`) on the command line.

    codeplan datagen vqa --out data/vqa --splits block_bowl,unseen --images-per-split 1000 \
        --questions-per-image 10 --shard-size 200 --workers 2 --seed-offset 0 \
        --renderer pybullet --variant default

Use a different --seed-offset for train, val and test (e.g. 0, 100000, 200000): their shard
seeds then never meet. `--renderer blender` draws the same scenes with Blender Cycles (see
datagen/README.md: setup, speed); without `bpy` it stops at once, naming what to install.
Re-running the same command finishes an interrupted run. Numbers are parsed here rather than
by argparse so that every bad value is a ValueError with one clear line (the main CLI prints it
and exits 2).
"""

from __future__ import annotations

import argparse
import json

SPLITS_HELP = ("comma-separated families: block_stack, block_bowl, global_table, unseen, "
               "cogent_a, cogent_b (default: all)")


def add_datagen_parser(subparsers) -> None:
    """Add `datagen vqa` to the `codeplan` subcommands."""
    datagen = subparsers.add_parser("datagen", help="generate training and evaluation data")
    dsub = datagen.add_subparsers(title="datagen commands", metavar="KIND")
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
                          "arm is pybullet-only)")
    vqa.add_argument("--no-progress", action="store_true", help="no progress bar")
    vqa.add_argument("--json", action="store_true", help="print the run summary as JSON")
    from runtime.cli.actor import add_demos_subcommand, add_embeddings_subcommand

    add_demos_subcommand(dsub)  # `datagen demos`: oracle demonstrations for the actor
    add_embeddings_subcommand(dsub)  # `datagen embeddings`: their instructions, embedded once
    vqa.set_defaults(handler=_vqa)
    datagen.set_defaults(handler=lambda args: datagen.print_help() or 2)


def _vqa(args: argparse.Namespace) -> int:
    from datagen.families import FAMILIES

    splits = [s.strip() for s in args.splits.split(",")] if args.splits.strip() else list(FAMILIES)
    numbers = {name: _integer(name, getattr(args, name.replace("-", "_")))
               for name in ("images-per-split", "questions-per-image", "shard-size", "workers",
                            "seed-offset")}
    from datagen import generate

    manifest = generate(args.out, splits, numbers["images-per-split"],
                        numbers["questions-per-image"], numbers["shard-size"], numbers["workers"],
                        numbers["seed-offset"], args.renderer, args.variant,
                        progress=not (args.no_progress or args.json))
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
    try:
        return int(str(text).strip())
    except ValueError:
        raise ValueError(f"--{name} must be an integer, got {text!r}") from None
