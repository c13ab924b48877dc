"""The multi-task stage's sequence-to-sequence tasks, made from what the generator knows.

Why (OFA, Wang et al. 2022): OFA learns detection, grounding, region captioning and more in one
prompt -> target format before it ever sees a VQA question, so the encoder already ties words
to places when fine-tuning starts. This module writes those tasks for one scene of
`codeplan datagen vqa` (its scenes.json: every object's name and pixel box), with OFA's
quantised coordinates: a box is four location tokens "<bin_x0><bin_y0><bin_x1><bin_y1>", x
quantised over the image width and y over its height into `bins` bins.

  detect    "what are the objects in the image?" -> box + name for every visible object, in
            reading order (top to bottom, then left to right), as OFA orders detection targets
  ground    'which region does the text "red block" describe?' -> its box (names unique in
            the scene only: grounding an ambiguous name has no single answer)
  region    "what does the region describe? region: <box>" -> its name
  count     "how many objects are there?" / "how many blocks (bowls) are there?" -> a number
  list      "what objects are in the image?" -> names, sorted, joined by ", " (as a list
            answer of the VQA language is written)

Targets are written without spaces around location tokens (a space would be a token of its
own). Only visible objects (the generator's `visible` flag) are described.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from vrs.ofa.tokenizer import LIST_SEPARATOR, location_token

DETECT = "what are the objects in the image?"
GROUND = 'which region does the text "{name}" describe?'
REGION = "what does the region describe? region: {box}"
COUNT_ALL = "how many objects are there?"
COUNT_KIND = "how many {kind}s are there?"
LIST = "what objects are in the image?"
KINDS = ("block", "bowl")
TASKS = ("detect", "ground", "region", "count", "list")


def prompts() -> tuple[str, ...]:
    """Every prompt's words, for the tokenizer's corpus (slots filled with one example)."""
    return (DETECT, GROUND.format(name="red block"), REGION.format(box=""), COUNT_ALL,
            *(COUNT_KIND.format(kind=k) for k in KINDS), LIST)


@dataclass(frozen=True)
class TaskRow:
    """One prompt -> target pair about one image."""

    task: str
    prompt: str
    target: str


def quantize(value: float, size: float, bins: int) -> int:
    """Pixel coordinate -> bin index in [0, bins)."""
    return min(bins - 1, max(0, int(value / size * bins)))


def box_tokens(box: list[float], width: int, height: int, bins: int) -> str:
    """[x0, y0, x1, y1] pixels -> "<bin_a><bin_b><bin_c><bin_d>"."""
    x0, y0, x1, y1 = box
    ks = (quantize(x0, width, bins), quantize(y0, height, bins),
          quantize(x1, width, bins), quantize(y1, height, bins))
    return "".join(location_token(k) for k in ks)


def visible_objects(scene: dict) -> list[dict]:
    """The scene's objects a model can see, in reading order (box centre y, then x)."""
    objs = [o for o in scene["objects"] if o.get("visible", True) and o.get("pixel_box")]
    return sorted(objs, key=lambda o: ((o["pixel_box"][1] + o["pixel_box"][3]) / 2,
                                       (o["pixel_box"][0] + o["pixel_box"][2]) / 2))


def scene_tasks(scene: dict, width: int, height: int, bins: int,
                max_objects: int = 12) -> list[TaskRow]:
    """Every task row of one scene (see the module docstring); `max_objects` caps the detect
    sequence so it fits the decoder (6 tokens per object)."""
    if bins < 1:
        raise ValueError("multi-task rows need location tokens: bins must be >= 1")
    objs = visible_objects(scene)
    boxes = {id(o): box_tokens(o["pixel_box"], width, height, bins) for o in objs}
    names = Counter(o["name"] for o in objs)
    rows = [TaskRow("detect", DETECT, "".join(f"{boxes[id(o)]} {o['name']}"
                                              for o in objs[:max_objects]))]
    for o in objs:
        if names[o["name"]] == 1:
            rows.append(TaskRow("ground", GROUND.format(name=o["name"]), boxes[id(o)]))
        rows.append(TaskRow("region", REGION.format(box=boxes[id(o)]), o["name"]))
    rows.append(TaskRow("count", COUNT_ALL, str(len(objs))))
    for kind in KINDS:
        rows.append(TaskRow("count", COUNT_KIND.format(kind=kind),
                            str(sum(o.get("type") == kind for o in objs))))
    rows.append(TaskRow("list", LIST, LIST_SEPARATOR.join(sorted(names.elements()))))
    return rows
