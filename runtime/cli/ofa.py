"""`codeplan ofa convert`: turn an official OFA checkpoint into one this project loads;
`codeplan ofa regrid`: one of this project's at a finer token grid, as a warm start.
`codeplan ofa prune`: one whose encoder reads only the image tokens that hold objects.

    codeplan ofa convert ~/OFA-tiny checkpoints/ofa-official-tiny [--image-size 240x320]
    codeplan train ofa --init checkpoints/ofa-official-tiny --data data/vqa-train \
        --out runs/ofa-ft --steps 5000 --lr 5e-5        # then fine-tune it

Why a command of its own: the official checkpoints (OFA-Sys's `ofa-tiny`, `-medium`, `-base`,
`-large`: config.json, pytorch_model.bin, vocab.json, merges.txt) are hundreds of MB to GB;
converting once writes a directory with the weights as safetensors and the tokenizer as
tokenizer.json that `--init`, `--reasoner` and `codeplan ask --model` load directly
(`vrs.ofa.official`). `train ofa --init` also accepts the official directory itself and
converts it on the fly. A file that does not fit (missing, an unexpected key, another shape)
is a one-line error naming it.
"""

from __future__ import annotations

import argparse
import json

from runtime.cli.args import add_group, positive_int


def image_size(text: str) -> tuple[int, int]:
    """argparse type: HxW in pixels, e.g. 240x320."""
    try:
        h, w = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not HxW pixels: {text!r} (e.g. 240x320)") from None
    if h < 16 or w < 16:
        raise argparse.ArgumentTypeError(f"at least 16x16 pixels, got {text}")
    return h, w


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `ofa convert` to the `codeplan` verbs."""
    osub = add_group(subparsers, "ofa", "official OFA checkpoints: convert them for "
                                        "fine-tuning here", "ofa commands", "COMMAND")
    p = osub.add_parser("convert", help="convert an official OFA checkpoint directory "
                                        "(ofa-tiny/medium/base/large) into one this project loads")
    p.add_argument("source", metavar="SRC",
                   help="official directory: config.json, pytorch_model.bin (or "
                        "model.safetensors), vocab.json, merges.txt")
    p.add_argument("out", metavar="OUT", help="checkpoint directory to write (replaced)")
    p.add_argument("--image-size", type=image_size, default=(240, 320), metavar="HxW",
                   help="model input size, images are resized to it (default 240x320: "
                        "15x20 patches; OFA pretrained at 384x384)")
    p.add_argument("--max-question-tokens", type=positive_int, default=64, metavar="N")
    p.add_argument("--max-answer-tokens", type=positive_int, default=80, metavar="N")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_convert)
    r = osub.add_parser("regrid", help="a checkpoint at a finer token stride (e.g. 16: 15x20 "
                                       "tokens), its weights kept, as a warm start")
    r.add_argument("source", metavar="SRC", help="this project's OFA-style checkpoint")
    r.add_argument("out", metavar="OUT", help="checkpoint directory to write (replaced)")
    r.add_argument("--token-stride", type=positive_int, required=True, metavar="PX",
                   help="input pixels between image tokens (a power of two)")
    r.set_defaults(handler=_regrid)
    q = osub.add_parser("prune", help="a checkpoint whose encoder reads only the image tokens "
                                      "that hold objects (by its patch head), as a warm start")
    q.add_argument("source", metavar="SRC", help="this project's OFA-style checkpoint with a "
                                                 "patch head")
    q.add_argument("out", metavar="OUT", help="checkpoint directory to write (replaced)")
    q.add_argument("--below", type=float, required=True, metavar="P",
                   help="drop tokens where no object is likelier than P (0 <= P < 1; 0: off)")
    q.add_argument("--grow", type=int, default=1, metavar="N",
                   help="also keep the tokens within N of a kept one (default 1)")
    q.set_defaults(handler=_prune)


def _regrid(args: argparse.Namespace) -> int:
    from vrs.ofa.checkpoint import regrid_checkpoint

    summary = regrid_checkpoint(args.source, args.out, args.token_stride)
    print(json.dumps(summary))
    return 0


def _prune(args: argparse.Namespace) -> int:
    from vrs.ofa.checkpoint import prune_checkpoint

    print(json.dumps(prune_checkpoint(args.source, args.out, args.below, args.grow)))
    return 0


def _convert(args: argparse.Namespace) -> int:
    from vrs.ofa.official import convert_to_checkpoint

    h, w = args.image_size
    summary = convert_to_checkpoint(args.source, args.out, image_height=h, image_width=w,
                                    max_question_tokens=args.max_question_tokens,
                                    max_answer_tokens=args.max_answer_tokens)
    if args.json:
        print(json.dumps(summary))
        return 0
    first, last = summary["location_tokens"]
    rows, cols = summary["patches"]
    print(f"converted {summary['size']} (d_model {summary['d_model']}, "
          f"{'+'.join(map(str, summary['layers']))} layers, {summary['resnet']}): "
          f"{summary['parameters']:,} parameters")
    print(f"location tokens <bin_0>..<bin_{summary['location_bins'] - 1}>: ids "
          f"{first}..{last} of a {summary['vocab_size']}-token vocabulary")
    print(f"input {h}x{w} px = {rows}x{cols} patches; wrote {summary['out']}")
    return 0
