"""`codeplan eval scene-errors`: a detector's parsed scenes counted against the ground truth."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from datagen import generate
from ravens_env.scene_graph import Scene, SceneObject
from runtime.cli import main
from runtime.eval.scene_errors import PLACES, image_errors, summarise


def _true(name: str, kind: str, uv: tuple[float, float], shade: str = "") -> dict:
    return {"name": name, "type": kind, "color": name.split()[0], "shade": shade,
            "pixel_coords": [uv[0], uv[1], 1.0]}


def _parsed(*objects: tuple[str, tuple[float, float]]) -> Scene:
    return Scene([SceneObject(name, name.split()[1], name.split()[0], (0.0, 0.0, 0.0),
                              pixel_coords=(u, v, 0.0)) for name, (u, v) in objects], [])


TRUTH = [_true("red block", "block", (100, 100)), _true("blue block", "block", (200, 100)),
         _true("white block", "block", (150, 180), "dark"), _true("green bowl", "bowl", (60, 60)),
         _true("red bowl", "bowl", (250, 200))]


def test_false_blocks_are_placed_by_the_nearest_true_object_and_misses_by_colour():
    parsed = _parsed(("red block", (101, 99)),  # right
                     ("blue block", (199, 102)),  # right
                     ("gray block", (152, 181)),  # the dark white block, misnamed
                     ("yellow block", (20, 220)),  # on the bare table
                     ("green block", (62, 58)),  # the green bowl read as a block too
                     ("pink block", (248, 203)),  # at the red bowl: another colour
                     ("cyan block", (108, 100)),  # beside the red block
                     ("green bowl", (60, 60)), ("red bowl", (250, 200)))
    counts = image_errors(TRUTH, parsed)
    result = summarise(Counter(counts))
    assert result["false_blocks"] == {"bare table": 1, "at a block": 2,
                                      "at a bowl of its colour": 1, "at another bowl": 1,
                                      "at the stand": 0}
    assert result["missed_blocks"] == 1 and result["missed_seen_under_another_colour"] == 1
    assert result["missed_by_colour"]["white (dark)"] == [1, 1]
    assert result["missed_by_colour"]["red"] == [0, 1]
    assert result["true_blocks"] == 3 and result["parsed_blocks"] == 7
    assert result["exact_count"]["n"] == 0


def test_a_perfect_parse_counts_nothing_and_scales_the_truths_pixels():
    parsed = _parsed(("red block", (50, 50)), ("blue block", (100, 50)),
                     ("white block", (75, 90)))
    counts = image_errors(TRUTH, parsed, scale=0.5)  # the model reads the image at half size
    result = summarise(Counter(counts))
    assert result["false_blocks"] == dict.fromkeys(PLACES, 0)
    assert result["missed_blocks"] == 0 and result["exact_count"]["rate"] == 1.0


@pytest.fixture(scope="module")
def small_set(tmp_path_factory):
    out = tmp_path_factory.mktemp("scene-errors")
    generate(out, ["block_bowl"], images_per_split=3, questions_per_image=2, shard_size=3,
             seed_offset=910_000, progress=False)
    return out


def test_the_command_reads_a_generated_set_with_a_shipped_detector(small_set, capsys):
    assert main(["eval", "scene-errors", "--model", "detector", "--data", str(small_set),
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["results"]["detector"]
    assert result["images"] == 3 and result["true_blocks"] > 0
    # its own renderer: nearly every block found under its own name
    assert result["missed_blocks"] <= 1 and sum(result["false_blocks"].values()) <= 1


def test_images_limits_each_split_and_the_report_names_every_count(small_set, capsys):
    assert main(["eval", "scene-errors", "--model", "detector", "--data", str(small_set),
                 "--images", "1"]) == 0
    report = capsys.readouterr().out
    assert report.startswith("### detector: 1 images,")
    for line in ("- block count exactly right:", "- false blocks: bare table",
                 "- missed blocks:", "- missed by colour:"):
        assert line in report


def test_a_reasoner_without_a_parsed_scene_and_a_folder_without_scenes_are_named(small_set,
                                                                                  tmp_path,
                                                                                  capsys):
    assert main(["eval", "scene-errors", "--model", "ofa", "--data", str(small_set)]) == 2
    assert "parses none" in capsys.readouterr().err
    assert main(["eval", "scene-errors", "--data", str(tmp_path)]) == 2
    assert "no <split>/scenes.json" in capsys.readouterr().err
