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
counted). "what is on the table?" is list_objects too (since the third paraphrase round: people
asking it want everything there, and every independent set read it so).

Paraphrases: after its said phrasings each template lists parse-only ones (`Q`), which hear the
ways people ask ("how many cubes are sitting in the bowls?", "what colour block is in the blue
bowl?", "which bowl is the red block in?", "are all blocks in differently coloured bowls?", the
perfect "has the red block been put in the blue bowl?", idioms "any blocks on the stand?", "is
there at least one red block?", "what is the number of bowls?", and "how many bowls have a block
in them?", which counts the bowls `below` some block) and are never said, so rendered data, the
tokenizer's corpus and shipped checkpoints are unchanged (a test pins the corpus). They add one
thing to the programs: the anchor of exists, count and relation_yes_no may be "any bowl" / "any
block" ("in bowls", "in a bowl", "on another block"; `question_vocab.GROUPS`), which only
parse-only phrasings fit. The paraphrase set that measures them is
`vrs/question_paraphrases.jsonl` (`codeplan eval questions`).
"""

from __future__ import annotations

from dataclasses import dataclass

from vrs.question_grammar import Phrasing
from vrs.question_program import Question, UnsupportedQuestion
from vrs.question_vocab import KINDS

P = Phrasing
_REL = "{rel} [the] {anchor:place}"  # e.g. "in the blue bowl", "on the table"
_COLOR = "(what color is|which color is|what is the color of)"


def Q(pattern: str, **fixed: str) -> Phrasing:
    """A parse-only phrasing: understood, never said (see "Paraphrases" in the docstring)."""
    return Phrasing(pattern, parse_only=True, **fixed)


def _alts(*options: str) -> str:
    """'(a|b|c)' from options ('' for "may be left out")."""
    return "(" + "|".join(options) + ")"


# Pieces of the parse-only phrasings. Every alternative of a `Q` phrasing is heard; they are
# said only for a program no said phrasing fits (an "any bowl" anchor), with the first ones.
_POSTURE_WORDS = ("sitting|resting|lying|stacked|placed|located|standing|kept|put|found|"
                  "contained|held|set|stored|positioned|moved|dropped|hiding|hidden")
_POSTURE = f"(|{_POSTURE_WORDS})"
_THAT_IS = ("(|that is|which is|that are|which are|that has been|which has been|that have been|"
            "which have been)")
_ANY_REL = _POSTURE + " {rel} (|the|a) {anchor:anyplace}"  # "sitting in a bowl", "on the table"
_SEE = ("(is there|are there|do you see|can you see|do we have|is there still|are there still"
        "|can i see|does the scene have|does the scene contain)")
_COLOR_OF = ("(what color is|which color is|what is the color of|which is the color of"
             "|what color are|which color are|what are the colors of|the color of"
             "|what is the color for)")
_IN_IT = "(|in it|inside it|inside|in them)"
_ON_IT = "(on it|on top of it|on top|on them)"
_BELOW_WORDS = "(on|on top of|in|inside|within|above|over)"
_ABOVE_WORDS = "(under|underneath|beneath|below)"
_OBJECT = ("(what|which|what object|which object|what thing|which thing|which block|"
           "what block|which bowl|what bowl|which one|what item|which item)")
_TAIL = ("(|in total|altogether|in all|now|right now|at the moment|currently|still|yet|already|"
         "at all)")
# The perfect of a verb of putting: "has the red block been put in ...", "have any blocks been
# placed on ..." (the state it leaves, as "is the red block in ..."; "did the robot put ..."
# asks about an action and stays refused).
_BEEN = f"(|already|now|just) been {_POSTURE}"
_HAS_SOME = "(a|any|some|at least one|any of the)"
_NUMBER_OF = "(|what is|what are|tell me|give me) the (|total) (number|count) of (|the|all the|all)"
_CONTENT_IN = ("(|in them|inside them|in it|inside it|on them|on top of them|on it|on top of it|"
               "on top)")
_BLOCKS = ("(are all the blocks|are all of the blocks|are all blocks|are the blocks all|"
           "are all the blocks all|are all blocks all|are the blocks|are all of the blocks all|"
           "do all the blocks|do all of the blocks|do all blocks|do the blocks all|"
           "are the blocks each|have all the blocks been|have all blocks been)")
_EVERY = ("(is every|is each|is every single|is each and every|does every|does each|"
          "does every single|has every|has each)")
_EVERY_BEEN = "(has every|has each|has every single|has each and every) block (|already|now) been"
_BLOCKS_BEEN = ("(have all the blocks|have all of the blocks|have all blocks|have the blocks all|"
                "have the blocks|have all the blocks all|have the blocks each) (|already|now) been")
_PUT = "(|put|placed|moved|set|dropped|sorted|stacked|kept|left|sitting|resting)"
_VERB_MANY = "(|sit|sitting|rest|resting|lie|lying|placed|put|stand|standing)"
_VERB_ONE = "(|sit|sits|sitting|rest|rests|resting|lie|lies|lying|placed|put|stand|standing)"
_INTO = "(in|inside|within|into)"
_SAME_MANY = _alts(
    "bowls of the same color", "bowls of matching color", "bowls of matching colors",
    "bowls with matching colors", "bowls with matching color", "bowls with the same color",
    "bowls with the same colors", "matching bowls", "matching colored bowls",
    "matching color bowls", "same colored bowls", "same color bowls", "bowls of their color",
    "bowls of their colors", "bowls of their own color", "bowls of their own colors",
    "bowls that match their color", "bowls that match their colors", "bowls that match",
    "bowls matching their color", "bowls matching their colors", "the bowls of their color",
    "the bowls of their own color", "the matching bowls", "their matching bowls",
    "bowls of the same color as themselves", "bowls of the same color as them",
    "their own bowls", "the bowls that match their color", "the bowls of the same color",
    "a bowl of the same color", "a matching bowl", "bowls the same color as them",
    "bowls the same color as themselves", "the bowl of the same color",
    "the same colored bowls", "the same color bowls", "color matched bowls",
    "bowls of a matching color")
_SAME_ONE = _alts(
    "a bowl of the same color", "a matching bowl", "the matching bowl", "its matching bowl",
    "the bowl of its color", "the bowl of its own color", "a bowl of its own color",
    "a bowl of its color", "a bowl of matching color", "a bowl with the same color",
    "a bowl with a matching color", "a bowl with matching color",
    "a bowl that matches its color", "the bowl that matches its color", "a same colored bowl",
    "the same colored bowl", "a same color bowl", "the same color bowl",
    "a bowl of the same color as itself", "a bowl of the same color as it",
    "the bowl with the same color", "a bowl matching its color", "the bowl matching its color",
    "the bowl of the same color", "a bowl the same color as itself",
    "a bowl the same color as it", "a matching colored bowl", "a matching color bowl",
    "the matching color bowl", "a color matched bowl", "a bowl of a matching color")
_DIFFERENT_MANY = _alts(
    "bowls of a different color", "bowls of different colors", "bowls of different color",
    "mismatched bowls", "bowls of another color", "bowls of other colors",
    "differently colored bowls", "different colored bowls", "different color bowls",
    "bowls of a different color from their own", "bowls of a different color than their own",
    "bowls of a different color from them", "bowls of a different color than them",
    "bowls of a different color from themselves", "bowls of a color other than their own",
    "bowls that do not match their color", "bowls that do not match their colors",
    "bowls that do not match", "bowls not matching their color",
    "bowls not matching their colors", "bowls with a different color",
    "bowls with different colors", "non matching bowls", "non-matching bowls",
    "wrong colored bowls", "bowls of the wrong color", "other colored bowls",
    "bowls of some other color", "a bowl of a different color", "a mismatched bowl",
    "a different colored bowl", "a differently colored bowl", "a bowl of another color")
_DIFFERENT_ONE = _alts(
    "a bowl of a different color", "a mismatched bowl", "a bowl of another color",
    "a differently colored bowl", "a different colored bowl", "a different color bowl",
    "a bowl of a different color from its own", "a bowl of a different color than its own",
    "a bowl of a different color from itself", "a bowl of a different color than itself",
    "a bowl of a different color from it", "a bowl of a different color than it",
    "a bowl that does not match its color", "a bowl not matching its color",
    "a bowl with a different color", "a non matching bowl", "a non-matching bowl",
    "a bowl of some other color", "a bowl of a color other than its own",
    "a wrong colored bowl", "a bowl of the wrong color", "a bowl of other color")
# The colour of an object in / on "a bowl", "another block": only the support relations, whose
# executor picks the first of several by name; a direction from "a bowl" has no one place to
# measure from (relate_object's executor likewise takes a group only for these: `_what_in_any`).
_SUPPORT_WORDS = {"in": "(in|inside|within)", "on": "(on|on top of|atop|upon)",
                  "above": "(above|over)", "below": "(below|under|beneath|underneath)"}
_COLOR_ONE = ("(what color is|which color is|what is the color of|which is the color of"
              "|the color of|what is the color for)")


def _color_of_any() -> tuple[Phrasing, ...]:
    """query_color with an indefinite anchor: "what colour is the block that's sitting in a
    bowl?", "what colour block is on another block?" (parse-only; see `_SUPPORT_WORDS`)."""
    place = "(|the|a) {anchor:anyplace} " + _TAIL
    return tuple(
        phrasing for rel, words in _SUPPORT_WORDS.items() for phrasing in (
            Q(f"{_COLOR_ONE} [the] {{type}} {_THAT_IS} {_POSTURE} {words} {place}", rel=rel),
            Q(f"(what|which) color {{type}} (is|sits|lies|rests) {_POSTURE} {words} {place}",
              rel=rel)))


# "any bowl" / "any block" said as relate_object's anchor, and "any of the blocks" besides
_GROUP_SAID = {g: _alts(*KINDS["anyplace"].phrases[g], f"any of the {g[4:]}s", f"some {g[4:]}s")
               for g in ("any bowl", "any block")}


def _what_in_any() -> tuple[Phrasing, ...]:
    """relate_object with an indefinite anchor: "what's sitting in a bowl?", "what is under some
    block?" (parse-only; the executor answers the first object by name so related to some
    object of the kind). Why the anchor fixed, not a slot: `anyplace` holds the table, and
    "what is on the table" is list_objects."""
    return tuple(
        Q(f"{_OBJECT} (is|sits|rests|lies|stands|is there|is located|can you see|do you see) "
          f"{_POSTURE} {words} {group} {_TAIL}", rel=rel, anchor=anchor)
        for rel, words in _SUPPORT_WORDS.items() for anchor, group in _GROUP_SAID.items())


_ANY_MANY = ("(bowls|a bowl|the bowls|some bowl|some bowls|any bowl|any bowls|one of the bowls|"
             "bowls of any color)")
_ANY_ONE = "(a bowl|some bowl|any bowl|one of the bowls|one bowl|a bowl of any color)"


def _all_in(mode: str, many: str, one: str) -> tuple[Phrasing, ...]:
    return (Q(f"{_BLOCKS} {_VERB_MANY} {_INTO} {many} {_TAIL}", mode=mode),
            Q(f"{_EVERY} block {_VERB_ONE} {_INTO} {one} {_TAIL}", mode=mode),
            # the perfect: "has every block been put in a bowl?", "have all the blocks been
            # placed into matching bowls?"
            Q(f"{_BLOCKS_BEEN} {_PUT} {_INTO} {many} {_TAIL}", mode=mode),
            Q(f"{_EVERY_BEEN} {_PUT} {_INTO} {one} {_TAIL}", mode=mode))


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
        # parse-only: "are there blocks in bowls?", "do you see any cubes?", "is any block on
        # the stand?", "does the blue bowl have anything in it?"
        Q(f"{_SEE} (a|any|some|at least one|) {{color?}} {{type}} (|at all) {_THAT_IS} "
          f"{_ANY_REL} {_TAIL}"),
        Q(f"{_SEE} (a|any|some|at least one|) {{color?}} {{type}} (|in the scene|at all|anywhere|"
          "here|in the image|in the picture|visible|left)"),
        Q(f"(is there|are there|do you see|can you see|is|are) (anything|something|any object|"
          f"any objects|any thing|any things|some object) (|at all) {_THAT_IS} {_ANY_REL} {_TAIL}",
          type="object"),
        Q(f"(is|are) (any|a|some|any of the|at least one) {{color?}} {{type}} {_ANY_REL} {_TAIL}"),
        # verbless: "any blocks on the stand?", "any red cubes at all?", "anything in the bowl?"
        Q(f"(any|any of the) {{color?}} {{type}} (|at all) {_THAT_IS} {_ANY_REL} {_TAIL}"),
        Q("(any|any of the) {color?} {type} (|at all|in the scene|anywhere|here|in the image|"
          "in the picture|visible|left)"),
        Q(f"(anything|something) (|at all) {_THAT_IS} {_ANY_REL} {_TAIL}", type="object"),
        # the perfect: "has any block been put in a bowl?", "has anything been placed on it?"
        Q(f"(has|have) {_HAS_SOME} {{color?}} {{type}} {_BEEN} {{rel}} (|the|a) "
          f"{{anchor:anyplace}} {_TAIL}"),
        Q(f"(has|have) (anything|something) {_BEEN} {{rel}} (|the|a) {{anchor:anyplace}} {_TAIL}",
          type="object"),
        Q("(is|are) (any|any of the|some|some of the|one of the) {type} {color}"),
        Q("does [the] {anchor:obj} (have|hold|contain) (a|any|some|) {color?} {type} " + _IN_IT,
          rel="in"),
        Q("does [the] {anchor:obj} (have|hold|carry) (a|any|some|) {color?} {type} " + _ON_IT,
          rel="on"),
        Q("does [the] {anchor:obj} (have|hold|contain) (anything|something|any object) "
          + _IN_IT, rel="in", type="object"),
        Q("does [the] {anchor:obj} (have|hold|carry) (anything|something|any object) "
          + _ON_IT, rel="on", type="object"),
    )),
    Template("count", "count", "how many objects of a type (and color) (and relation)", (
        P("how many {color?} {type:types} (are there|)"),
        P("how many {color?} {type:types} (are|are there) " + _REL),
        # parse-only: "how many blocks are in bowls?", "how many cubes do you see?", "how many
        # blocks sit on other blocks?", "how many blocks does the blue bowl contain?"
        Q("how many (|of the) {color?} {type:types} (are|are there|is|is there|sit|rest|lie|"
          f"stand|there are|can you see|do you see|are currently|are still|are now|have been|"
          f"has been|were|was) {_ANY_REL} {_TAIL}"),
        Q("how many (|of the) {color?} {type:types} (|are there|do you see|can you see|"
          "can be seen|are in the scene|are there in the scene|are visible|are present|"
          "do we have|exist|there are|is there|are in the image|are in the picture|are left) "
          + _TAIL),
        Q("how many (|of the) {type:types} (are|is) {color} " + _TAIL),
        Q("count (|the|all the|all|all of the) {color?} {type:types} " + _TAIL),
        Q("count (|the|all the|all|all of the) {color?} {type:types} " + _THAT_IS + " "
          + _ANY_REL + " " + _TAIL),
        Q("how many {color?} {type:types} (does|do) [the] {anchor:obj} (contain|hold|have) "
          + _IN_IT, rel="in"),
        Q("how many {color?} {type:types} (does|do) [the] {anchor:obj} (have|hold|carry) "
          + _ON_IT, rel="on"),
        # "what is the number of bowls?", "the count of red blocks in bowls"
        Q(f"{_NUMBER_OF} {{color?}} {{type:types}} (|there are|are there|in the scene|present|"
          f"visible|you see|you can see|that you see|that you can see) {_TAIL}"),
        Q(f"{_NUMBER_OF} {{color?}} {{type:types}} {_THAT_IS} {_ANY_REL} {_TAIL}"),
        # what the counted objects hold: "how many bowls have a block in them?" counts the
        # bowls below (directly supporting) some block
        Q(f"how many {{color?}} {{type:types}} (have|hold|contain|carry|support) [the] "
          f"{{anchor:content}} {_CONTENT_IN} {_TAIL}", rel="below"),
    )),
    Template("relation_yes_no", "yes/no", "does Relation(subject, rel, anchor) hold", (
        P("is [the] {subject:obj} " + _REL),
        # parse-only: "is the red cube sitting in a bowl?", "does the blue bowl contain the red
        # block?"
        Q("is [the] {subject:obj} (|still|currently|now|really) " + _ANY_REL + " " + _TAIL),
        # the perfect: "has the red block been put in the blue bowl?"
        Q(f"(has|have) [the] {{subject:obj}} {_BEEN} {{rel}} (|the|a) {{anchor:anyplace}} "
          + _TAIL),
        Q("does [the] {anchor:obj} (contain|hold|have) [the] {subject:obj} " + _IN_IT, rel="in"),
        Q("does [the] {anchor:obj} (have|hold) [the] {subject:obj} (on it|on top of it|on top)",
          rel="on"),
        # what holds another up is below it (in or on it: `below` is direct support), as
        # every paraphrase set's hand reads "is the X supporting the Y"
        Q("does [the] {subject:obj} (carry|support) [the] {anchor:obj} (|on it|on top of it|"
          "on top)", rel="below"),
        Q("(does|do) [the] {subject:obj} (sit|rest|lie|stand) " + _ANY_REL + " " + _TAIL),
        Q("is [the] {anchor:obj} (holding|containing) [the] {subject:obj} " + _IN_IT, rel="in"),
        Q("is [the] {subject:obj} (carrying|supporting) [the] {anchor:obj} (|on it|"
          "on top of it|on top)", rel="below"),
    )),
    Template("relate_object", "object", "the object S with Relation(S, rel, anchor)", (
        P("(what|which object) is {rel} [the] {anchor:obj}"),
        P("what is [the] {anchor:obj} (on|on top of|resting on|sitting on)", rel="below"),
        P("what is [the] {anchor:obj} (in|inside|resting in|sitting in)", parse_only=True,
          rel="below"),
        # parse-only: "what's sitting in the blue bowl?", "which bowl is the red block in?",
        # "what lies beneath the red block?"
        Q(f"{_OBJECT} (is|sits|rests|lies|stands|is there|is located|is found|can you see|"
          f"do you see|is currently|is still|is now|has been|has already been) {_POSTURE} "
          f"{{rel}} [the] {{anchor:obj}} " + _TAIL),
        # the perfect: "which bowl has the red block been put in?"
        Q(f"{_OBJECT} (has|have) [the] {{anchor:obj}} {_BEEN} {_BELOW_WORDS} {_TAIL}",
          rel="below"),
        Q(f"{_OBJECT} (is|does) [the] {{anchor:obj}} (|sit|rest|lie|stand|{_POSTURE_WORDS}) "
          f"{_BELOW_WORDS} {_TAIL}", rel="below"),
        Q(f"{_OBJECT} (is|does) [the] {{anchor:obj}} (|sit|rest|lie|stand|{_POSTURE_WORDS}) "
          f"{_ABOVE_WORDS} {_TAIL}", rel="above"),
        Q(f"{_OBJECT} (contains|holds|has|supports|carries|is holding|is supporting|"
          f"is carrying) [the] {{anchor:obj}} (|in it|inside it|on it|on top of it|on top)",
          rel="below"),
        Q(f"{_BELOW_WORDS} (which|what) (|bowl|block|object|thing|one) (is|does) [the] "
          f"{{anchor:obj}} (|sit|rest|lie|stand|{_POSTURE_WORDS}) {_TAIL}", rel="below"),
        *_what_in_any(),
    )),
    Template("query_color", "color", "the color of the object of a type that is rel the anchor", (
        P(_COLOR + " the bowl that [the] {anchor:obj} is (in|inside|resting in)",
          rel="below", type="bowl"),
        P(_COLOR + " the block that [the] {anchor:obj} is (on|on top of|resting on)",
          rel="below", type="block"),
        P(_COLOR + " the {type} " + _REL),
        # parse-only: "what colour is the cube sitting on the stand?", "what color block is in
        # the blue bowl?", "what color bowl is the red block in?", "the bowl holding the X"
        Q(f"{_COLOR_OF} [the] {{type}} {_THAT_IS} {_POSTURE} {{rel}} [the] {{anchor:place}} "
          + _TAIL),
        Q(f"{_COLOR_OF} [the] {{type}} (that|which|) [the] {{anchor:obj}} (is|sits|rests|lies|"
          f"stands|is {_POSTURE_WORDS.replace('|', '|is ')}|has been placed|was put) "
          f"{_BELOW_WORDS} {_TAIL}", rel="below"),
        Q(f"(what|which) color (does|do) [the] {{type}} {_THAT_IS} {_POSTURE} {{rel}} [the] "
          f"{{anchor:place}} have"),
        Q(f"(what|which) color {{type}} (is|sits|lies|rests) {_POSTURE} {{rel}} [the] "
          f"{{anchor:place}} {_TAIL}"),
        Q(f"(what|which) color {{type}} (is|does) [the] {{anchor:obj}} (|sit|rest|lie|stand|"
          f"{_POSTURE_WORDS}) {_BELOW_WORDS} {_TAIL}", rel="below"),
        # the perfect: "what colour bowl has the red block been put in?"
        Q(f"(what|which) color {{type}} (has|have) [the] {{anchor:obj}} {_BEEN} {_BELOW_WORDS} "
          f"{_TAIL}", rel="below"),
        Q(f"{_COLOR_OF} [the] {{type}} (containing|holding|that contains|that holds|"
          f"which contains|which holds|with|that has|which has|supporting|carrying) [the] "
          f"{{anchor:obj}} (|in it|on it|on top of it|on top)", rel="below"),
        *_color_of_any(),
    )),
    Template("list_objects", "objects", "every object in the scene, sorted by name", (
        P("(what|which) objects are (on the table|there|in the scene)"),
        P("list (the|all the|all) objects (|on the table)"),
        P("what objects (do you see|can you see)"),
        # parse-only: "which things can you see?", "name every object", "what do you see?"
        Q("(what|which) (objects|things|object) (are there|are|do you see|can you see|can be "
          "seen|do we have|exist|are present|are visible|are there in the scene|are there on "
          "the table|are on the table|are in the scene|are in the image|are in the picture|"
          "are here|do you have|are lying on the table|are sitting on the table) (|on the "
          "table|in the scene|here|in the image|in the picture|right now|now)"),
        Q("(list|name|show|enumerate|tell me|identify|give me|show me) (|the|all|all the|"
          "all of the|every|each|each of the|every single) (objects|object|things|thing) (|on the "
          "table|in the scene|there|you see|you can see|that you see|that you can see|here|"
          "there are|present|in the image|in the picture|that are on the table|that are there|"
          "visible|one by one)"),
        Q("(list|name|enumerate|identify) everything (|on the table|in the scene|you see|you "
          "can see|that you see|that you can see|there is|here|present|visible)"),
        Q("what (do|can) you see (|on the table|in the scene|here|in the image|in the picture)"),
        Q("what (is|are) (|there) (there|in the scene|visible|in the image|in the picture|"
          "present)"),
        # "what's on the table?": everything, as people mean it (not the `on table` relation,
        # which leaves out what is in a bowl or on a block: "what is on the stand?" keeps it)
        Q("what (is|are|sits|lies|stands|all is) (|all|there|all there) (|lying|sitting|standing|"
          "resting|placed|put|left|located|found) on the table"),
        Q("what are (|all) the (objects|things) (on the table|there|in the scene|here)"),
        Q("(list|name|enumerate|identify|tell me|give me|show me) everything (that is on the "
          "table|that is there|that is here|that you can see)"),
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
        # parse-only: "are the blocks all inside bowls?", "is every cube in a bowl of its own
        # colour?", "are all blocks in differently coloured bowls?"
        *_all_in("any", _ANY_MANY, _ANY_ONE),
        *_all_in("same", _SAME_MANY, _SAME_ONE),
        *_all_in("different", _DIFFERENT_MANY, _DIFFERENT_ONE),
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
