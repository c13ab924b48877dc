"""TabletopEnv: the Ravens-style simulator behind the `Env` seam of the design.

    reset(task, seed) -> Observation      execute(PickPlace) -> Observation
    observe() -> Observation              scene() -> Scene (ground truth: oracle + scoring)
    success() -> bool

One PyBullet client in DIRECT mode per env (no display). Everything that varies is drawn from
generators seeded by the episode seed — the layout from stream 0, situation rolls from stream 1,
situation details from stream 2 and grasp-failure rolls from stream 3 — and physics is stepped
a counted number of times, so the same task, seed and settings give the same trajectory on any
machine under any load.
"""

from __future__ import annotations

import numpy as np

from ravens_env import assets
from ravens_env.bullet import pb
from ravens_env.cameras import (
    FrontCameraConfig,
    FrontImage,
    image_footprint,
    render_front,
    render_heightmap,
)
from ravens_env.colors import rgba
from ravens_env.dimensions import BOWL_FLOOR
from ravens_env.geometry import BOUNDS, cube_tilt, in_workspace, quat_to_yaw, tilt, yaw_to_quat
from ravens_env.motion import (
    CARRY_STEP,
    TIMESTEP,
    Motion,
    MotionLog,
    Segments,
    carry_waypoints,
)
from ravens_env.robot import SuctionArm
from ravens_env.scene_graph import Scene, SceneObject, compute_relations
from ravens_env.situation_effects import SituationEffects
from ravens_env.situations import KINDS, PICK_KINDS, PLACE_KINDS, Situations, parse_situations
from ravens_env.tasks import ObjectSpec, Task, make_task
from ravens_env.types import ActionResult, Observation, PickPlace, SimObject

SAFE_TIP_Z = 0.34  # metres: transport height of the suction tip (above a 6-block tower)
SETTLE_CHUNK = 8  # physics steps between stillness checks
SETTLE_MAX = 480  # physics steps (2 s of simulated time) at most per settle
STILL_LINEAR = 2e-3  # m/s
STILL_ANGULAR = 2e-2  # rad/s
NATURAL_CLEARANCE = 0.03  # metres under a block carried with natural failures on
NATURAL_STEP = 0.01  # metres between carry waypoints with natural failures on
DISPLACED_M = 0.01  # an object an action moved further than this was displaced by it
START_GAP = 0.001  # metres of air under an object created in or on another (`ObjectSpec.on`)


def _phase_outcome(situations: Situations, kinds: tuple[str, ...], u: float) -> str | None:
    """The kind whose share of [0, 1) holds `u` (kinds in order, each its probability wide)."""
    edge = 0.0
    for kind in kinds:
        edge += getattr(situations, kind)
        if u < edge:
            return kind
    return None


def _bounds_text() -> str:
    x, y, z = (f"[{lo:g}, {hi:g}]" for lo, hi in BOUNDS)
    return f"x {x} y {y} z {z} m"


def start_position(spec: ObjectSpec, placed: dict[str, tuple[str, tuple]]
                   ) -> tuple[float, float, float]:
    """Where an object is created (metres): on the table, or in / on the object `spec.on`
    names (`placed`: name -> (type, xyz) of the objects created before it), at its xy."""
    heights = {"block": assets.BLOCK_SIZE / 2, "bowl": 0.0, "stand": assets.STAND_SIZE[2] / 2}
    if not spec.on:
        return (*spec.xy, heights.get(spec.type, 0.0))
    if spec.on not in placed:
        raise ValueError(f"{spec.name} starts on {spec.on!r}, which is not created before it")
    kind, (x, y, z) = placed[spec.on]
    if spec.type != "block" or kind not in ("bowl", "block"):
        raise ValueError(f"only a block can start in a bowl or on a block, not the {spec.name} "
                         f"on the {spec.on}")
    base = z + BOWL_FLOOR if kind == "bowl" else z + assets.BLOCK_SIZE / 2
    return (x, y, base + assets.BLOCK_SIZE / 2 + START_GAP)


class TabletopEnv:
    """A tabletop with a suction arm, procedural objects and one task per episode."""

    def __init__(self, task: str | None = None, *, situations: Situations | str = "none",
                 front_camera: FrontCameraConfig | None = None) -> None:
        self.task_id = task
        self.situations = (parse_situations(situations) if isinstance(situations, str)
                           else situations)
        self.front_camera = front_camera or FrontCameraConfig()
        self.client = pb.connect(pb.DIRECT)
        self.task: Task | None = None
        self.objects: list[SimObject] = []
        self.arm: SuctionArm | None = None
        self.seed = 0
        self.steps = 0
        self._version = 0  # bumped whenever the world changes; keys the render cache
        self._front_cache: tuple[int, FrontImage] | None = None
        self._last: ActionResult | None = None
        self._motion: Motion | None = None  # the pick-place in progress, if any
        self._motion_log = MotionLog()
        self._before_action: dict[str, tuple[float, float, float]] = {}  # positions at its start

    # -- the seam -----------------------------------------------------------------------
    def reset(self, task: str | None = None, seed: int = 0) -> Observation:
        """Start an episode of `task` (or the env's task) with layout and situations from `seed`."""
        task_id = task or self.task_id
        if task_id is None:
            raise ValueError("no task given: pass reset(task=...) or TabletopEnv(task=...)")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.task = make_task(task_id)  # raises UnknownTaskError with the known ids
        self.task_id, self.seed, self.steps, self._last = task_id, int(seed), 0, None
        self._motion = None
        specs = self.task.setup(np.random.default_rng([self.seed, 0]))
        self._build(specs)
        self._effects = SituationEffects(self, np.random.default_rng([self.seed, 2]))
        self._rolls = np.random.default_rng([self.seed, 1])
        self._grasp_rolls = np.random.default_rng([self.seed, 3])
        self.settle()
        return self.observe()

    def execute(self, action: PickPlace) -> Observation:
        """Run one pick-place; failures are recorded in `last_action`, never raised."""
        return self._begin(action, stepwise=False).finish()

    def start(self, action: PickPlace) -> Motion:
        """Begin one pick-place that advances a segment per `Motion.step()` and can be
        halted in between (`ravens_env.motion`); physics runs while the arm moves."""
        return self._begin(action, stepwise=True)

    def _begin(self, action: PickPlace, stepwise: bool) -> Motion:
        self._require_episode()
        if not isinstance(action, PickPlace):
            raise TypeError(f"execute() takes a PickPlace, got {type(action).__name__}")
        if self._motion is not None and self._motion.result is None:
            raise RuntimeError("a pick-place is still in motion: finish() or halt() it first")
        self.steps += 1
        self._before_action = self._positions()
        self._motion_log = MotionLog()
        self._motion = Motion(self, self._pick_and_place(action, stepwise),
                              stepwise or self.situations.natural, SAFE_TIP_Z)
        return self._motion

    def _end_action(self, result: ActionResult) -> None:
        """A pick-place is over (done or halted): record it (with what it displaced) and run
        the task's hook."""
        after = self._positions()
        result.displaced = sorted(
            name for name, xyz in self._before_action.items()
            if name != result.picked and name in after
            and float(np.linalg.norm(np.subtract(after[name], xyz))) > DISPLACED_M)
        self._last = result
        self._task_after_step()
        self._version += 1

    def observe(self) -> Observation:
        self._require_episode()
        top = render_heightmap(self.client)
        front = self._front()
        return Observation(
            color=top.color, height=top.height, front_rgb=front.rgb, front_depth=front.depth,
            instruction=self.task.instruction, step=self.steps, last_action=self._last,
            holding=self._held_name(),
        )

    def _held_name(self) -> str | None:
        """The block the suction cup still holds (after a `place_held`), from robot state."""
        held = self.arm.held if self.arm is not None else None
        obj = self.object_by_body(held) if held is not None else None
        return obj.name if obj else None

    def scene(self, visibility: bool = True) -> Scene:
        """Ground-truth scene graph; `visibility` adds front-camera pixel counts (one render)."""
        self._require_episode()
        seg = self._front().segmentation if visibility else None
        objects = [self._scene_object(o, seg) for o in self.objects]
        return Scene(objects, compute_relations(objects))

    def success(self) -> bool:
        self._require_episode()
        return self.task.success(self.scene(visibility=False))

    def close(self) -> None:
        if self.client >= 0 and pb.isConnected(self.client):
            pb.disconnect(self.client)
        self.client = -1

    def __enter__(self) -> TabletopEnv:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- building and physics -----------------------------------------------------------
    def _build(self, specs: list[ObjectSpec]) -> None:
        c = self.client
        pb.resetSimulation(physicsClientId=c)
        pb.setPhysicsEngineParameter(fixedTimeStep=TIMESTEP, deterministicOverlappingPairs=1,
                                     physicsClientId=c)
        pb.setGravity(0, 0, -9.8, physicsClientId=c)
        assets.create_table(c)
        self.arm = SuctionArm(c)
        self.objects = []
        placed: dict[str, tuple[str, tuple[float, float, float]]] = {}  # name -> type, xyz
        for spec in specs:
            xyz = start_position(spec, placed)
            placed[spec.name] = (spec.type, xyz)
            self.objects.append(SimObject(spec, self._create(spec, xyz)))
        self._version += 1

    def _create(self, spec: ObjectSpec, xyz: tuple[float, float, float]) -> int:
        color = rgba(spec.color, spec.shade)
        orn = yaw_to_quat(spec.yaw)
        if spec.type == "block":
            return assets.create_block(self.client, color, xyz, orn)
        if spec.type == "bowl":
            return assets.create_bowl(self.client, color, xyz, orn)
        if spec.type == "stand":
            return assets.create_stand(self.client, color, xyz, orn)
        raise ValueError(f"unknown object type {spec.type!r}")

    def settle(self) -> int:
        """Step physics until every object is still (or SETTLE_MAX steps); returns the steps."""
        bodies = [o.body for o in self.objects]
        done = 0
        for done in range(SETTLE_CHUNK, SETTLE_MAX + 1, SETTLE_CHUNK):  # noqa: B007
            for _ in range(SETTLE_CHUNK):
                pb.stepSimulation(physicsClientId=self.client)
            if all(self._still(b) for b in bodies):
                break
        self._version += 1
        return done

    def _still(self, body: int) -> bool:
        lin, ang = pb.getBaseVelocity(body, physicsClientId=self.client)
        return np.linalg.norm(lin) < STILL_LINEAR and np.linalg.norm(ang) < STILL_ANGULAR

    # -- the pick-place primitive ---------------------------------------------------------
    # Each pick-place is a generator of motion segments (`ravens_env.motion.SEGMENTS`): it
    # yields a segment's name once the arm has done it and returns the ActionResult. The
    # blocking path (`execute`) drains it: the same calls in the same order as one function.
    # A `Motion` (`start`) advances it one segment at a time and can halt it in between.
    def _pick_and_place(self, action: PickPlace, stepwise: bool) -> Segments:
        problems = action.problems()
        # Holding a block (a place that did not let go), the arm does not pick: only the
        # place point must be reachable.
        points = (("pick", action.pick),) * (self.arm.held is None) + (("place", action.place),)
        for label, xyz in points:
            if not problems and not in_workspace(xyz):
                problems.append(f"{label} {tuple(round(float(v), 3) for v in xyz)} is outside "
                                f"the workspace {_bounds_text()}")
        if problems:
            return ActionResult(ok=False, reason="; ".join(problems))
        pick_fail, place_fail = self._grasp_failures()
        if self.arm.held is not None:  # a place failed to let go: this action places that block
            held = self.object_by_body(self.arm.held)
            return (yield from self._carry(held, None, action, place_fail, stepwise))
        px, py = float(action.pick[0]), float(action.pick[1])
        target = self.surface_below(px, py)
        obj = self.object_by_body(target[0]) if target else None
        if obj is None:
            return ActionResult(False, f"nothing to pick at ({px:.3f}, {py:.3f}): the suction "
                                "cup touched the table")
        if obj.spec.type != "block":
            return ActionResult(False, f"cannot pick the {obj.name}: suction holds blocks only")
        if pick_fail:
            return (yield from self._failed_pick(obj, target[1], action, pick_fail))
        return (yield from self._carry(obj, target[1], action, place_fail, stepwise))

    def _grasp_failures(self) -> tuple[str | None, str | None]:
        """This action's grasp failure at the pick and at the place (None: it works), one
        draw per phase from stream 3, taken on every well-formed action so that the draws
        line up by step."""
        u_pick, u_place = self._grasp_rolls.random(2)
        return (_phase_outcome(self.situations, PICK_KINDS, u_pick),
                _phase_outcome(self.situations, PLACE_KINDS, u_place))

    def _failed_pick(self, obj: SimObject, contact_z: float, action: PickPlace,
                     kind: str) -> Segments:
        """The suction does not seal (`pick_stay`), or loses the block as it lifts it
        (`pick_drop`: the block lands 3-6 cm away); nothing reaches the place."""
        px, py = float(action.pick[0]), float(action.pick[1])
        arm = self.arm
        arm.move_to(px, py, SAFE_TIP_Z, action.pick_yaw)
        yield "approach"
        arm.move_to(px, py, contact_z, action.pick_yaw)
        yield "descend"
        if kind == "pick_drop":
            arm.attach(obj.body)
            arm.move_to(px, py, SAFE_TIP_Z, action.pick_yaw)
            arm.release()
            self._effects.set_down(obj, *self._effects.nearby(px, py))
            yield "lift"
        self._motion_log.happened.append(kind)
        arm.go_home()
        yield "home"
        return ActionResult(True, picked=obj.name, situations=[kind], physics_steps=self.settle())

    def _carry(self, obj: SimObject, contact_z: float | None, action: PickPlace,
               place_fail: str | None, stepwise: bool) -> Segments:
        """Pick `obj` (skipped when `contact_z` is None: the arm already holds it), carry it
        over the place and let go, with the situations this action draws."""
        rolls = dict(zip(KINDS, self._rolls.random(len(KINDS)), strict=True))
        fired = [k for k, r in rolls.items() if r < getattr(self.situations, k)]
        px, py = float(action.pick[0]), float(action.pick[1])
        arm, log = self.arm, self._motion_log
        qx, qy = float(action.place[0]), float(action.place[1])
        carry_z = self._carry_height(px, py, contact_z, qx, qy)
        if contact_z is not None:
            arm.move_to(px, py, SAFE_TIP_Z, action.pick_yaw)
            yield "approach"
            arm.move_to(px, py, contact_z, action.pick_yaw)
            yield "descend"
            arm.attach(obj.body)
            arm.move_to(px, py, carry_z, action.pick_yaw)
            log.picked = obj.name
            yield "lift"
        log.picked = obj.name
        happened = log.happened
        if place_fail == "place_held":  # over the place, the cup does not let go
            yield from self._transport(qx, qy, action.place_yaw, stepwise, carry_z)
            happened.append(place_fail)
            arm.go_home()
            yield "home"
            return ActionResult(True, picked=obj.name, situations=[place_fail],
                                physics_steps=self.settle())
        if place_fail == "place_drop":  # let go too early: lands beside the target
            qx, qy = self._effects.missed(qx, qy)
            happened.append(place_fail)
            fired = [k for k in fired if k != "miss"]
        if "drop" in fired:
            u = self._effects.rng.uniform(0.2, 0.8)  # fraction of the way when it falls
            yield from self._transport(px + u * (qx - px), py + u * (qy - py),
                                       action.place_yaw, stepwise, carry_z, drop=True)
        else:
            if "miss" in fired:
                qx, qy = self._effects.missed(qx, qy)
                happened.append("miss")
            yield from self._transport(qx, qy, action.place_yaw, stepwise, carry_z)
            yield from self._lower_and_release(qx, qy, action.place_yaw)
        arm.go_home()
        yield "home"
        steps = self.settle()
        if "drop" not in happened:
            displaced = sum(k in happened for k in ("miss", "place_drop"))
            happened += self._effects.after_place(obj, (qx, qy), fired)
            if len(happened) > displaced:
                steps += self.settle()
        return ActionResult(True, picked=obj.name, situations=list(happened),
                            physics_steps=steps)

    def _transport(self, x: float, y: float, yaw: float, stepwise: bool, z: float,
                   drop: bool = False) -> Segments:
        """Carry at tip height `z` to above (x, y): one move on the blocking path, waypoints
        CARRY_STEP apart when stepwise (so a watcher sees the carry), NATURAL_STEP apart with
        natural failures on (so a struck object is pushed, not jumped over); `drop`: the cup
        lets go at the end (the block falls there)."""
        x0, y0, z0 = self.arm.tip_target
        if z0 != z:  # a block held since the last action rises (or sinks) to the carry first
            self.arm.move_to(x0, y0, z, yaw)
        step = NATURAL_STEP if self.situations.natural else CARRY_STEP
        distance = float(np.hypot(x - x0, y - y0))
        n = carry_waypoints(distance, step) if stepwise or self.situations.natural else 1
        for i in range(1, n + 1):
            f = i / n
            self.arm.move_to(x0 + f * (x - x0), y0 + f * (y - y0), z, yaw)
            if drop and i == n:
                self.arm.release()
                self._motion_log.happened.append("drop")
            yield "carry"

    def _carry_height(self, px: float, py: float, contact_z: float | None, qx: float,
                      qy: float) -> float:
        """Tip height for the carry: SAFE_TIP_Z (above any tower), or with natural failures
        the height an arm planning from its endpoints would pick — the carried block's bottom
        NATURAL_CLEARANCE above the higher of the surface it left and the surface at the
        place, whatever stands between."""
        if not self.situations.natural:
            return SAFE_TIP_Z
        if contact_z is not None:  # what the block stood on: a ray from just inside its
            # bottom (a ray that starts inside a body does not hit it)
            left = self._top_below(px, py, contact_z - assets.BLOCK_SIZE + 0.003)
        else:  # a block held since the last action: what is under the arm now
            x, y, tip_z = self.arm.tip_target
            left = self._top_below(x, y, tip_z - 2 * assets.BLOCK_SIZE)
        highest = max(left, self._top_below(qx, qy, 1.0))
        return min(SAFE_TIP_Z, highest + assets.BLOCK_SIZE + NATURAL_CLEARANCE)

    def _top_below(self, x: float, y: float, z: float) -> float:
        """Top (metres) of the object first hit straight below (x, y, z) — a bowl's rim, not
        its floor; 0 for the table."""
        hit = pb.rayTest((x, y, z - 1e-3), (x, y, -0.05), physicsClientId=self.client)[0]
        if hit[0] < 0 or self.object_by_body(hit[0]) is None:
            return 0.0
        return float(pb.getAABB(hit[0], physicsClientId=self.client)[1][2])

    def _lower_and_release(self, x: float, y: float, yaw: float) -> Segments:
        """Lower the held object onto whatever is below (x, y), let go and rise."""
        arm = self.arm
        lo, hi = pb.getAABB(arm.held, physicsClientId=self.client)
        support = self.support_height(lo, hi)
        drop = lo[2] - (support + 0.002)  # metres to lower; 2 mm air gap, then gravity
        arm.move_to(x, y, SAFE_TIP_Z - drop, yaw)
        yield "lower"
        arm.release()
        arm.move_to(x, y, SAFE_TIP_Z, yaw)
        yield "release"

    def _task_after_step(self) -> None:
        """Let the task record history and move blocks on its own (a "disturbance")."""
        moves = self.task.after_step(self.scene(visibility=False), self.steps)
        if not moves:
            return
        for name, (x, y) in moves:
            obj = next(o for o in self.objects if o.name == name)
            self._effects.set_down(obj, x, y)
        self._last.physics_steps += self.settle()
        self._last.situations.append("disturbance")

    def support_height(self, lo: tuple, hi: tuple) -> float:
        """Highest surface (metres) below a 3x3 grid over the box (lo, hi), rays from lo[2]."""
        xs = np.linspace(lo[0], hi[0], 5)[1:4]
        ys = np.linspace(lo[1], hi[1], 5)[1:4]
        starts = [(x, y, lo[2] - 1e-3) for x in xs for y in ys]
        ends = [(x, y, -0.05) for x, y, _ in starts]
        hits = pb.rayTestBatch(starts, ends, physicsClientId=self.client)
        return max((h[3][2] for h in hits if h[0] >= 0), default=0.0)

    def surface_below(self, x: float, y: float) -> tuple[int, float] | None:
        """(body id, z metres) of the first surface straight below (x, y), from above the work
        space; the arm has no collision shapes, so only objects and the table are hit."""
        hit = pb.rayTest((x, y, 1.0), (x, y, -0.05), physicsClientId=self.client)[0]
        return (hit[0], hit[3][2]) if hit[0] >= 0 else None

    def object_by_body(self, body: int) -> SimObject | None:
        return next((o for o in self.objects if o.body == body), None)

    # -- ground truth -----------------------------------------------------------------------
    def _positions(self) -> dict[str, tuple[float, float, float]]:
        """Every object's position (metres), straight from the physics (no render)."""
        return {o.spec.name: pb.getBasePositionAndOrientation(o.body,
                                                              physicsClientId=self.client)[0]
                for o in self.objects}

    def _front(self) -> FrontImage:
        if self._front_cache is None or self._front_cache[0] != self._version:
            self._front_cache = (self._version, render_front(self.client, self.front_camera))
        return self._front_cache[1]

    def _scene_object(self, obj: SimObject, seg: np.ndarray | None) -> SceneObject:
        pos, orn = pb.getBasePositionAndOrientation(obj.body, physicsClientId=self.client)
        box, coords = image_footprint(self.client, obj.body, self.front_camera)
        s = obj.spec
        return SceneObject(
            name=s.name, type=s.type, color=s.color, shade=s.shade,
            position=tuple(round(float(v), 5) for v in pos), yaw=round(quat_to_yaw(orn), 5),
            tilt=round(cube_tilt(orn) if s.type == "block" else tilt(orn), 5), body_id=obj.body,
            pixel_box=box, pixel_coords=coords,
            visible_pixels=int((seg == obj.body).sum()) if seg is not None else 0,
        )

    def _require_episode(self) -> None:
        if self.task is None:
            raise RuntimeError("no episode: call reset(task, seed) first")
        if self.client < 0:
            raise RuntimeError("the env is closed")
