"""The templates of the question language: each an id, an answer type and its phrasings.

Why a table: the parser, the renderer, the validator, error messages and the data generator all
enumerate the same templates, so they live in one place. A program (`Question`) is *valid*
exactly when one of its template's phrasings fits it, so the phrasings are also the schema.

Params (values are canonical, see `question_vocab`):
  subject, anchor  object names ("red block", "stand"); anchor may be "table" where the kind is
                   `place`. Read as the scene's Relation(subject, rel, anchor).
  rel              in, on, above, below, left, right, front, behind
  type             block, bowl, stand, object (object = any type); color: a color name
  mode             all_in: any (every block in some bowl), same (matching color), different

"what objects are on the table?" is list_objects: every object in the scene (the phrase the
controller uses for the planner's vocabulary), whereas "how many objects are on the table?" and
"is there a block on the table?" use the `on table` relation (so a block in a bowl is not
counted). "what is on the table?" is refused rather than guessed between the two.
"""

from __future__ import annotations

from dataclasses import dataclass

from vrs.question_grammar import Phrasing
from vrs.question_program import Question, UnsupportedQuestion
from vrs.question_vocab import KINDS

P = Phrasing
_REL = "{rel} [the] {anchor:place}"  # e.g. "in the blue bowl", "on the table"
_COLOR = "(what color is|which color is|what is the color of)"


@dataclass(frozen=True)
class Template:
    """One question template: `phrasings` say it, `answer_type` is what its answers are."""

    id: str
    answer_type: str
    description: str
    phrasings: tuple[Phrasing, ...]

    def forms(self) -> list[str]:
        """Human-readable patterns of the phrasings that are said, without repeats."""
        return list(dict.fromkeys(p.form() for p in self.phrasings if not p.parse_only))


TEMPLATES: tuple[Template, ...] = (
    Template("exists", "yes/no", "is there an object of a type (and color) (and relation)", (
        P("is there (a|any) {color?} {type}"),
        P("are there any {color?} {type:types}"),
        P("is there (a|any) {color?} {type} " + _REL),
        P("are there any {color?} {type:types} " + _REL),
        P("is there anything " + _REL, type="object"),
    )),
    Template("count", "count", "how many objects of a type (and color) (and relation)", (
        P("how many {color?} {type:types} (are there|)"),
        P("how many {color?} {type:types} (are|are there) " + _REL),
    )),
    Template("relation_yes_no", "yes/no", "does Relation(subject, rel, anchor) hold", (
        P("is [the] {subject:obj} " + _REL),
    )),
    Template("relate_object", "object", "the object S with Relation(S, rel, anchor)", (
        P("(what|which object) is {rel} [the] {anchor:obj}"),
        P("what is [the] {anchor:obj} (on|on top of|resting on|sitting on)", rel="below"),
        P("what is [the] {anchor:obj} (in|inside|resting in|sitting in)", parse_only=True,
          rel="below"),
    )),
    Template("query_color", "color", "the color of the object of a type that is rel the anchor", (
        P(_COLOR + " the bowl that [the] {anchor:obj} is (in|inside|resting in)",
          rel="below", type="bowl"),
        P(_COLOR + " the block that [the] {anchor:obj} is (on|on top of|resting on)",
          rel="below", type="block"),
        P(_COLOR + " the {type} " + _REL),
    )),
    Template("list_objects", "objects", "every object in the scene, sorted by name", (
        P("(what|which) objects are (on the table|there|in the scene)"),
        P("list (the|all the|all) objects (|on the table)"),
        P("what objects (do you see|can you see)"),
    )),
    Template("all_in", "yes/no", "is every block in a bowl (of the same / a different color)", (
        P("are all (the|of the|~) blocks in bowls", mode="any"),
        P("is (every|each) block in a bowl", mode="any"),
        P("are all (the|of the|~) blocks in (bowls of the same color|matching bowls|"
          "bowls of matching colors|bowls of their own color)", mode="same"),
        P("is (every|each) block in (a bowl of the same color|a matching bowl|the bowl of its "
          "color|a bowl of its own color)", mode="same"),
        P("are all (the|of the|~) blocks in (bowls of a different color|mismatched bowls|"
          "bowls of another color)", mode="different"),
        P("is (every|each) block in (a bowl of a different color|a mismatched bowl|a bowl of "
          "another color)", mode="different"),
    )),
)
BY_ID: dict[str, Template] = {t.id: t for t in TEMPLATES}


@dataclass(frozen=True)
class ParamInfo:
    """One param of a template: the values it may take and whether a program may omit it.
    Not every combination is valid (rel and anchor come together): check with `template_of`."""

    name: str
    values: tuple[str, ...]
    optional: bool


@dataclass(frozen=True)
class TemplateInfo:
    """What a data generator needs to know of a template: its answer type, params and forms."""

    id: str
    answer_type: str
    description: str
    params: tuple[ParamInfo, ...]
    forms: tuple[str, ...]


def list_templates() -> list[TemplateInfo]:
    """Every template with its answer type, params and forms, in a fixed order."""
    return [TemplateInfo(t.id, t.answer_type, t.description, _params(t), tuple(t.forms()))
            for t in TEMPLATES]


def param_values(kind: str) -> tuple[str, ...]:
    """The canonical values of a param kind ('obj', 'place', 'rel', 'color', 'type', ...)."""
    return KINDS[kind].values


def _params(t: Template) -> tuple[ParamInfo, ...]:
    values: dict[str, dict[str, None]] = {}
    always: dict[str, int] = {}
    for p in t.phrasings:
        said = {s.name: s.kind.values for s in p.slots}
        for name, value in p.fixed.items():
            said[name] = (value,)
        for name, vals in said.items():
            values.setdefault(name, {}).update(dict.fromkeys(vals))
        for name in set(p.fixed) | {s.name for s in p.slots if not s.optional}:
            always[name] = always.get(name, 0) + 1
    return tuple(ParamInfo(n, tuple(v), always.get(n, 0) < len(t.phrasings))
                 for n, v in sorted(values.items()))


def template_of(q: Question) -> Template:
    """The template of a valid program; raises UnsupportedQuestion for an invalid one."""
    t = BY_ID.get(q.template)
    if t is None:
        raise UnsupportedQuestion(f"unknown template {q.template!r}; templates: "
                                  f"{', '.join(BY_ID)}")
    if not any(p.fits(q.args) for p in t.phrasings):
        raise UnsupportedQuestion(f"params {q.args} do not fit template {q.template!r}; "
                                  f"its forms: {' | '.join(t.forms())}")
    return t
