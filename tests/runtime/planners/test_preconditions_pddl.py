"""The PDDL form of precondition generation (issue 24): the schema's :precondition parsed
into checked conditions, the grammar, the prompt, and the dev actions a form is chosen on."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.eval import precondition_dev as dev
from runtime.planners import preconditions as pc
from runtime.planners import preconditions_pddl as pddl
from runtime.planners.recordings import load_recordings
from tests.runtime.planners.test_preconditions import RecordedLLM

PARAMS = ("pick", "place")


def test_only_the_precondition_is_kept_and_negations_are_read():
    reply = ("  :precondition (and (handempty) (clear ?pick) (not (in ?pick ?place)))\n"
             "  :effect (and (in ?pick ?place) (not (clear ?place))))")
    conditions, dropped = pddl.parse_reply(reply, PARAMS)
    assert [str(c) for c in conditions] == ["handempty", "clear(pick)", "not in(pick, place)"]
    assert dropped == []


def test_a_single_literal_without_and_is_one_condition():
    conditions, _ = pddl.parse_reply(":precondition (holding ?pick) :effect (handempty)", PARAMS)
    assert conditions == [pc.Condition("holding", ("pick",))]


def test_bad_literals_are_dropped_with_the_reason_as_in_the_line_form():
    reply = ("  :precondition (and (fly ?pick) (clear ?table) (clear ?pick ?place) (clear ?pick)"
             " (not (clear ?pick)) (or (a) (b)))\n  :effect (and (handempty)))")
    conditions, dropped = pddl.parse_reply(reply, PARAMS)
    assert conditions == []  # clear(pick) and its negation contradict each other
    for why in ("unknown predicate 'fly'", "table is not a parameter", "clear takes 1",
                "contradict", "(or (a) (b))': not a literal"):
        assert any(why in d for d in dropped), (why, dropped)


def test_a_reply_without_a_precondition_or_cut_short_is_read_as_far_as_it_goes():
    assert pddl.parse_reply("I cannot do that.", PARAMS) == (
        [], ["'I cannot do that.': no :precondition"])
    cut = "  :precondition (and (handempty) (clear ?pick"  # the token cap hit mid-literal
    assert [str(c) for c in pddl.parse_reply(cut, PARAMS)[0]] == ["handempty", "clear(pick)"]


def test_the_grammar_allows_only_the_predicates_over_the_parameters():
    g = pddl.grammar(PARAMS)
    assert g.startswith('root ::= "  :precondition (and" lits ")\\n  :effect (and" lits "))"')
    assert 'arg ::= "?pick" | "?place"' in g and '"(handempty" ")"' in g
    one = pddl.grammar(("block",))  # a one-parameter action: no two-place atoms
    assert '"(on"' not in one and '"(holding" " " arg ")"' in one


def test_the_prompt_shows_the_predicates_as_atoms_and_opens_the_schema():
    msgs = pddl.messages("put_first_on_second", pc.control_primitives()["put_first_on_second"])
    system, user = msgs[0]["content"], msgs[1]["content"]
    for atom in ("(in ?x ?y)", "(clear ?x)", "(handempty)"):
        assert atom in system
    assert "A bowl holds at most one block" in system and ":effect" in system
    assert "def put_first_on_second(pick: str, place: str)" in user
    assert user.endswith("(:action put_first_on_second\n  :parameters (?pick ?place)")


def test_the_example_form_adds_two_schemas_of_another_world_and_nothing_else():
    """`pddl-example` is the PDDL form plus a worked pair of another world's schemas; the plain
    form's prompt (and so its cached sets) stays as it was."""
    fn = pc.control_primitives()["put_first_on_second"]
    plain = pddl.messages("put_first_on_second", fn)
    shown = pddl.messages("put_first_on_second", fn, example=True)
    assert "another world" not in plain[0]["content"]
    assert plain[0]["content"].endswith("(what is true right after it).")
    assert shown[0]["content"].startswith(plain[0]["content"] + "\n\nTwo actions from another")
    assert shown[0]["content"].count("(:action ") == 2 and shown[1:] == plain[1:]
    for robot_word in ("block", "bowl", "gripper"):  # the example shows the form, not the answer
        example = shown[0]["content"][len(plain[0]["content"]):]
        assert robot_word not in example.split("Now the robot's world")[0]


def test_the_effect_first_form_asks_for_the_effect_then_the_precondition():
    """`pddl-effect-first`: the grammar's first slot is the effect, the worked pair is shown in
    that order (each action still closed once), and the reply is read the same way."""
    assert pddl.grammar(PARAMS, effect_first=True).startswith(
        'root ::= "  :effect (and" lits ")\\n  :precondition (and" lits "))"')
    fn = pc.control_primitives()["put_first_on_second"]
    system = pddl.messages("put_first_on_second", fn, example=True,
                           effect_first=True)[0]["content"]
    assert system.index(":effect (and (open ?door)") < system.index(
        ":precondition (and (closed ?door)")
    assert "(near ?door)))\n" in system and "(not (locked ?door)))\n" in system
    assert system.count("(") == system.count(")")
    reply = ("  :effect (and (in ?pick ?place))\n"
             "  :precondition (and (handempty) (clear ?pick) (clear ?place)))")
    assert [str(c) for c in pddl.parse_reply(reply, PARAMS)[0]] == [
        "handempty", "clear(pick)", "clear(place)"]


def test_forms_are_named_and_an_unknown_one_is_a_clear_error():
    assert set(pc.FORMS) == {"lines", "pddl", "pddl-example", "pddl-effect-first"}
    assert pc.DEFAULT_FORM in pc.FORMS

    class NoLLM:
        model = "m"

    with pytest.raises(ValueError, match="no precondition form 'yaml'"):
        pc.generate(NoLLM(), form="yaml")


def test_the_dev_actions_are_not_primitives_and_their_reference_parses():
    assert not set(dev.actions()) & set(pc.control_primitives())
    ref = dev.reference_set()
    assert sum(len(v) for v in ref.conditions.values()) == 11
    assert all(c is not None for v in ref.conditions.values() for c in v)
    assert [str(c) for c in ref.conditions["unstack"]] == [
        "handempty", "clear(block)", "on(block, base)"]
    assert pc.match(ref, ref) == pc.Match(11, 11, 11)


RECORDED = [x for x in load_recordings(
    Path(__file__).parents[1] / "recordings" / "conceptagent_replies.jsonl")
    if x["kind"] == "preconditions-pddl"]


def _llm():
    llm = RecordedLLM([{**x, "prompt_tokens": 0, "completion_tokens": 0} for x in RECORDED])
    llm.model = RECORDED[0]["model"]
    return llm


def test_the_recorded_schema_for_the_primitive_is_the_state_after_the_put():
    """The packaged 1.5B model's greedy schema for put_first_on_second (the measured 0/3):
    `in(pick, place)` as a precondition is the put's outcome, so the gate stops every put."""
    x = next(r for r in RECORDED if r["action"] == "put_first_on_second")
    conditions, dropped = pddl.parse_reply(x["reply"], PARAMS)
    assert [str(c) for c in conditions] == [
        "in(pick, place)", "not holding(pick)", "not holding(place)"] and dropped == []
    m = pc.match(pc.PreconditionSet({"put_first_on_second": conditions}, "llm"))
    assert (m.correct, m.generated, m.reference) == (0, 3, 3)


def test_generation_in_the_pddl_form_on_the_dev_actions_scores_the_measured_greedy_set():
    """`eval preconditions --actions dev --form pddl --samples 0` on the recorded replies: the
    greedy dev figure of docs/RESULTS.md (4 of 11 reference conditions, 4 of 11 generated)."""
    from runtime.eval.preconditions import eval_preconditions

    llm = _llm()
    result = eval_preconditions(llm, samples=0, form="pddl", actions="dev")
    assert len(llm.calls) == 5 and all(":precondition" in c["grammar"] for c in llm.calls)
    assert result["form"] == "pddl" and result["actions"] == "dev"
    assert (result["recall"]["k"], result["recall"]["n"], result["precision"]["n"]) == (4, 11, 11)
    assert result["generations"][0]["conditions"]["take_out"] == [
        "in(block, bowl)", "clear(bowl)", "clear(block)"]
    with pytest.raises(ValueError, match="no action set 'all'"):
        eval_preconditions(llm, samples=0, actions="all")


def test_the_cli_offers_every_form_and_action_set():
    from runtime.cli import eval as cli_eval
    from runtime.eval import preconditions as ev

    assert cli_eval.ACTION_SETS == ev.ACTION_SETS and cli_eval.pc_forms() == pc.FORMS


@pytest.mark.parametrize(("form", "shown", "first_slot"), [
    ("pddl", False, ":precondition"), ("pddl-example", True, ":precondition"),
    ("pddl-effect-first", True, ":effect")])
def test_generation_asks_in_the_form_named(form, shown, first_slot):
    """`generate(form=...)` sends that form's prompt and grammar (the worked pair or not; which
    slot comes first) and reads the reply either way."""
    class Capture:
        model = "m"

        def __init__(self):
            self.calls = []

        def complete(self, messages, max_tokens, grammar=None, temperature=0.0, seed=None):
            self.calls.append((messages, grammar))
            return ("  :precondition (and (handempty))\n  :effect (and (handempty)))",
                    {"prompt_tokens": 0, "completion_tokens": 0})

    llm = Capture()
    result, _ = pc.generate(llm, form=form)
    messages, grammar = llm.calls[0]
    assert ("another world" in messages[0]["content"]) == shown
    assert grammar.startswith(f'root ::= "  {first_slot} (and"')
    assert [str(c) for c in result.conditions["put_first_on_second"]] == ["handempty"]
