"""The oracle reasoner: the Reasoner protocol over ground truth, robust to bad questions."""

from __future__ import annotations

import numpy as np
import pytest

from ravens_env.agents.oracle import run_oracle_episode
from ravens_env.scene_graph import Scene, SceneObject, compute_relations
from vrs.oracle import OracleReasoner
from vrs.reasoner import Answer, Reasoner


def small_scene() -> Scene:
    objects = [SceneObject("blue bowl", "bowl", "blue", (0.5, 0.0, 0.0)),
               SceneObject("red block", "block", "red", (0.5, 0.0, 0.026)),
               SceneObject("green block", "block", "green", (0.5, 0.2, 0.02))]
    return Scene(objects, compute_relations(objects))


def test_a_batch_is_answered_in_order_and_bad_questions_score_zero():
    calls = []
    reasoner = OracleReasoner(lambda: calls.append(1) or small_scene())
    image = np.zeros((240, 320, 3), np.uint8)
    answers = reasoner.ask(image, [
        "is the red block in the blue bowl?", "what is the banana doing?",
        "is the green block in the blue bowl?", "what is below the purple block?",
        "how many blocks are there?", "what is below the green block?",
    ])
    assert [a.text for a in answers[::2]] == ["yes", "no", "2"]
    assert answers[5] == Answer("table", 1.0)
    assert answers[1].score == 0.0 and answers[1].text.startswith("unsupported question:")
    assert "'banana'" in answers[1].text
    assert answers[3].score == 0.0 and answers[3].text.startswith("unknown object:")
    assert "purple block" in answers[3].text and "green block" in answers[3].text
    assert all(a.score == 1.0 for a in answers[::2])
    assert len(calls) == 1  # one scene per batch: every answer describes the same moment


def test_it_is_a_reasoner_that_ignores_the_image():
    reasoner: Reasoner = OracleReasoner(small_scene)
    assert reasoner.name == "oracle"
    assert reasoner.ask(None, []) == []
    assert reasoner.ask(np.ones((4, 4, 3), np.uint8), ["list the objects"]) == [
        Answer("blue bowl, green block, red block", 1.0)]


def test_misuse_is_a_type_error():
    with pytest.raises(TypeError, match="callable"):
        OracleReasoner(small_scene())
    with pytest.raises(TypeError, match="list"):
        OracleReasoner(small_scene).ask(None, "is there a red block?")


def test_after_the_scripted_oracle_every_block_is_in_its_bowl(env):
    assert run_oracle_episode(env, "put-blocks-in-matching-bowls", 0)["success"]
    reasoner = OracleReasoner(lambda: env.scene(visibility=False))
    blocks = [o for o in env.scene(visibility=False).of_type("block")]
    questions = [f"is the {b.name} in the {b.color} bowl?" for b in blocks]
    questions.append("is every block in a bowl of the same color?")
    answers = reasoner.ask(env.observe().front_rgb, questions)
    assert len(blocks) >= 3
    assert [a.text for a in answers] == ["yes"] * len(questions)


def test_an_older_image_is_answered_from_the_scene_of_its_moment():
    from ravens_env.agents.oracle import OracleActor
    from ravens_env.env import TabletopEnv
    from vrs.oracle import MOMENTS_KEPT, OracleReasoner

    with TabletopEnv() as env:
        first = env.reset("put-block-in-bowl", 0)
        block, bowl = env.task.target
        oracle = OracleReasoner(lambda: env.scene(visibility=False))
        question = [f"is the {block} in the {bowl}?"]
        assert oracle.ask(first.front_rgb, question)[0].text == "no"
        after = env.execute(OracleActor(env).act(first, env.task.instruction))
        assert oracle.ask(after.front_rgb, question)[0].text == "yes"
        for k in range(MOMENTS_KEPT + 2):  # many other images later, the first is kept
            oracle.ask(after.front_rgb + k + 1, question)
        assert oracle.ask(first.front_rgb, question)[0].text == "no"
        assert oracle.ask(None, question)[0].text == "yes"  # no image: the scene now
