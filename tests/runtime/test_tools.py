"""The perception-grounded tools, the switch to them, and monitor mode's watched motion, on
the real simulator with the shipped detector (the tools never read ground truth)."""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from ravens_env.agents.oracle import OracleActor, step_holds
from ravens_env.env import TabletopEnv
from ravens_env.scene_graph import Scene, SceneObject
from ravens_env.tasks.stack_block_pyramid import slot_occupant, stand_slots
from ravens_env.types import Observation, PickPlace
from runtime.components import make_reasoner
from runtime.controller import ActionStuck, Claim, Controller, Replan
from runtime.tools import HIDDEN, PICK_TOLERANCE, GroundedActor, Toolbox, make_toolbox
from runtime.trace import TraceWriter
from vrs.detector.camera import PinholeCamera

TASK = "put-blocks-in-matching-bowls"


@pytest.fixture(scope="module")
def toolbox():
    return make_toolbox(make_reasoner("detector", None))


@pytest.fixture
def env():
    with TabletopEnv() as e:
        yield e


def _blocks(env: TabletopEnv) -> list[str]:
    return [o.name for o in env.scene(visibility=False).objects if o.type == "block"]


def test_a_learned_action_that_agrees_with_perception_needs_no_tool(env, toolbox):
    obs = env.reset(TASK, 5000)
    block = _blocks(env)[0]
    step = f"put the {block} in the {block.replace('block', 'bowl')}"
    truth = OracleActor(env).act(obs, step)
    choice = toolbox.choose(obs, step, truth)
    assert choice.tools == () and choice.action == truth


def test_the_halves_off_perception_are_replaced_by_the_grounded_ones(env, toolbox):
    obs = env.reset(TASK, 5000)
    block = _blocks(env)[0]
    step = f"put the {block} in the {block.replace('block', 'bowl')}"
    truth = OracleActor(env).act(obs, step)
    off_pick = replace(truth, pick=(truth.pick[0] + 0.1, truth.pick[1], truth.pick[2]))
    choice = toolbox.choose(obs, step, off_pick)
    assert choice.tools == ("grasp",) and choice.action.place == truth.place
    assert np.hypot(*np.subtract(choice.action.pick[:2], truth.pick[:2])) < PICK_TOLERANCE
    off_place = replace(truth, place=(truth.place[0], truth.place[1] - 0.08, 0.0))
    assert toolbox.choose(obs, step, off_place).tools == ("place",)
    assert toolbox.choose(obs, step, truth, force=("grasp",)).tools == ("grasp",)
    assert toolbox.choose(obs, step, None).tools == ("grasp", "place")
    # a tool that just failed is avoided while the learned half is there
    assert toolbox.choose(obs, step, off_pick, avoid=("grasp",)).tools == ()
    assert toolbox.choose(obs, step, None, avoid=("grasp",)).tools == ("grasp", "place")


def test_the_grounded_place_fills_an_empty_stands_end_then_the_slot_beside_it(env, toolbox):
    """From perception alone: an end slot of an empty stand (its yaw read off the board),
    then the middle next to the seated block, not the far end (10 cm of yaw error away)."""
    obs = env.reset("stack-block-pyramid", 5000)
    first, second = _blocks(env)[:2]
    full = stand_slots(env.scene(visibility=False).get("stand"))[:3]
    slots = [s[:2] for s in full]
    place, _ = toolbox.grounded.place_for(obs, "stand", first)
    end = min((0, 2), key=lambda i: np.hypot(*np.subtract(place, slots[i])))
    assert np.hypot(*np.subtract(place, slots[end])) < 0.01
    obs = env.execute(OracleActor(env).act(obs, f"put the {first} on the stand"))
    seated = slot_occupant(env.scene(visibility=False), full[0])
    assert seated == first  # the oracle takes slot 0; the grounded tool may read it as 2
    place, _ = toolbox.grounded.place_for(obs, "stand", second)
    assert np.hypot(*np.subtract(place, slots[1])) < 0.01


def test_any_place_on_the_stand_counts_as_on_target(env, toolbox):
    """Whether a learned place is on the stand is judged by its centre alone: the end slots
    carry the perceived yaw's error."""
    obs = env.reset("stack-block-pyramid", 5000)
    block = _blocks(env)[0]
    step = f"put the {block} on the stand"
    stand = env.scene(visibility=False).get("stand").position
    on_stand = PickPlace((0.5, 0.0, 0.0), (stand[0], stand[1] + 0.05, 0.0))
    assert toolbox.place_error(obs, step, on_stand) == 0.0
    off = PickPlace((0.5, 0.0, 0.0), (stand[0] + 0.2, stand[1], 0.0))
    assert toolbox.place_error(obs, step, off) > 0.1


class WrongBlockActor:
    """Always picks `decoy` (from ground truth) and places where the step says: the
    deterministic wrong-object pick the learned actor makes on some scenes."""

    name = "wrong-block"

    def __init__(self, env: TabletopEnv, decoy: str) -> None:
        self.oracle, self.decoy = OracleActor(env), decoy

    def act(self, obs: Observation, instruction: str) -> PickPlace:
        right = self.oracle.act(obs, instruction)
        wrong = self.oracle.act(obs, f"put the {self.decoy} in the {self.decoy}")
        return replace(right, pick=wrong.pick)


class MissActor:
    """Always sets the suction cup down beside the block, on bare table (the learned
    actor's pick a few centimetres off): the same miss on every redo."""

    name = "miss"

    def __init__(self, env: TabletopEnv) -> None:
        self.oracle, self.env = OracleActor(env), env

    def act(self, obs: Observation, instruction: str) -> PickPlace:
        right = self.oracle.act(obs, instruction)
        for dx, dy in ((0.06, 0), (-0.06, 0), (0, 0.06), (0, -0.06)):
            x, y = right.pick[0] + dx, right.pick[1] + dy
            hit = self.env.surface_below(x, y)
            if hit is not None and self.env.object_by_body(hit[0]) is None:
                return replace(right, pick=(x, y, right.pick[2]))
        raise AssertionError("no bare table beside the block")


def _controller(env, tmp_path, mode, toolbox, tool_switch, actor):
    trace = TraceWriter(tmp_path / f"{mode}-{tool_switch}", {"test": True})
    return Controller(env, actor, make_reasoner("oracle", env), mode,
                      env.observe(), trace, toolbox=toolbox, tool_switch=tool_switch)


def _events(c: Controller, kind: str) -> list[dict]:
    c.trace.close()
    lines = c.trace.path.read_text().splitlines()[1:]
    return [e for e in map(json.loads, lines) if e.get("type") == kind]


def test_without_the_switch_a_wrong_block_pick_gets_stuck(env, tmp_path, toolbox):
    env.reset(TASK, 5000)
    block = _blocks(env)[0]
    c = _controller(env, tmp_path, "progress", toolbox, False, MissActor(env))
    with pytest.raises(ActionStuck):
        c.put_first_on_second(block, block.replace("block", "bowl"))


def test_after_two_failures_the_grounded_grasp_does_the_step_and_then_switches_back(
        env, tmp_path, toolbox):
    env.reset(TASK, 5000)
    first, second = _blocks(env)[:2]
    c = _controller(env, tmp_path, "progress", toolbox, True, MissActor(env))
    for block in (first, second):
        c.put_first_on_second(block, block.replace("block", "bowl"))
        assert step_holds(env.scene(visibility=False),
                          f"put the {block} in the {block.replace('block', 'bowl')}")
    assert c.counters.retries == 4 and c.counters.tool_uses == 2  # 2 misses, then the tool
    assert c.counters.failed_actions == 4  # nothing to pick: the learned actor's misses
    switches = _events(c, "tool_switch")
    assert [s["tools"] for s in switches] == [["grasp"], ["grasp"]]


def _replans_until_it_holds(c: Controller, block: str, bowl: str, tries: int) -> int:
    """DKPROMPT's loop for one put: each missing effect stops the codeplan (`Replan`) and
    the replan asks for the same put again; how many puts it took."""
    for attempt in range(1, tries + 1):
        try:
            c.put_first_on_second(block, bowl)
            return attempt
        except Replan:
            continue
    return 0


@pytest.mark.parametrize("switch", [False, True])
def test_dkprompt_mode_switches_to_the_tools_after_two_missing_effects(env, tmp_path, toolbox,
                                                                      switch):
    env.reset(TASK, 5000)
    block = _blocks(env)[0]
    bowl = block.replace("block", "bowl")
    c = _controller(env, tmp_path, "dkprompt", toolbox, switch, MissActor(env))
    c.monitor.start(env.scene(visibility=False).names(), [])
    puts = _replans_until_it_holds(c, block, bowl, 4)
    if not switch:  # the learned actor misses the same way every time
        assert puts == 0 and c.counters.tool_uses == 0
        return
    assert puts == 3 and c.counters.tool_uses == 1  # two misses, then the grounded grasp
    assert step_holds(env.scene(visibility=False), f"put the {block} in the {bowl}")
    assert [s["tools"] for s in _events(c, "tool_switch")] == [["grasp"]]


def test_monitor_mode_halts_a_wrong_block_lift_puts_it_back_and_grasps(env, tmp_path,
                                                                      toolbox):
    env.reset(TASK, 5000)
    block, decoy = _blocks(env)[:2]
    decoy_at = env.scene(visibility=False).get(decoy).position
    c = _controller(env, tmp_path, "monitor", toolbox, False, WrongBlockActor(env, decoy))
    c.put_first_on_second(block, block.replace("block", "bowl"))
    scene = env.scene(visibility=False)
    assert step_holds(scene, f"put the {block} in the {block.replace('block', 'bowl')}")
    assert np.hypot(*np.subtract(scene.get(decoy).position[:2], decoy_at[:2])) < 0.02  # back
    halts = _events(c, "halt")
    assert [(h["segment"], h["recovery"]) for h in halts] == [("lift", "grasp")]
    assert "another block was lifted" in halts[0]["reason"]
    actions = _events(c, "action")  # halted, the decoy put back, the grounded redo
    assert [a.get("after_halt") for a in actions] == [None, "grasp", None]
    assert actions[0]["result"]["halted"] == "lift"
    assert actions[1]["result"]["picked"] == decoy and actions[2]["holds"]
    assert c.counters.halts == 1 and c.counters.retries == 1


def test_monitor_mode_halts_a_drop_in_transport_at_once(tmp_path, toolbox):
    with TabletopEnv(situations="drop=1") as env:
        env.reset(TASK, 5000)
        block = _blocks(env)[0]
        trace = TraceWriter(tmp_path / "drop", {"test": True})
        c = Controller(env, OracleActor(env), make_reasoner("oracle", env), "monitor",
                       env.observe(), trace, toolbox=toolbox)
        try:  # every carry drops (one may bounce into the bowl)
            c.put_first_on_second(block, block.replace("block", "bowl"))
        except Replan as stop:
            assert "halt 3 of this step" in stop.feedback  # the tools did not fix it
        halts = _events(c, "halt")
        actions = _events(c, "action")
    assert halts and all(h["segment"] == "carry" for h in halts)
    assert [h["recovery"] for h in halts] == ["grasp", "grasp", "replan"][:len(halts)]
    assert all(a["result"]["halted"] == "carry" for a in actions)
    assert all("drop" in a["result"]["situations"] for a in actions)
    assert all(a["result"]["picked"] == block for a in actions)  # what the cup held
    assert len(actions) == len(halts) >= 2


def test_monitor_mode_and_the_switch_need_a_toolbox(env, tmp_path):
    env.reset(TASK, 5000)
    trace = TraceWriter(tmp_path / "t", {"test": True})
    with pytest.raises(ValueError, match="needs a toolbox"):
        Controller(env, OracleActor(env), make_reasoner("oracle", env), "monitor",
                   env.observe(), trace)


def test_the_tools_need_a_reasoner_that_parses_scenes(env):
    env.reset(TASK, 5000)
    with pytest.raises(ValueError, match="parses scenes"):
        make_toolbox(make_reasoner("oracle", env))


def test_a_monitor_run_with_the_switch_resimulates_to_the_same_outcome_and_reports_halts(
        tmp_path):
    """The trace header carries --tool-switch, so `replay --resimulate` repeats the run with
    it; the report shows each halt and its recovery."""
    from runtime.replay import resimulate
    from runtime.run_config import RunConfig
    from runtime.runner import run_episode

    config = RunConfig(task="put-block-in-bowl", seed=1, mode="monitor", actor="oracle",
                       reasoner="oracle", situations="drop=0.5", runs_dir=tmp_path / "a",
                       tool_switch=True)
    first = run_episode(config)
    report = (tmp_path / "a").glob("*/report.html").__next__().read_text()
    assert "halted after carry" in report and "-&gt; grasp" in report
    again, end = resimulate(first.run_dir, tmp_path / "b")
    assert again.success == end["success"] and again.counts["halts"] == first.counts["halts"]
    header = json.loads(open(f"{again.run_dir}/trace.jsonl").readline())
    assert header["mode"] == "monitor" and header["tool_switch"] is True


def test_a_block_the_detector_does_not_see_is_not_a_divergence(env, tmp_path, toolbox):
    """Not seen before the action, the lift cannot be judged: the watcher lets the action
    continue (a replan from a look that misses the block ended dev episodes in false done)."""
    from ravens_env.scene_graph import Scene
    from runtime.tools import GroundedActor, Toolbox

    env.reset(TASK, 5000)
    block, decoy = _blocks(env)[:2]
    full = toolbox.grounded.scene_for

    def blind(image):
        scene = full(Observation(None, None, image, None, "", 0))
        kept = [o for o in scene.objects if o.name != block]
        return Scene(kept, [r for r in scene.relations if block not in (r.subject, r.object)])

    c = _controller(env, tmp_path, "monitor", Toolbox(GroundedActor(blind)), False,
                    WrongBlockActor(env, decoy))
    c._known = [o.name for o in env.scene(visibility=False).objects]
    c.claims = []
    c._execute(Claim(block, block.replace("block", "bowl")))
    assert c.counters.halts == 0
    assert _events(c, "action")[0]["result"]["picked"] == decoy  # ran to the end, unwatched


def test_grasp_and_place_are_grounded_separately(env, toolbox):
    """A block the detector sees can be grasped though its target is not seen (a halt's
    grasp then still replaces a wrong learned pick); nothing seen is a clear error."""
    from ravens_env.scene_graph import Scene
    from runtime.tools import GroundedActor, Toolbox

    obs = env.reset(TASK, 5000)
    block = _blocks(env)[0]
    bowl = block.replace("block", "bowl")
    step = f"put the {block} in the {bowl}"
    truth = OracleActor(env).act(obs, step)
    full = toolbox.grounded.scene_for

    def without(*names):
        def parse(image):
            scene = full(Observation(None, None, image, None, "", 0))
            return Scene([o for o in scene.objects if o.name not in names], [])
        return Toolbox(GroundedActor(parse))

    wrong = replace(truth, pick=(truth.pick[0] + 0.1, truth.pick[1], truth.pick[2]))
    choice = without(bowl).choose(obs, step, wrong, force=("grasp", "place"))
    assert choice.tools == ("grasp",) and "place not seen" in choice.reason
    assert np.hypot(*np.subtract(choice.action.pick[:2], truth.pick[:2])) < PICK_TOLERANCE
    with pytest.raises(ValueError, match="neither"):
        without(block, bowl).choose(obs, step, wrong)
    with pytest.raises(ValueError, match="does not see"):
        without(bowl).choose(obs, step, None)


# -- the pyramid's geometry in the grounded tools (session 37) ------------------------------

def _scene(stand_xy=(0.5, 0.0), stand_yaw=0.3, blocks=()) -> Scene:
    """A perceived scene: a stand and blocks given as (name, (x, y, z))."""
    objects = [SceneObject("stand", "stand", "brown", (*stand_xy, 0.005), stand_yaw)]
    objects += [SceneObject(n, "block", n.split()[0], p) for n, p in blocks]
    return Scene(objects)


def _grounded(scenes: dict) -> GroundedActor:
    """A grounded actor whose 'detector' returns the scene filed under the image's key."""
    return GroundedActor(lambda image: scenes[image], PinholeCamera())


def _obs(key: str):
    return SimpleNamespace(front_rgb=key)


def test_a_step_onto_the_stand_or_two_blocks_takes_the_grounded_place_from_its_first_try():
    assert Toolbox.first_tools("put the red block on the stand") == ("place",)
    assert Toolbox.first_tools("put the red block on the blue block and the green block") \
        == ("place",)
    assert Toolbox.first_tools("put the red block on the blue block") == ()
    assert Toolbox.first_tools("put the red block in the blue bowl") == ()


def test_a_learned_pick_is_judged_at_its_own_height_not_at_the_misread_level():
    """The detector read a middle-row block a level too high, which moves its cast along the
    camera ray; a learned pick on its true top (height from depth) is on the block when the
    block's pixel is cast at that height, though 3+ cm from the parsed position, and a pick
    on the neighbouring block is still off it."""
    slots = stand_slots(_scene().get("stand"))
    camera = PinholeCamera()
    true_red = np.array(slots[3])
    uv = camera.project(true_red[None])[:, :2]
    misread = camera.unproject_to_height(uv, np.array([slots[5][2]]))[0]  # a level too high
    scene = _scene(blocks=[("red block", tuple(misread))])
    grounded = _grounded({"s": scene})
    top = (true_red[0], true_red[1], true_red[2] + 0.02)  # the suction point on its top
    assert np.hypot(*np.subtract(misread[:2], top[:2])) > 0.03  # the old test: "off"
    assert grounded.pick_error(_obs("s"), "red block", top) < 0.002
    beside = (slots[4][0], slots[4][1], top[2])
    assert grounded.pick_error(_obs("s"), "red block", beside) > PICK_TOLERANCE
    without_camera = GroundedActor(lambda image: scene)  # levels as parsed
    assert without_camera.pick_error(_obs("s"), "red block", top) > 0.03
    # and the toolbox keeps that learned pick: no grounded grasp at the misread point
    toolbox = Toolbox(grounded)
    learned = PickPlace(pick=top, place=(0.5, 0.0, 0.0))  # onto the stand's centre
    assert toolbox.choose(_obs("s"), "put the red block on the stand", learned).tools == ()
    assert Toolbox(without_camera).choose(
        _obs("s"), "put the red block on the stand", learned).tools == ("grasp",)


def test_the_stand_stays_where_the_episodes_first_image_showed_it():
    """The stand is a fixture: a later parse that reads it elsewhere (from the blocks taken
    to be on it) or misses it (covered) gets the first image's stand."""
    first = _scene((0.5, 0.0), 0.3)
    drifted = _scene((0.53, 0.02), 1.2, [("red block", (0.5, 0.0, 0.03))])
    covered = Scene([o for o in drifted.objects if o.type != "stand"])
    grounded = _grounded({"first": first, "drifted": drifted, "covered": covered})
    assert grounded.scene_for(_obs("drifted")).get("stand").yaw == 1.2  # nothing kept yet
    grounded.start_episode(_obs("first"))
    for key in ("drifted", "covered"):
        stand = grounded.scene_for(_obs(key)).get("stand")
        assert stand.position[:2] == (0.5, 0.0) and stand.yaw == 0.3
        assert "red block" in grounded.scene_for(_obs(key)).names()


def test_a_slot_is_taken_by_a_block_near_it_or_under_a_raised_one_not_by_a_table_block():
    stand = _scene().get("stand")
    slot = stand_slots(stand)[0]
    grounded = _grounded({})
    off = (slot[0] + 0.02, slot[1], slot[2])
    assert grounded.occupant(_scene(blocks=[("red block", off)]), slot) == "red block"
    on_table = (slot[0] + 0.02, slot[1], 0.02)  # beside the board, 1 cm lower
    assert grounded.occupant(_scene(blocks=[("red block", on_table)]), slot) is None
    raised = (slot[0] + 0.015, slot[1], slot[2] + 0.04)  # a middle-row block, nothing seen under
    assert grounded.occupant(_scene(blocks=[("red block", raised)]), slot) == HIDDEN
    phantom = (slot[0] + 0.03, slot[1], slot[2])  # past half the slot spacing
    assert grounded.occupant(_scene(blocks=[("red block", phantom)]), slot) is None
    # the next free slot skips a taken one: slot 0 held 2 cm off, the place goes to slot 1
    scene = _scene(blocks=[("red block", off)])
    place, _ = _grounded({"s": scene}).place_for(_obs("s"), "stand", "blue block")
    assert np.hypot(*np.subtract(place, stand_slots(stand)[1][:2])) < 1e-6


def test_a_level_is_not_fitted_onto_slots_other_blocks_are_seen_in():
    """A base slot a perceived block fills (within 2 cm, at its height) is no place for a
    support cast a level too low; the supports themselves and blocks elsewhere do not count."""
    from runtime.tools import _taken_slots

    slots = np.asarray(stand_slots(_scene().get("stand")))
    scene = _scene(blocks=[("cyan block", tuple(slots[0])), ("gray block", tuple(slots[1])),
                           ("red block", tuple(slots[2])),
                           ("blue block", (slots[3][0] + 0.03, slots[3][1], slots[3][2]))])
    assert _taken_slots(scene, slots, ["red block", "pink block"]) == {0, 1}


def test_two_supports_are_read_at_one_level_of_the_stands_rows():
    """The top block's supports stand in the middle row; the detector read one a level too
    low, which moves it along its camera ray. Cast at the level that fits the rows, the
    place lands on the top slot, not the perceived midpoint ~2 cm away."""
    stand = _scene().get("stand")
    slots = stand_slots(stand)
    camera = PinholeCamera()
    true_red, true_pink = np.array(slots[3]), np.array(slots[4])
    uv = camera.project(true_red[None])[:, :2]
    misread = camera.unproject_to_height(uv, np.array([slots[0][2]]))[0]  # read as a base block
    scene = _scene(blocks=[("red block", tuple(misread)), ("pink block", tuple(true_pink)),
                           ("cyan block", slots[0]), ("gray block", slots[1]),
                           ("blue block", slots[2])])
    grounded = _grounded({"s": scene})
    place, _ = grounded.place_for(_obs("s"), "red block and pink block", "yellow block")
    assert np.hypot(*np.subtract(place, slots[5][:2])) < 0.002
    naive = (misread[:2] + true_pink[:2]) / 2
    assert np.hypot(*np.subtract(naive, slots[5][:2])) > 0.01
    without_camera = GroundedActor(lambda image: scene)  # levels as parsed
    place, _ = without_camera.place_for(_obs("s"), "red block and pink block", "yellow block")
    assert np.allclose(place, naive)


def test_a_grounded_grasp_that_lifted_nothing_is_not_repeated_on_the_next_try(env, tmp_path,
                                                                              toolbox):
    """Perception puts the block on bare table 6 cm from where it is, and the learned
    actor misses too: after its two misses the grounded grasp finds nothing, so the next try
    keeps the learned pick (switching back) instead of setting the cup down on the same
    empty spot, and the try after that has the tool again."""
    env.reset(TASK, 5000)
    block = _blocks(env)[0]
    bowl = block.replace("block", "bowl")
    miss = MissActor(env)
    missed_at = miss.act(env.observe(), f"put the {block} in the {bowl}").pick[:2]
    x, y = env.scene(visibility=False).get(block).position[:2]
    shifted = next((x + dx, y + dy) for dx, dy in ((0.06, 0), (-0.06, 0), (0, 0.06), (0, -0.06))
                   if np.hypot(x + dx - missed_at[0], y + dy - missed_at[1]) > 0.05
                   and (hit := env.surface_below(x + dx, y + dy)) is not None
                   and env.object_by_body(hit[0]) is None)

    def misplaced(image):
        scene = toolbox.grounded.parse(image)
        return replace(scene, objects=[
            replace(o, position=(*shifted, o.position[2])) if o.name == block else o
            for o in scene.objects])

    c = _controller(env, tmp_path, "progress", Toolbox(GroundedActor(misplaced)), True, miss)
    with pytest.raises(ActionStuck):
        c.put_first_on_second(block, bowl)
    switches = _events(c, "tool_switch")
    assert [s["tools"] for s in switches] == [["grasp"], [], ["grasp"]]
    assert [s["avoided"] for s in switches] == [[], ["grasp"], []]


class OffSlotActor:
    """Puts a block on the stand 3 cm along the board from the slot the oracle would use:
    on the stand, in no slot (the learned actor's base places, 1-3 cm off)."""

    name = "off-slot"

    def __init__(self, env: TabletopEnv) -> None:
        self.oracle, self.env = OracleActor(env), env

    def act(self, obs: Observation, instruction: str) -> PickPlace:
        right = self.oracle.act(obs, instruction)
        yaw = self.env.scene(visibility=False).get("stand").yaw
        x, y, z = right.place
        return replace(right, place=(x - 0.03 * np.sin(yaw), y + 0.03 * np.cos(yaw), z))


@pytest.mark.parametrize("switch", [False, True])
def test_with_the_tools_on_a_base_block_goes_into_a_slot_from_the_first_try(env, tmp_path,
                                                                            toolbox, switch):
    env.reset("stack-block-pyramid", 5000)
    block = _blocks(env)[0]
    c = _controller(env, tmp_path, "progress", toolbox, switch, OffSlotActor(env))
    c.put_first_on_second(block, "stand")
    scene = env.scene(visibility=False)
    slots = stand_slots(scene.get("stand"))[:3]
    off = min(np.hypot(*np.subtract(scene.get(block).position[:2], s[:2])) for s in slots)
    assert c.counters.actions == 1  # "on the stand" holds either way: no redo
    if not switch:
        assert off > 0.02 and c.counters.tool_uses == 0
        return
    assert off < 0.01 and c.counters.tool_uses == 1
    assert _events(c, "tool_switch")[0]["asked"] == ["place"]
