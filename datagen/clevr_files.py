"""CLEVR's file layout for one split, so other people's models can be evaluated from files.

    <out>/<split>/scenes.json     {"info": ..., "scenes": [{"image_index", "image_filename",
                                   "objects": [...], "relationships": {...}, "relations",
                                   "image_id", "state", "camera", "split"}]}
    <out>/<split>/questions.json  {"info": ..., "questions": [{"image_index", "image_filename",
                                   "question_index", "question", "answer", "template",
                                   "answer_type", "family", "same_color", "dark", "program",
                                   "split"}]}
    <out>/<split>/images/*.png

Scenes are `Scene.to_json()`: CLEVR's `objects` (color, shape, 3d_coords, pixel_coords, ...)
and `relationships` (for object i, the indices j with j REL i), extended with in / on / above /
below and a flat `relations` list that `scene_from_json` reads back.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import fields
from pathlib import Path

from ravens_env.scene_graph import Relation, Scene, SceneObject

_OBJECT_FIELDS = {f.name for f in fields(SceneObject)}
_TUPLES = ("position", "pixel_box", "pixel_coords")


def write_split(dest: Path, split: str, scenes: list[dict], rows: list[dict],
                image_dirs: list[Path], info: dict) -> None:
    """Write one split's CLEVR files into `dest` (which must not exist yet)."""
    (dest / "images").mkdir(parents=True)
    for src in image_dirs:
        for png in sorted(src.glob("*.png")):
            _link_or_copy(png, dest / "images" / png.name)
    scenes = [{**s, "split": split} for s in scenes]
    questions = [_question(r, split) for r in rows]
    _dump(dest / "scenes.json", {"info": info, "scenes": scenes})
    _dump(dest / "questions.json", {"info": info, "questions": questions})


def _question(row: dict, split: str) -> dict:
    return {"image_index": row["scene_index"], "image_filename": row["image_filename"],
            "question_index": row["question_index"], "question": row["question"],
            "answer": row["answer"], "template": row["template"],
            "answer_type": row["answer_type"], "family": row["family"],
            "same_color": row["same_color"], "dark": row["dark"],
            "program": json.loads(row["program"]), "split": split}


def scene_from_json(data: dict) -> Scene:
    """The Scene a scenes.json entry was written from (objects and relations)."""
    objects = []
    for o in data["objects"]:
        kw = {k: v for k, v in o.items() if k in _OBJECT_FIELDS}
        kw.update({k: tuple(kw[k]) for k in _TUPLES if kw.get(k) is not None})
        objects.append(SceneObject(**kw))
    return Scene(objects, [Relation(*r) for r in data["relations"]])


def _link_or_copy(src: Path, dst: Path) -> None:
    """A hard link where the file system allows (no second copy of every image), else a copy."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _dump(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data) + "\n")
