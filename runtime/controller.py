"""The closed-loop controller: executes a codeplan's actions and re-validates them.

Modes (the seed paper's Table 2 columns):
  open-loop  run the codeplan, never look ("Codeplan")
  success    after each action, ask whether *that* action holds; redo it until it does
             ("Codeplan + Success")
  progress   after each action, ask whether *every* earlier action still holds; redo those
             that no longer hold, in their original order ("Codeplan + Progress")
  monitor    VoLo's: watch each action while the arm moves (`runtime.watch`), halt it on
             divergence and recover (a grounded grasp or place, a replan); afterwards the
             same re-validation as progress
  dkprompt, pre-only, eff-only
             DKPROMPT's method and ablations (`runtime/monitors/`): ask the action's PDDL
             preconditions before it and its effects after it, keep a symbolic belief, and
             stop the codeplan for a replan from that belief when one fails (`Replan`)
  aff-qa, suc-qa, suc-aff-qa
             DKPROMPT's baselines: one holistic question before / after each action, a
             replan (from a fresh look) on "no"

The controller sees the world only through the reasoner (questions about the front image) and
acts only through the actor; success is scored elsewhere from ground truth. Stopping a codeplan
(a report to the planner, an action that keeps failing, the retry budget) is signalled with
`EpisodeStop`, a BaseException: the sandbox ends the codeplan on it and a codeplan's
`except Exception` cannot swallow it. `EpisodeOver` stops (the retry budget, the episode
budget, a reasoner that cannot answer) end the whole episode, not just the codeplan.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from typing import Protocol

from primitives.reasoning_actions import RELATIONS
from ravens_env.types import Observation, PickPlace
from runtime.monitors import MONITOR_MODES, View, make_monitor
from runtime.monitors.gate import PreconditionGate
from runtime.monitors.symbolic import UNKNOWN
from runtime.tools import SWITCH_AFTER, Toolbox
from runtime.trace import TraceWriter
from runtime.watch import HALTS_BEFORE_REPLAN, MotionWatcher
from vrs.questions import UnsupportedQuestion, read_question
from vrs.reasoner import Reasoner

SEED_MODES = ("open-loop", "success", "progress")  # the seed paper's Table 2 columns
WATCH_MODE = "monitor"  # VoLo: watch the motion, halt on divergence (`runtime.watch`)
MODES = (*SEED_MODES, WATCH_MODE, *MONITOR_MODES)
MAX_RETRIES = 20  # per episode, as in the seed paper: more is a failure
MAX_TRIES_PER_CHECK = 4  # one action redone this often without holding -> ask for a new plan
# The episode budget (all codeplans together). Measured honest maxima (docs/RESULTS.md,
# "Reliability"): 136 s of execution and 15 primitive calls; the defaults are ~4x and ~60x.
MAX_EPISODE_S = 600.0  # s of execution: sandbox, primitives, perception; never planner time
MAX_EPISODE_CALLS = 1000  # primitive calls
MAX_REPORT_CHARS = 1000  # a tell_planner message is cut to this many characters
# One question per relation the primitive knows (`RELATIONS`, which the dry run checks too).
RELATION_QUESTIONS = {r: f"what is {r} the {{}}?" for r in RELATIONS}


class Actor(Protocol):
    name: str

    def act(self, obs: Observation, instruction: str) -> PickPlace: ...


class Env(Protocol):
    def execute(self, action: PickPlace) -> Observation: ...


class EpisodeStop(BaseException):
    """Ends the running codeplan; `feedback` tells the planner why."""

    def __init__(self, feedback: str) -> None:
        super().__init__(feedback)
        self.feedback = feedback


class PlannerReport(EpisodeStop):
    """The codeplan called tell_planner(message)."""


class Replan(EpisodeStop):
    """A precondition failed or an effect is missing (symbolic modes): plan again from the
    belief."""


class ActionStuck(EpisodeStop):
    """An action was redone MAX_TRIES_PER_CHECK times and still does not hold."""


class EpisodeOver(EpisodeStop):
    """Ends the episode, not only the codeplan; `reason` is its failure_reason."""

    prefix = "episode over"

    @property
    def reason(self) -> str:
        return f"{self.prefix}: {self.feedback}"


class RetryBudgetExceeded(EpisodeOver):
    """More than MAX_RETRIES redos in the episode: the episode has failed."""

    prefix = "retry budget"


class EpisodeBudgetExceeded(EpisodeOver):
    """The episode used up its execution time or its primitive calls."""

    prefix = "episode budget"


class ReasonerUnavailable(EpisodeOver):
    """The reasoning service failed (down, or a reply that is not an answer): with no eyes
    the controller can neither perceive nor check, so the episode ends with the reason."""

    prefix = "reasoner failed"


class EpisodeBudget:
    """Execution time and primitive calls left to an episode, over all its codeplans.

    Why a budget beside the sandbox's: the sandbox bounds one codeplan's own computing (not
    the time its primitives take), so `while True: put_first_on_second(...)` moved blocks
    for minutes. Why planner time is left out (`planner_time()`): an LLM planner spends
    300-600 s of an honest episode writing codeplans, which `--llm-timeout` bounds per call.
    """

    def __init__(self, max_s: float = MAX_EPISODE_S, max_calls: int = MAX_EPISODE_CALLS) -> None:
        self.max_s, self.max_calls = max_s, max_calls
        self.calls = 0
        self._start = time.monotonic()
        self._planner_s = 0.0

    def used_s(self) -> float:
        """Seconds of execution so far (wall time minus time in the planner)."""
        return time.monotonic() - self._start - self._planner_s

    def remaining_s(self) -> float:
        return self.max_s - self.used_s()

    @contextmanager
    def planner_time(self) -> Iterator[None]:
        """Time spent inside this block does not count (the planner's own)."""
        started = time.monotonic()
        try:
            yield
        finally:
            self._planner_s += time.monotonic() - started

    def exceeded(self) -> EpisodeBudgetExceeded | None:
        """The stop to raise once the time is used up, else None."""
        if self.used_s() <= self.max_s:
            return None
        return EpisodeBudgetExceeded(f"{self.max_s:g} s of execution used up (--max-episode-s)")

    def check(self) -> None:
        """EpisodeBudgetExceeded once the time is used up."""
        stop = self.exceeded()
        if stop is not None:
            raise stop

    def count_call(self) -> None:
        """One more primitive call; EpisodeBudgetExceeded past the limit or the time."""
        self.calls += 1
        if self.calls > self.max_calls:
            raise EpisodeBudgetExceeded(
                f"more than {self.max_calls} primitive calls (--max-episode-calls)")
        self.check()


@dataclass(frozen=True)
class Claim:
    """An effect the codeplan asked for: `pick` in/on `place` ("a block and b block" = both)."""

    pick: str
    place: str

    @property
    def targets(self) -> list[str]:
        return [p.strip() for p in self.place.split(" and ")]

    @property
    def relation(self) -> str:
        return "in" if self.place.endswith("bowl") else "on"

    def instruction(self) -> str:
        return f"put the {self.pick} {self.relation} " + " and ".join(
            f"the {t}" for t in self.targets)

    def questions(self) -> list[str]:
        return [f"is the {self.pick} {self.relation} the {t}?" for t in self.targets]

    def __str__(self) -> str:
        return f"{self.pick} {self.relation} {self.place}"


@dataclass
class Counters:
    actions: int = 0
    failed_actions: int = 0
    retries: int = 0
    questions: int = 0
    reasoner_calls: int = 0
    primitive_calls: int = 0
    tool_uses: int = 0  # actions with a grounded grasp or place (`runtime.tools`)
    halts: int = 0  # actions halted in motion (monitor mode)
    blocked: int = 0  # calls stopped before moving: unmet preconditions (`--preconditions`)
    checks: list[str] = field(default_factory=list)  # claims checked, for diagnostics

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("checks")
        return d


class Controller:
    """Implements the primitives (`primitives.episode.EpisodeApi`) for one episode."""

    def __init__(self, env: Env, actor: Actor, reasoner: Reasoner, mode: str,
                 obs: Observation, trace: TraceWriter,
                 budget: EpisodeBudget | None = None, toolbox: Toolbox | None = None,
                 tool_switch: bool = False, gate: PreconditionGate | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; modes: {', '.join(MODES)}")
        if (mode == WATCH_MODE or tool_switch) and toolbox is None:
            raise ValueError(f"mode {mode!r} with tool switching needs a toolbox"
                             if tool_switch else "monitor mode needs a toolbox (runtime.tools)")
        self.env, self.actor, self.reasoner, self.mode = env, actor, reasoner, mode
        self.obs, self.trace = obs, trace
        self.budget = budget or EpisodeBudget()
        self.claims: list[Claim] = []
        self.history: list[tuple[str, str]] = []  # every put executed, in order (memory)
        self.start_rgb = obs.front_rgb  # the scene before any action: `at_start` questions
        self.reports: list[str] = []
        self.counters = Counters()
        self._known: list[str] | None = None
        self._inventory: list[str] | None = None  # the first look's objects
        self._hidden: set[str] = set()  # objects of the inventory the last look missed
        self._rests: dict[str, tuple[str, str, str]] = {}  # block -> last fact perceived
        self._last_seen: dict[str, object] = {}  # object -> the last image it was listed in
        self._belief_stale = False  # a codeplan's question said the belief is wrong somewhere
        self.monitor = make_monitor(mode, lambda: reasoner.name)
        self.toolbox, self.tool_switch = toolbox, tool_switch
        self.watcher = MotionWatcher(toolbox, self._count_look) if mode == WATCH_MODE else None
        if toolbox is not None:  # the tools see the fixtures before anything moves
            toolbox.grounded.start_episode(obs)
            self._count_look()
        self._tools_next: dict[str, tuple[str, ...]] = {}  # block -> tools its redo must use
        self._tools_failed: dict[str, tuple[str, ...]] = {}  # block -> tools that just failed
        self._votes: dict[Claim, list[bool | None]] = {}  # the last check's votes per claim
        self._halts: dict[Claim, int] = {}  # halts per step (monitor mode)
        self._missed: dict[Claim, int] = {}  # missing effects per step (symbolic modes)
        self.gate = gate  # ConceptAgent's precondition check before each put, or None

    # -- primitives ------------------------------------------------------------------------
    def put_first_on_second(self, pick: str, place: str) -> None:
        self._count()
        claim = Claim(self._known_name(pick, "pick"), place)
        for target in claim.targets:
            self._known_name(target, "place")
        if not pick.endswith("block"):
            raise ValueError(f"cannot pick the {pick}: only blocks can be picked")
        if pick in claim.targets:
            raise ValueError(f"cannot put the {pick} on itself")
        self._check_preconditions(claim)
        self.claims = [c for c in self.claims if c.pick != pick]  # it is moving on purpose
        if self.monitor is not None:
            self._monitored(claim)
            return
        self._execute(claim)
        if self.mode == "success":
            self._hold([claim])
        elif self.mode in ("progress", WATCH_MODE):
            self.claims.append(claim)
            self._hold(self.claims)

    def _check_preconditions(self, claim: Claim) -> None:
        """ConceptAgent's gate: an unmet precondition stops the call before anything moves
        and tells the planner which (`Replan`: the codeplan ends, the planner is asked
        again with the unmet predicates as feedback)."""
        if self.gate is None:
            return
        why = self.gate.check(self._view(), "put_first_on_second",
                              {"pick": claim.pick, "place": claim.place})
        if why is not None:
            self.counters.blocked += 1
            raise Replan(why)

    def _monitored(self, claim: Claim) -> None:
        """Symbolic modes: preconditions, the action, effects; a failure stops the codeplan
        (`Replan`) instead of redoing the action, as DKPROMPT replans. With tool switching, a
        put whose effects were missing SWITCH_AFTER times in this episode (each time the
        replan asked for it again) runs with the grounded tools, as progress mode's redo
        does: the learned actor that picked the red block for "purple" twice will again."""
        view = self._view()
        source = self.monitor.belief.where(claim.pick) if self.monitor.belief else None
        why = self.monitor.before(view, claim.pick, claim.targets)
        if why is None:
            missed = self._missed.get(claim, 0)
            self._execute(claim, switch=self.tool_switch and missed >= SWITCH_AFTER)
            why = self.monitor.after(view, claim.pick, claim.targets, source)
            if why is not None:
                self._missed[claim] = missed + 1
        if why is not None:
            self.counters.retries += 1  # a replan stands where progress mode's redo stands
            self._put_down_held(view)
            raise Replan(why)

    def _put_down_held(self, view: View) -> None:
        """Before a replan, finish the put whose place did not let go. Why: the planner's
        model has no holding(b) (a put is one action), so a plan from the belief may start
        with another block, whose precondition handempty then fails on every replan; the
        held block's own put — the last one executed — is what the plan meant for it. A
        block the actor picked by mistake goes where that put was going (the cup places
        what it holds wherever the next action places), and the replan moves it on from
        there: left in the cup, every replan failed on handempty to the budget (dev seed
        5033 of the mismatched task)."""
        held = view.holding()
        last = self.history[-1] if self.history else None
        if held is None or last is None or held in Claim(*last).targets:
            return
        claim = Claim(held, last[1])
        self._execute(claim)
        self.monitor.after(view, held, claim.targets, None)

    def _view(self) -> View:
        return View(ask=self._ask_answers, holding=lambda: getattr(self.obs, "holding", None),
                    event=self.trace.event)

    def get_object_names(self) -> list[str]:
        self._count()
        return list(self.perceive_objects())

    def tell_planner(self, message: str) -> None:
        self._count()
        text = _capped(str(message), MAX_REPORT_CHARS)
        self.reports.append(text)
        self.trace.event("tell_planner", message=text)
        raise PlannerReport(text)

    def find_object_related_to_obj(self, relation: str, obj: str,
                                   at_start: bool = False) -> str | None:
        self._count()
        if relation not in RELATION_QUESTIONS:
            raise ValueError(f"unknown relation {relation!r}; use one of "
                             f"{', '.join(RELATION_QUESTIONS)}")
        question = RELATION_QUESTIONS[relation].format(self._known_name(obj))
        answer = self._ask_one(question, bool(at_start))
        return None if answer == "nothing" else answer

    def ask(self, question: str, at_start: bool = False) -> str:
        self._count()
        return self._ask_one(str(question), bool(at_start))

    def is_true(self, question: str, at_start: bool = False) -> bool:
        self._count()
        answer = self._ask_one(str(question), bool(at_start))
        if answer not in ("yes", "no"):
            raise ValueError(f"not a yes/no question: {question!r} was answered {answer!r}")
        self._correct_belief(str(question), answer)
        return answer == "yes"

    def _correct_belief(self, question: str, answer: str) -> None:
        """A codeplan's own "is the X in/on the Y?" is a perception too, and DKPROMPT's belief
        is corrected by every answer that contradicts it: "yes" puts the block there; "no" to
        where the belief has it leaves its place unknown, so the next plan looks again
        (without this a block someone else moved stays where the belief put it, and every
        replan reports the same unmet check until the plan budget runs out)."""
        belief = self.monitor.belief if self.monitor is not None and \
            self.monitor.keeps_belief else None
        if belief is None:
            return
        try:
            program = read_question(question)
        except UnsupportedQuestion:
            return
        params = dict(program.params)
        if program.template != "relation_yes_no" or params.get("rel") not in ("in", "on"):
            return
        block, place = params["subject"], params["anchor"]
        if belief.where(block) is None:
            return  # not a block the belief tracks
        if answer == "yes" and belief.where(block) != place:
            belief.set(block, place, f"the codeplan asked: {question}")
        elif answer == "no" and belief.where(block) == place:
            self._belief_stale = True

    def begin_codeplan(self) -> None:
        """Before a new codeplan: keep only earlier claims that still hold.

        A recovery codeplan is written from the perceived state, so the claims it inherits
        should be the effects that are in place now (they keep being re-validated); a claim
        that does not hold is the new codeplan's business, and redoing it would fight a plan
        that chose differently (e.g. a tower rebuilt on another base).
        """
        if self.claims and self.mode != "open-loop":
            holds = self._check(self.claims)
            self.claims = [c for c, ok in zip(self.claims, holds, strict=True) if ok]
        self.trace.event("claims", claims=[str(c) for c in self.claims])

    # -- perception ---------------------------------------------------------------------
    def perceive_objects(self) -> list[str]:
        """Object names from the reasoner (not ground truth): the planner's vocabulary.

        Blocks of the episode's first look that a later look misses are kept, as hidden
        (object permanence): stacking hides blocks from the one front camera (a pyramid's
        bottom row behind its upper rows), and a plan written without them asked for "a
        pyramid of 6 blocks; there are 5" (126 of 400 volo-suite pyramid episodes). So are
        the stand and the bowls, which nothing moves off the table: a stand covered by a
        pyramid's rows went unseen and the replan refused "names the stand, which is not in
        the scene" (2 of 20 dev pyramids)."""
        answer = self._ask_one("what objects are on the table?")
        seen = [n.strip() for n in answer.split(",") if n.strip()]
        if self._inventory is None:
            self._inventory = seen
        self._last_seen.update(dict.fromkeys(seen, self.obs.front_rgb))
        hidden = [o for o in self._inventory if o not in seen]
        if hidden:
            self.trace.event("hidden", objects=hidden)
        self._hidden = set(hidden)
        self._known = seen + hidden
        return self._known

    def planning_facts(self, first: bool) -> tuple[list[str], list[tuple[str, str, str]]]:
        """Objects and facts for a plan request: perceived, or — in a symbolic mode after the
        first plan — the belief, which the questions since have kept up to date (DKPROMPT
        replans from its belief instead of looking at every block again), unless a
        codeplan's own question said the belief is wrong (`_correct_belief`) or a check
        could not locate a block (the monitor's `look_again`): then the scene is perceived
        again and the belief restarts from it."""
        stale, self._belief_stale = self._belief_stale, False
        if self.monitor is not None and getattr(self.monitor, "look_again", False):
            stale, self.monitor.look_again = True, False
        if self.monitor is None or not self.monitor.keeps_belief or first or \
                self._known is None or stale:
            objects, facts = self.perceive_objects(), self.perceive_facts()
            if self.monitor is not None and (first or stale):
                self.monitor.start(objects, facts)
            return objects, facts
        return list(self._known), self.monitor.facts()

    def perceive_facts(self) -> list[tuple[str, str, str]]:
        """What each perceived block rests in or on, as (block, 'in' | 'on', object); a
        hidden block (`perceive_objects`) is where its last holding claim put it, else where
        it was last seen resting, else nowhere said (the table)."""
        known = self._known or self.perceive_objects()
        blocks = [n for n in known if n.endswith("block") and n not in self._hidden]
        answers = self._ask([RELATION_QUESTIONS["below"].format(b) for b in blocks])
        facts = [(b, "in" if a.endswith("bowl") else "on", a)
                 for b, a in zip(blocks, answers, strict=True)
                 if a != "nothing" and not a.startswith(UNKNOWN)]
        self._rests.update({f[0]: f for f in facts})
        claimed = {c.pick: (c.pick, c.relation, c.place) for c in self.claims}
        remembered = [claimed.get(b) or self._rests.get(b) for b in known if b in self._hidden]
        return facts + [f for f in remembered if f is not None]

    # -- internals ----------------------------------------------------------------------
    def _count(self) -> None:
        self.counters.primitive_calls += 1
        self.budget.count_call()

    def _known_name(self, name: object, role: str = "object") -> str:
        if not isinstance(name, str):
            raise TypeError(f"{role} must be an object name (str), got {type(name).__name__}")
        known = self._known if self._known is not None else self.perceive_objects()
        if name not in known:
            raise ValueError(f"unknown {role} {name!r}; objects: {', '.join(known)}")
        return name

    def _execute(self, claim: Claim, switch: bool = False) -> None:
        """One actor step; actor errors and failed actions are recorded, not raised.
        `switch`: the learned actor failed this step SWITCH_AFTER times — the halves of its
        action that disagree with perception are replaced by the grounded tools."""
        instruction = claim.instruction()
        self.budget.check()  # a redo loop inside one call must not outlast the budget
        self.counters.actions += 1
        self.history.append((claim.pick, claim.place))
        try:
            action, error = self.actor.act(self.obs, instruction), None
        except (ValueError, KeyError) as e:
            action, error = None, f"actor: {e}"
        forced = self._tools_next.pop(claim.pick, ())
        if self.tool_switch:
            forced += tuple(t for t in self.toolbox.first_tools(instruction) if t not in forced)
        tools: tuple[str, ...] = ()
        if switch or forced:
            action, tools = self._with_tools(claim, instruction, action, forced)
        if action is None:
            self.counters.failed_actions += 1
            self.trace.event("action", instruction=instruction, error=error)
            return
        halt = None
        if self.watcher is not None:
            self.obs, halt = self.watcher.run(self.env, self.obs, action, claim.pick,
                                              instruction)
        else:
            self.obs = self.env.execute(action)
        result = self.obs.last_action
        self.counters.failed_actions += not result.ok
        # the arm's own report (the suction found nothing), not ground truth
        self._tools_failed[claim.pick] = ("grasp",) if "grasp" in tools and not result.ok else ()
        frame = self.trace.frame(self.obs.front_rgb, instruction)
        held = {"holding": self.obs.holding} if getattr(self.obs, "holding", None) else {}
        self.trace.event("action", instruction=instruction, action=action.to_dict(),
                         result=result.to_dict(), frame=frame, **held,
                         **self._ground_truth(instruction))
        if halt is not None:
            self._after_halt(claim, halt, action)

    def _with_tools(self, claim: Claim, instruction: str, action: PickPlace | None,
                    forced: tuple[str, ...]) -> tuple[PickPlace | None, tuple[str, ...]]:
        """The learned action with the grounded grasp / place where it disagrees with
        perception or where a halt asked for one (`forced`), and the tools used; traced as
        `tool_switch`. A grounded grasp that lifted nothing on this block's last try is not
        used again while the learned pick is there (switching back: the same perceived
        point would find nothing again — dev pyramid 5200 spent three tries on it)."""
        avoid = tuple(t for t in self._tools_failed.get(claim.pick, ()) if t not in forced)
        try:
            choice = self.toolbox.choose(self.obs, instruction, action, forced, avoid)
        except ValueError as e:  # perception does not see the step's objects
            self.trace.event("tool_switch", claim=str(claim), tools=[], reason=str(e))
            return action, ()
        self.counters.tool_uses += bool(choice.tools)
        self.trace.event("tool_switch", claim=str(claim), tools=list(choice.tools),
                         reason=choice.reason, asked=list(forced), avoided=list(avoid))
        return choice.action, choice.tools

    def _after_halt(self, claim: Claim, halt, action: PickPlace) -> None:
        """Record a halt, finish it (the held block put back, or carried on to the perceived
        target: one more traced action) and set up its recovery: a grasp for the claim's redo,
        a replan now."""
        self.counters.halts += 1
        self._halts[claim] = self._halts.get(claim, 0) + 1
        if self._halts[claim] >= HALTS_BEFORE_REPLAN:
            halt = replace(halt, recovery="replan",
                           reason=f"{halt.reason} (halt {self._halts[claim]} of this step)")
        self.trace.event("halt", claim=str(claim), **halt.to_dict())
        instruction = claim.instruction()
        follow = self.watcher.follow_up(self.obs, halt, action, instruction)
        if follow is not None:
            self.counters.actions += 1
            self.obs = self.env.execute(follow)
            self.counters.failed_actions += not self.obs.last_action.ok
            frame = self.trace.frame(self.obs.front_rgb, f"{halt.recovery}: {instruction}")
            self.trace.event("action", instruction=instruction, action=follow.to_dict(),
                             result=self.obs.last_action.to_dict(), frame=frame,
                             after_halt=halt.recovery, **self._ground_truth(instruction))
        if halt.recovery == "grasp":
            self._tools_next[claim.pick] = ("grasp",)
        elif halt.recovery == "replan":
            raise Replan(f"halted '{claim}': {halt.reason}")

    def _count_look(self) -> None:
        """One parse of the front image by the watcher's detector (a reasoner call)."""
        self.counters.reasoner_calls += 1

    def _ground_truth(self, instruction: str) -> dict:
        """{'holds': bool} — whether the step holds in the simulator's ground truth, for the
        trace only (episode diagnostics); the controller itself never reads it. Empty for an
        environment without a ground-truth scene."""
        scene = getattr(self.env, "scene", None)
        if scene is None:
            return {}
        from ravens_env.agents.oracle import step_holds

        try:
            return {"holds": step_holds(scene(visibility=False), instruction)}
        except ValueError:  # not a put-step: nothing to check
            return {}

    def _hold(self, claims: list[Claim]) -> None:
        """Check `claims`; redo the ones that fail (in order) until all hold.

        A failed claim that builds on a block redone earlier in the same round (its place is
        that block, or it is what that block went onto), or on a claim that waits, waits for
        the next check; the other failed claims are redone as usual. Why: after
        a tower fell, redoing 'gray on blue' and then at once 'green on gray' put the green
        block on a gray block whose own redo had failed; the next round then had to lift the
        gray block from under the green one, and the actor picked the green one (dev seeds
        of stack-blocks under dkprompt). Claims into bowls never build on one
        another, so the bowl tasks redo exactly as before."""
        tries: dict[Claim, int] = {}
        while True:
            failed = [c for c, ok in zip(claims, self._check(claims), strict=True) if not ok]
            if not failed:
                return
            failed = _top_first(failed, self._votes)
            moved: list[Claim] = []  # redone or waiting in this round
            for claim in failed:
                waits = any(_builds_on(claim, earlier) for earlier in moved)
                moved.append(claim)
                if waits:
                    continue  # check again first: the block under it was just moved
                tries[claim] = tries.get(claim, 0) + 1
                if tries[claim] > MAX_TRIES_PER_CHECK:
                    raise ActionStuck(f"'{claim}' still does not hold after "
                                      f"{MAX_TRIES_PER_CHECK} tries")
                self.counters.retries += 1
                self.trace.event("retry", claim=str(claim), retries=self.counters.retries)
                if self.counters.retries > MAX_RETRIES:
                    raise RetryBudgetExceeded(f"more than {MAX_RETRIES} retries")
                self._execute(claim, switch=self.tool_switch and tries[claim] >= SWITCH_AFTER)

    def _check(self, claims: list[Claim]) -> list[bool]:
        questions = [q for c in claims for q in c.questions()]
        answers = iter(self._ask(questions))
        self.counters.checks += [str(c) for c in claims]
        texts = [[next(answers) for _ in c.questions()] for c in claims]
        votes = [[self._vote(a) for a in t] for t in texts]
        believed = _believed(claims, votes, _missing(a for t in texts for a in t))
        self._votes = dict(zip(claims, votes, strict=True))
        unseen = [str(c) for c, v in zip(claims, votes, strict=True) if None in v]
        truth = [self._ground_truth(c.instruction()).get("holds") for c in claims]
        if any(t is not None for t in truth) or unseen:  # truth: for the audit only
            self.trace.event("check", claims=[str(c) for c in claims], believed=believed,
                             truth=truth, **({"unseen": unseen} if unseen else {}))
        return believed

    def _vote(self, answer: str) -> bool | None:
        """One check question's answer: True for yes; None (unseen) when the reasoner does
        not see an object this episode has seen (a block hidden under or behind others, a
        stand under its blocks: objects do not leave the table by themselves); False
        otherwise."""
        if answer == "yes":
            return True
        known = set(self._known or ()) | set(self._inventory or ())
        if answer.startswith(UNKNOWN) and any(f"'{o}'" in answer for o in known):
            return None
        return False

    def _ask_one(self, question: str, at_start: bool = False) -> str:
        answer = self._ask_answers([question], at_start)[0]
        if not at_start and answer.text.startswith(UNKNOWN):
            answer = self._ask_where_last_seen(question, answer)
        if answer.score == 0.0 and answer.text.startswith(("unsupported", "unknown")):
            raise ValueError(answer.text)
        return answer.text

    def _ask_where_last_seen(self, question: str, answer):
        """A codeplan's question about a block this episode has seen but the camera no longer
        shows is asked of the last image that listed it. Why: a block hidden under others
        has not moved (they rest on it), and the pyramid's codeplan asks which base block
        is in the middle ("is the X left of the Y?") after the row above hid one of them;
        the codeplan crashed on "unknown object" and was replanned (dev seed 5000)."""
        hidden = [o for o in self._last_seen if o.endswith("block") and f"'{o}'" in answer.text]
        frame = self._last_seen.get(hidden[0]) if hidden else None
        if frame is None:
            return answer
        self.trace.event("asked_last_seen", question=question, hidden=hidden[0])
        return self._ask_answers([question], image=frame)[0]

    def _ask(self, questions: list[str]) -> list[str]:
        return [a.text for a in self._ask_answers(questions)]

    def _ask_answers(self, questions: list[str], at_start: bool = False,
                     image: object = None) -> list:
        self.budget.check()
        if image is None:
            image = self.start_rgb if at_start else self.obs.front_rgb
        try:
            answers = self.reasoner.ask(image, questions)
        except Exception as e:
            _raise_if_service_failed(e)
            raise
        self.counters.reasoner_calls += 1
        self.counters.questions += len(questions)
        self.trace.event("questions", reasoner=self.reasoner.name, at_start=at_start,
                         qa=[[q, a.text, round(a.score, 4)]
                             for q, a in zip(questions, answers, strict=True)])
        return answers


def _believed(claims: list[Claim], votes: list[list[bool | None]],
              missing: frozenset[str] = frozenset()) -> list[bool]:
    """Which claims hold, from their questions' votes (`Controller._vote`); `missing` are
    the objects the reasoner said it does not see. A "no" fails a claim; a claim with a
    "yes" and otherwise unseen parts holds (a pyramid block seen on one of its two supports,
    the other hidden under it). A claim seen in no part holds when a block is seen that
    explains why: its own block is seen on a place that is hidden (under it; not for "in":
    a block in a bowl does not hide the bowl), or its block is hidden and a block seen is
    claimed on it, by a claim seen holding or a later one (or a hidden block so covered: a
    pyramid's base under its middle row under its top). Why: read as "no", every hidden
    bottom-row block was redone — the actor lifted the block on top of it — and pyramids
    ended on the retry budget (184 of 400 episodes); the later-claim and own-block cases
    were still redone (a row block hidden under a middle-row block whose two supports were
    both hidden: dev pyramids 5000-5019)."""
    seen = [True in v and False not in v for v in votes]
    under_seen = {t for c, ok in zip(claims, seen, strict=True) if ok for t in c.targets}
    # A block with a block seen straddling it and its neighbour holds (the straddle's claim
    # seen holding: "yes", and "yes" or unseen for the other support), whatever the block's
    # own questions said: the straddle could not hold on a block out of place, and a "no" under
    # it is mostly the occlusion. What it is for: on dev pyramid 5200 a built pyramid's
    # middle-row block, read as off its supports under the top block, was redone and the
    # pyramid fell (there the top block was read as off too, so this rule did not apply; it
    # was kept with `_top_first` on the dev rule's 100 episodes, docs/RESULTS.md).
    under_straddle = {t for c, ok in zip(claims, seen, strict=True)
                      if ok and len(c.targets) > 1 for t in c.targets}
    covered: set[str] = set()  # hidden blocks under a block seen, or under one so covered
    for i in reversed(range(len(claims))):
        if claims[i].pick not in missing or claims[i].pick in covered:
            covered |= {e.pick for e in claims[:i] if e.pick in claims[i].targets}
    return [c.pick in under_straddle
            or (False not in v and (True in v or c.pick in under_seen or c.pick in covered
                                    or (c.relation == "on" and c.pick not in missing)))
            for c, v in zip(claims, votes, strict=True)]


def _top_first(failed: list[Claim], votes: dict[Claim, list[bool | None]]) -> list[Claim]:
    """The failed claims with those under another failed claim's block moved after it (so
    they wait, `_builds_on`): a block that a failed straddle was seen resting on ("yes" to
    the question about it) is not lifted out from under that block; the block on top is
    redone first. Why: a middle-row block read as off its supports was redone first, pulled
    from under the top block, and the built pyramid fell (dev pyramid 5200, where the top
    block was not seen on it either, so this order did not apply; kept with the rule above
    on the dev rule's 100 episodes). A failed single-target claim has only a "no", so the
    order of towers and bowls is unchanged."""
    def rests_on(upper: Claim, lower: Claim) -> bool:
        v = votes.get(upper, [])
        return lower.pick in upper.targets and len(v) == len(upper.targets) \
            and v[upper.targets.index(lower.pick)] is True
    under = {c for c in failed if any(rests_on(u, c) for u in failed if u is not c)}
    return [c for c in failed if c not in under] + [c for c in failed if c in under]


def _missing(answers) -> frozenset[str]:
    """The objects a reasoner's answers say it does not see ("unknown object: no 'X' in
    the scene; ...")."""
    return frozenset(a.split("'")[1] for a in answers
                     if a.startswith(UNKNOWN) and a.count("'") >= 2)


def _builds_on(claim: Claim, earlier: Claim) -> bool:
    """Whether `claim` rests on what `earlier` moved: its place is the block `earlier` picked,
    or its block is where `earlier` put something."""
    return earlier.pick in claim.targets or claim.pick in earlier.targets


def _capped(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, saying how much was cut (a 5 MB tell_planner
    message once landed whole in failure_reason, the result JSON and the report)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text) - limit} more characters]"


def _raise_if_service_failed(error: Exception) -> None:
    """ReasonerUnavailable for the reasoning service's own errors (`vrs.client.ServiceError`:
    unreachable, a 4xx/5xx, a reply that is no answer). Why only those: a local reasoner's
    exception is a bug and keeps its traceback."""
    from vrs.client import ServiceError  # imported only on a failure: requests is not light

    if isinstance(error, ServiceError):
        raise ReasonerUnavailable(str(error)) from error
