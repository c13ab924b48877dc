"""The files on disk: the HF DatasetDict, CLEVR's JSON layout and images, the manifest."""

from __future__ import annotations

import io
import json

from datasets import Image as ImageFeature
from datasets import load_from_disk
from PIL import Image

from datagen.writer import ROW_FEATURES


def test_hf_dataset_dict_has_one_split_per_family_and_the_row_columns(small_run):
    out, manifest = small_run
    hf = load_from_disk(str(out / "hf"))
    assert list(hf) == list(manifest["families"])
    for split, ds in hf.items():
        assert ds.features == ROW_FEATURES
        assert len(ds) == manifest["families"][split]["questions"]
        row = ds[0]
        assert row["family"] == split and row["variant"] == "default"
        assert row["image"].size == (320, 240)  # decoded to a PIL image
        assert isinstance(row["same_color"], bool) and isinstance(row["dark"], bool)
        assert row["answer_type"] in ("yes/no", "color", "count", "object", "objects")


def test_clevr_scenes_questions_and_images(small_run):
    out, manifest = small_run
    for split, info in manifest["families"].items():
        scenes = json.loads((out / split / "scenes.json").read_text())
        questions = json.loads((out / split / "questions.json").read_text())
        assert scenes["info"]["split"] == questions["info"]["split"] == split
        assert [s["image_index"] for s in scenes["scenes"]] == list(range(info["images"]))
        for s in scenes["scenes"]:
            assert {"image_index", "image_filename", "objects", "relationships",
                    "relations"} <= set(s)
            assert set(s["relationships"]) >= {"left", "right", "front", "behind", "in", "on"}
            for o in s["objects"]:
                assert {"color", "shape", "3d_coords", "pixel_coords", "visible"} <= set(o)
            png = out / split / "images" / s["image_filename"]
            assert Image.open(png).size == (320, 240)
        for q in questions["questions"]:
            assert {"image_index", "image_filename", "question", "answer", "template",
                    "answer_type", "family"} <= set(q)
            assert q["family"] == split


def test_hf_images_are_the_png_files(small_run):
    out, manifest = small_run
    hf = load_from_disk(str(out / "hf"))
    split = next(iter(manifest["families"]))
    row = hf[split].cast_column("image", ImageFeature(decode=False))[0]
    png = (out / split / "images" / row["image"]["path"]).read_bytes()
    assert row["image"]["bytes"] == png
    assert Image.open(io.BytesIO(png)).mode == "RGB"


def test_manifest_has_command_seeds_counts_and_statistics(small_run):
    out, manifest = small_run
    on_disk = json.loads((out / "manifest.json").read_text())
    assert on_disk == json.loads(json.dumps(manifest))
    assert on_disk["command"].startswith("codeplan datagen vqa --out ")
    assert "--images-per-split 4" in on_disk["command"]
    assert on_disk["totals"]["images"] == 4 * len(on_disk["families"])
    for info in on_disk["families"].values():
        assert info["shards"] == 2 and len(info["shard_seeds"]) == 2
        stats = info["question_stats"]
        assert stats["questions"] == info["questions"]
        assert set(stats["answer_types"]) <= {"yes/no", "color", "count", "object", "objects"}
        for template in stats["templates"].values():
            assert sum(template["answers"].values()) <= template["questions"]
        assert info["image_stats"]["images"] == 4
    assert on_disk["run"]["images_per_hour"] > 0
