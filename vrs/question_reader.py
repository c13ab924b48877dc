"""Questions in words the grammar does not know: the program of the nearest known frame.

Why: the grammar (`question_templates`) refuses cleanly what it does not hear, but people's
frames are open-ended: after every round of new phrasings the next set written by a fresh hand
landed at 74-79% (docs/RESULTS.md, issue 27). The reader keeps the grammar's parse whenever
there is one. Otherwise it takes the question apart into its *mentions* -- the objects, kinds
and colours it names ("the red block", "bowls", "the stand") and the relations ("in", "left
of") -- and its *frame*, the words around them with each mention replaced by a letter word
("is there a red block on the stand" -> "is there a alpha on the beta"). The frame is looked up
by sentence similarity (all-MiniLM-L6-v2, the encoder the CLIPort actor ships with) among the
frames of questions whose programs are known: every phrasing of the grammar rendered with
drawn params, and the paraphrase sets used as dev (`BANK_FILES`). Each known frame carries its
program written over its own letters ("anchor = beta's place", "rel = the first relation said,
inverted"), which is filled with this question's mentions and must be a program of the
language.

It refuses (the grammar's UnsupportedQuestion) when the nearest frame is not near enough
(`MIN_SIMILARITY`, chosen on the fourth paraphrase set), is itself a question to refuse, says
other guard words (`question_guards`: negation, disjunction, nearness, order, time, a
command: meanings no program carries), or
when its letters do not fit: a named object of the question would go unused, or the program
needs an object the question does not name. A wrong program is worse than a refusal; the
figures are in docs/RESULTS.md ("Questions in other words").
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from vrs import question_typos
from vrs.question_guards import ACTS, GUARDS, shape_guards
from vrs.question_guards import guards as _guards
from vrs.question_program import Question, UnsupportedQuestion
from vrs.question_rewrites import rewrite
from vrs.question_templates import TEMPLATES, template_of
from vrs.question_typos import slip_in_place, swap_slip, synonym_slip
from vrs.question_vocab import ALL_COLORS, KINDS, fold_question

MIN_SIMILARITY = 0.80  # cosine between frames; chosen on the fourth set (dev), see RESULTS
TOP_K = 5  # near frames tried in order until one fits
LETTERS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta")
_TAILS = re.compile(r"(?: yes or no| or not)$")  # "..., yes or no?" asks the same question
# all_in's mode is read from the words, never lent by a frame (sentence similarity does not tell
# "matching" from "mismatched"): no such word is `any`
# (a word of difference wins: "unlike their own", "other than its own")
_MODE_WORDS = {"different": ("different", "differently", "mismatched", "mismatching", "mismatch",
                             "other", "another", "wrong", "differs", "differ", "unlike"),
               "same": ("same", "matching", "match", "matches", "matched", "own", "corresponding",
                        "correspondingly", "identical", "identically", "equal")}
_NEGATIONS = frozenset({"not", "no", "never", "nor", "neither"})
_MODE_PAIRS = {("its", "color"), ("their", "color"), ("its", "colors"), ("their", "colors")}
_TYPES = {"block": "block", "blocks": "block", "bowl": "bowl", "bowls": "bowl",
          "stand": "stand", "stands": "stand", "object": "object", "objects": "object",
          "thing": "object", "things": "object", "anything": "object", "something": "object"}
_INVERSE = {"on": "below", "in": "below", "above": "below", "below": "above", "left": "right",
            "right": "left", "front": "behind", "behind": "front"}
# Relations said with a verb or a non-native preposition, heard by the reader only: "is the
# red block supporting the white block" is Relation(red block, below, white block); "what is
# the blue block supported by" says `on` backwards, as "what is the blue block on" does.
_VERB_RELATIONS = {"below": ("supporting", "holding up", "propping up"),
                   "on": ("supported by", "resting on top of", "propped on", "held up by",
                          "propped up by", "borne by", "atop", "upon"),
                   "left": ("left from", "to the left from"),
                   "right": ("right from", "to the right from")}
_REL_PHRASES = sorted([(p.split(), v) for v, ps in KINDS["rel"].all_phrases().items()
                       for p in ps]
                      + [(p.split(), v) for v, ps in _VERB_RELATIONS.items() for p in ps],
                      key=lambda pv: -len(pv[0]))
# the paraphrase sets used as dev whose rows join the bank: the first set (both parts, its
# held-out figure long reported), the independent and third sets, and since the fourth round
# (the eighth held out) the fourth to seventh, since the fifth (the ninth held out) the eighth,
# since the sixth the ninth, the seventh the tenth, the eighth the eleventh and twelfth, the
# ninth the thirteenth and fourteenth, each measured before it joined. Never a set before its
# one measurement (`UNMEASURED` in runtime/eval/question_paraphrases.py).
BANK_FILES = ("question_paraphrases.jsonl", "question_paraphrases_independent.jsonl",
              "question_paraphrases_third.jsonl", "question_paraphrases_fourth.jsonl",
              "question_paraphrases_fifth.jsonl", "question_paraphrases_sixth.jsonl",
              "question_paraphrases_seventh.jsonl", "question_paraphrases_eighth.jsonl",
              "question_paraphrases_ninth.jsonl", "question_paraphrases_tenth.jsonl",
              "question_paraphrases_eleventh.jsonl", "question_paraphrases_twelfth.jsonl",
              "question_paraphrases_thirteenth.jsonl", "question_paraphrases_fourteenth.jsonl",
              "question_paraphrases_fifteenth.jsonl")
RENDERS_PER_PHRASING = 6


@dataclass(frozen=True)
class Mention:
    """An object or kind a question names: colour and/or type, or the table."""

    color: str | None
    type: str | None  # block, bowl, stand, object, table
    plural: bool = False

    @property
    def place(self) -> str | None:
        """As an object or place param: a name, "table", or a group ("any bowl")."""
        if self.type in ("stand", "table"):
            return self.type
        if self.type in ("block", "bowl"):
            return f"{self.color} {self.type}" if self.color else f"any {self.type}"
        return None

    @property
    def named(self) -> bool:
        """Whether it picks out one object (a program that drops it would misread)."""
        return bool(self.color) or self.type == "stand"


@dataclass(frozen=True)
class Parsed:
    """A question taken apart: its frame, mentions (in order) and relation values."""

    frame: str
    mentions: tuple[Mention, ...]
    relations: tuple[str, ...]
    guards: frozenset[str]
    mode: str  # all_in's mode as the words say it
    rel_target: int | None  # the mention the first relation leads to ("in the blue bowl")
    existential: bool = False  # "is there ...", "there are ...": asks whether one exists
    quantified: frozenset[int] = frozenset()  # the mentions said after "every" / "each" / "all"
    definite: frozenset[int] = frozenset()  # "the gray block": one named object, not a kind


def take_apart(text: str) -> Parsed:
    """The frame, mentions and relations of a question (see the module docstring)."""
    words = _TAILS.sub("", fold_question(text)).split()
    frame: list[str] = []
    mentions: list[Mention] = []
    starts: list[int] = []  # the word index where each mention begins
    relations: list[str] = []
    target: int | None = None
    lead = -1  # frame index where the first relation ended
    i = 0
    while i < len(words):
        rel = next(((p, v) for p, v in _REL_PHRASES if words[i:i + len(p)] == p), None)
        w = words[i]
        if rel is not None and _dangles(words, i + len(rel[0])):
            frame += rel[0]  # "in the stack", "on the screen": not a relation between objects
            i += len(rel[0])
        elif rel is not None:
            relations.append(rel[1])
            frame += rel[0]
            i += len(rel[0])
            lead = len(frame) if len(relations) == 1 else lead
        elif w in ALL_COLORS or w in _TYPES or w == "table":
            if len(relations) == 1 and target is None and _leads(frame, lead):
                target = len(mentions)  # "in the blue bowl", "on any of the blocks"
            starts.append(i)
            mention, i = _mention(words, i)
            frame.append(LETTERS[min(len(mentions), len(LETTERS) - 1)])
            mentions.append(mention)
        else:
            if (w in ("it", "them") and len(relations) == 1 and target is None and mentions
                    and len(frame) == lead):
                target = _antecedent(words, starts)  # "what has the bowl got in it": the bowl
            frame.append(w)
            i += 1
    if target is not None:
        mentions[target] = _one_of(mentions, target, words, starts, relations[0])
    return Parsed(" ".join(frame), tuple(mentions), tuple(relations),
                  _guards(words), _mode(words), target,
                  bool(_EXISTENTIAL.search(" ".join(words))),
                  frozenset(n for n, at in enumerate(starts) if _every(words, at)),
                  frozenset(n for n, at in enumerate(starts) if at and words[at - 1] == "the"
                            and mentions[n].named and not mentions[n].plural))


# a colour of the bowls said in an all_in, unless said not to matter ("bowls of any colour")
_COLOR_SAID = re.compile(r"\bcolor")
_ANY_COLOR = re.compile(r"\b(?:any|whatever|regardless of|irrespective of|no matter"
                        r"(?: the| what| which)?)(?: \w+)? color")
# a colour said as a comparison ("of a different colour", "matching colour"), not asked for
_COLOR_COMPARED = re.compile(r"\b(?:different|mismatch\w*|matching|matched|same|own|wrong|other)"
                            r" color")
_EXISTENTIAL = re.compile(r"\b(?:is|are) there\b|\bthere (?:is|are)\b")
_INDEFINITE = frozenset({"a", "an", "any", "some", "another", "anything", "something"})


# words between a relation and its anchor that name no object ("on any of the other blocks")
_DETERMINERS = frozenset({"the", "a", "an", "any", "some", "one", "each", "every", "all", "of",
                          "other", "another"})


def _leads(frame: list[str], lead: int) -> bool:
    """Whether a mention said after `frame` is the anchor of the relation that ended at
    frame[lead]: at most two words come between ("in the blue bowl", "on the wooden stand"), or
    only determiners ("on any of the blocks", "in one of the other bowls"). Why: "is there
    something stacked on any of the blocks" read the blocks as what is stacked, backwards."""
    between = frame[lead:]
    return lead >= 0 and (len(between) <= 2 or all(w in _DETERMINERS for w in between))


def _antecedent(words: list[str], starts: list[int]) -> int:
    """The mention "it" stands for: the last one said definitely ("the pink bowl", not "a
    block", "anything" nor a bare plural: "has the pink bowl got anything in it" asks about the
    bowl, "the bowls that have blocks in them" about the bowls); the first one when none is
    ("is there a bowl with a block in it": the bowl)."""
    definite = [n for n, at in enumerate(starts) if words[at] not in _INDEFINITE and (
        at == 0 or (words[at - 1] not in _INDEFINITE and not _bare_plural(words, at)))]
    return definite[-1] if definite else 0


def _bare_plural(words: list[str], at: int) -> bool:
    """Whether the mention at words[at] is a plural said without an article ("blocks", "red
    bowls"): some of a kind, no object "it" could point back to."""
    kind = words[at + 1] if words[at] in ALL_COLORS and at + 1 < len(words) else words[at]
    return kind in _TYPES and kind.endswith("s") and words[at - 1] not in ("the", "these", "those")


def _one_of(mentions: list[Mention], n: int, words: list[str], starts: list[int],
            rel: str) -> Mention:
    """The relation's anchor said as "the yellow one" has the kind of the mention before it
    ("how many blocks are on the yellow one": a yellow block), but never a block to be "in"."""
    m = mentions[n]
    if m.type is not None or not m.color or "one" not in words[starts[n]:starts[n] + 2]:
        return m
    kinds = [k.type for k in mentions[:n] if k.type in ("block", "bowl")]
    if not kinds or (rel == "in" and kinds[-1] != "bowl"):
        return m
    return Mention(m.color, kinds[-1], m.plural)


def _every(words: list[str], at: int) -> bool:
    """Whether the mention at words[at] is said after "every" / "each" / "all" ("every bowl",
    "each single block", "every one of the bowls", "all the bowls")."""
    before = [w for w in words[max(0, at - 4):at] if w not in ("single", "one", "of", "the")]
    return bool(before) and before[-1] in ("every", "each", "all")


def _dangles(words: list[str], j: int) -> bool:
    """Whether the relation ending before words[j] leads to an article and words that name no
    object ("in the stack than", "in the picture"), so that it relates nothing the programs
    know."""
    if j + 1 >= len(words) or words[j] not in ("the", "a", "this", "that"):
        return False
    return not any(w in ALL_COLORS or w in _TYPES or w == "table"  # "on the wooden stand"
                   for w in words[j + 1:j + 3])


def _mode(words: list[str]) -> str:
    """all_in's mode as `words` say it: a word of difference, else of sameness, else any;
    "denied" when a negation comes before the word ("whose colour isn't the same as its own"
    said otherwise than the rewrites know): that reads as neither, so nothing fits it."""
    for mode, said in _MODE_WORDS.items():
        at = next((n for n, w in enumerate(words) if w in said), None)
        if at is not None:
            return "denied" if _NEGATIONS & set(words[:at]) else mode
    return "same" if set(itertools.pairwise(words)) & _MODE_PAIRS else "any"


def _mention(words: list[str], i: int) -> tuple[Mention, int]:
    """The mention starting at words[i] and the index after it."""
    if words[i] == "table":
        return Mention(None, "table"), i + 1
    color = words[i] if words[i] in ALL_COLORS else None
    j = i + 1 if color else i
    if color and j < len(words) and words[j] == "colored":  # "a brown coloured bowl"
        j += 1
    if j < len(words) and words[j] in _TYPES:
        return Mention(color, _TYPES[words[j]], words[j].endswith("s")), j + 1
    if color and j < len(words) and words[j] in ("one", "ones"):
        return Mention(color, None, words[j] == "ones"), j + 1
    return Mention(color, None), j


def _slot_of(key: str, value: str, p: Parsed) -> str:
    """How a known program's param is said by its question: a letter's attribute, a relation
    (or its inverse), or a literal value."""
    attr = {"subject": "place", "anchor": "place", "type": "type", "color": "color"}.get(key)
    target = p.rel_target
    if key == "anchor" and target is not None and target < len(LETTERS) and \
            p.mentions[target].place == value:
        return f"{LETTERS[target]}.place"  # "how many blocks are on other blocks": the second
    for n, m in enumerate(p.mentions[:len(LETTERS)]):
        if attr and getattr(m, attr) == value:
            return f"{LETTERS[n]}.{attr}"
    if key == "rel" and p.relations:
        if value == p.relations[0]:
            return "rel"
        if value == _INVERSE.get(p.relations[0]):
            return "~" + p.relations[0]  # an inversion belongs to the relation it inverts
    if key == "mode":
        return "mode"
    return "=" + value


def _fill(slots: dict[str, str], p: Parsed) -> Question | None:
    """A known frame's program filled with question `p`'s mentions, or None when they do not
    fit (a letter it lacks, a named object or a colour left over, not a program of the
    language)."""
    params: dict[str, str] = {}
    used: dict[int, set[str]] = {}
    for key, slot in slots.items():
        if slot.startswith("="):
            params[key] = slot[1:]
        elif slot == "mode":
            params[key] = p.mode
        elif slot == "rel" or slot.startswith("~"):
            if not p.relations or (slot != "rel" and slot[1:] != p.relations[0]):
                return None
            if (slot != "rel") != (p.rel_target is None):
                return None  # forwards ("the thing in the bowl") or backwards ("what is it on")
            params[key] = p.relations[0] if slot == "rel" else _INVERSE[p.relations[0]]
        else:
            letter, attr = slot.split(".")
            n = LETTERS.index(letter)
            if n >= len(p.mentions):
                return None
            used.setdefault(n, set()).add(attr)
            value = getattr(p.mentions[n], attr)
            if value is None and attr == "type":
                value = "object"
            if value is None and attr == "color":
                continue  # "how many blocks" for a frame said of "how many red blocks"
            if value is None:
                return None
            params[key] = value
    _color_of_type(params, used, p)
    if not _fits_words(slots, used, p):
        return None
    for n, m in enumerate(p.mentions):
        said = used.get(n, set())
        if m.type != "table" and m.named and not said:
            return None  # "is the red block on the stand" must not become "is there a block"
        if m.color and said and not said & {"color", "place"}:
            return None  # a colour said and dropped: "grey cubes" is not "cubes"
    q = Question(slots["template"].removeprefix("="), {k: v for k, v in params.items()
                                                       if k != "template"})
    try:
        template_of(q)
    except UnsupportedQuestion:
        return None
    return q


def _color_of_type(params: dict[str, str], used: dict[int, set[str]], p: Parsed) -> None:
    """A frame said without a colour ("does any alpha sit on the beta": count / exists of a
    type) lends its program to "any cyan blocks on the table" with the colour of the typed
    letter: the colour is an adjective of the same objects, not an object of its own."""
    for n, attrs in used.items():
        m = p.mentions[n]
        if attrs == {"type"} and m.color and "color" not in params:
            params["color"] = m.color
            attrs.add("color")


def _fits_words(slots: dict[str, str], used: dict[int, set[str]], p: Parsed) -> bool:
    """Whether the program keeps what the words say of its objects: a relation the frame
    fixes by a verb ("is the X holding the Y": in) must be the one the question says, and the
    relation said forwards leads to the anchor, even when the frame fixes its value ("is the
    block supported by the stand": the stand); "is there" asks for existence, not about a
    named object; all_in says "in"; a kind said is not dropped for a fixed "object"; the list
    is asked of no block, bowl or stand ("what sits on the bowls"); "every bowl" is quantified
    by no program, "every block" only by all_in, count and the list."""
    anchor, rel = slots.get("anchor", ""), slots.get("rel", "")
    if rel.startswith("=") and p.relations and rel[1:] != (
            p.relations[0] if p.rel_target is not None else _INVERSE[p.relations[0]]):
        return False  # a relation the frame's verb fixed ("holding") is not the one said
    forwards = rel == "rel" or (p.relations and rel == "=" + p.relations[0])
    if (forwards and p.rel_target is not None and "." in anchor
            and LETTERS.index(anchor.split(".")[0]) != p.rel_target):
        return False  # "R the X": X is the relation's anchor
    if p.existential and slots["template"] == "=relation_yes_no":
        return False
    if slots["template"] in ("=exists", "=count") and any(
            n in p.definite and "place" not in attrs for n, attrs in used.items()):
        return False  # "the gray block (is) in the brown bowl?" asks about it, not whether one is
    if slots["template"] == "=all_in" and p.mode == "denied":
        return False  # a sameness or difference denied in words no rewrite made plain
    if slots["template"] == "=all_in" and ((p.relations and p.relations[0] != "in")
                                           or _some_not_all(p.frame)):
        return False  # all_in says "in" of all: not "is each block on the table", "any block"
    if slots["template"] == "=query_color" and _COLOR_COMPARED.search(p.frame):
        return False  # "which blocks are in bowls of a different colour" asks no colour
    if slots["template"] == "=all_in" and p.mode == "any" and _COLOR_SAID.search(p.frame) \
            and not _ANY_COLOR.search(p.frame):
        return False  # a colour said without a mode word ("a diff colour bowl") is no `any`
    if slots.get("type", "").startswith("=") and any(
            m.type in ("block", "bowl") for n, m in enumerate(p.mentions) if n not in used):
        return False  # "there's a block in the bowl; what colour is it" is not any object's
    if slots["template"] == "=list_objects" and any(
            m.type in ("block", "bowl", "stand") for m in p.mentions):
        return False  # "what sits on any of the bowls" asks of bowls, not for the whole list
    if p.quantified and slots["template"] not in ("=all_in", "=count", "=list_objects"):
        return False  # "are all blocks on other blocks" is not "is there one"
    return not any(p.mentions[n].type in ("bowl", "stand", "table") for n in p.quantified)


def _some_not_all(frame: str) -> bool:
    """Whether the first object is said as some or asked for ("are any blocks in bowls of a
    different colour", "which blocks are ...", "how many blocks are ..."): all_in's mode words
    then ask of some blocks what no program asks, not whether all are so."""
    words = frame.split()
    at = words.index(LETTERS[0]) if LETTERS[0] in words else 0
    return at > 0 and words[at - 1] in ("any", "some", "a", "one", "which", "what", "many")


# -- the bank of known frames ------------------------------------------------------------------
def _rendered(rng: np.random.Generator) -> list[tuple[str, Question]]:
    """Every phrasing of every template said with drawn params (parse-only ones included)."""
    out = []
    for template in TEMPLATES:
        for phrasing in template.phrasings:
            for _ in range(RENDERS_PER_PHRASING):
                params = dict(phrasing.fixed)
                for slot in phrasing.slots:
                    if slot.name in params or (slot.optional and rng.random() < 0.5):
                        continue
                    values = slot.kind.values
                    params[slot.name] = values[int(rng.integers(len(values)))]
                q = Question(template.id, params)
                if phrasing.fits(params):
                    try:
                        template_of(q)
                    except UnsupportedQuestion:
                        continue
                    out.append((phrasing.render(params, rng), q))
    return out


def _bank_rows() -> list[dict]:
    """The raw rows (question, template, params, why) of the sets in `BANK_FILES`."""
    return [json.loads(line) for name in BANK_FILES
            for line in (Path(__file__).parent / name).read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _dev_rows() -> list[tuple[str, Question | None]]:
    """The rows of the paraphrase sets used as dev (`BANK_FILES`)."""
    return [(r["question"], None if r["template"] is None
             else Question(r["template"], r["params"])) for r in _bank_rows()]


def known_frames() -> list[tuple[str, dict[str, str] | None, frozenset[str]]]:
    """(frame, program over letters or None for a refusal, guards) of every bank question,
    one entry per distinct frame and program."""
    seen: dict[tuple, None] = {}
    rows = _rendered(np.random.default_rng(0)) + _dev_rows()
    out = []
    for text, q in rows:
        p = take_apart(text)
        slots = None if q is None else {"template": "=" + q.template,
                                       **{k: _slot_of(k, v, p) for k, v in q.args.items()}}
        key = (p.frame, json.dumps(slots, sort_keys=True), p.guards)
        if key not in seen:
            seen[key] = None
            out.append((p.frame, slots, p.guards))
    return out


@dataclass
class Bank:
    """The known frames (frame, program over letters or None, guards) and their vectors."""

    frames: list[tuple[str, dict[str, str] | None, frozenset[str]]]
    vectors: np.ndarray  # (N, 384) unit rows


def _cache_dir() -> Path:
    return Path(os.environ.get("CODEPLAN_CACHE", Path.home() / ".cache" / "codeplan"))


@lru_cache(maxsize=1)
def bank() -> Bank:
    """The known frames and their MiniLM vectors (cached on disk by content hash)."""
    frames = known_frames()
    texts = sorted({f for f, _, _ in frames})
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    path = _cache_dir() / f"question-frames-{digest}.npy"
    if path.is_file():
        table = np.load(path)
    else:
        table = embed(texts)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, table)
    index = {t: n for n, t in enumerate(texts)}
    return Bank(frames, table[[index[f] for f, _, _ in frames]])


def embed(texts: list[str]) -> np.ndarray:
    """Unit MiniLM vectors; UnsupportedQuestion when the encoder is not installed."""
    from transformers.utils import logging as transformers_logging

    from ravens_env.cliport.language import MiniLMEncoder

    transformers_logging.disable_progress_bar()  # "Loading weights" on every first question
    try:
        encoder = MiniLMEncoder()
    except RuntimeError as e:
        raise UnsupportedQuestion(f"the question reader needs the MiniLM encoder: {e}") from None
    return encoder._embed(texts).astype(np.float32)


@lru_cache(maxsize=4096)
def _frame_vector(frame: str) -> np.ndarray:
    """One frame's vector, kept: a controller asks the same questions again and again."""
    return embed([frame])[0]


def read_nearest(text: str) -> tuple[Question, float]:
    """The program of the nearest known frame that fits `text`, and its similarity; raises
    UnsupportedQuestion (a short reason) when none is near enough and fits."""
    p = take_apart(plain(text))
    unknown = _unknown_objects(fold_question(plain(text)).split())
    if unknown:  # a word no frame says, where it tells the object ("the black block", "a ball")
        raise UnsupportedQuestion(f"did not understand {', '.join(map(repr, unknown))}")
    shapes = shape_guards(text) - p.guards
    if shapes:  # said before the rewrites made it plainer ("this bowl", "the stand's right")
        raise UnsupportedQuestion(f"it says what no program carries ({', '.join(sorted(shapes))})")
    b = bank()
    sims = b.vectors @ _frame_vector(p.frame)
    for n in np.argsort(-sims)[:TOP_K]:
        if sims[n] < MIN_SIMILARITY:
            break
        frame, slots, guards = b.frames[n]
        if slots is None:
            raise UnsupportedQuestion(f"it reads like {frame!r}, a question the language cannot "
                                      "express")
        if guards != p.guards:
            continue
        q = _fill(slots, p)
        if q is not None:
            return q, float(sims[n])
    best = float(sims.max()) if len(sims) else 0.0
    raise UnsupportedQuestion(f"no known question is near enough (best similarity {best:.2f})")


# The words a slip is corrected *to*: the ones that carry a program (colours, kinds, the
# question words, relations, modes). Why so few: a real word outside the language ("round")
# must not become a known one ("around") and lend the question a program.
# "thing" and its kin are no targets: too near real words ("think" is no slip of "thing")
_KEY_WORDS = frozenset({*ALL_COLORS, *(t for t in _TYPES if "thing" not in t), "color",
                        "colors", "there", "every", "each", "different", "same", "matching",
                        "many", "what", "which", "where", "left", "right", "front", "behind",
                        "inside", "above", "below", "under", "beneath", "underneath", "table",
                        "stand", "all", "any", "bowls", "blocks", "objects"})


@lru_cache(maxsize=1)
def vocabulary() -> frozenset[str]:
    """Every word the grammar or a known frame says, and the reader's own words."""
    words = {w for t in TEMPLATES for p in t.phrasings for w in p.words()}
    words |= {w for frame, _, _ in known_frames() for w in frame.split()}
    words |= set(ALL_COLORS) | set(_TYPES) | GUARDS | ACTS
    words |= {w for ws in _MODE_WORDS.values() for w in ws}
    return frozenset(words - _slips())


_OBJECT_BEFORE = frozenset({"a", "an", "the", "any", "some", "there", "is", "are"})


def _unknown_objects(words: list[str]) -> list[str]:
    """The words no frame says that stand where an object is told (before a kind or a colour,
    or after an article, a colour or "is there"): "the black block", "a red ball". Why
    only there and not any unknown word: people add words that change nothing ("i need the
    count of ...", "contian", "plese"); why not a slip of a known word: "ther", "bowels" are
    slips, but a real word ("black", "clock": `question_typos.REAL_WORDS`) never is one."""
    known, out = vocabulary(), []
    for n, w in enumerate(words):
        if w in known or not w.isalpha():
            continue
        before = n + 1 < len(words) and (words[n + 1] in _TYPES or words[n + 1] in ALL_COLORS)
        after = n > 0 and (words[n - 1] in _OBJECT_BEFORE or words[n - 1] in ALL_COLORS)
        slip = w not in question_typos.REAL_WORDS and any(
            question_typos.one_keystroke(w, k) for k in known)
        if (before or after) and not slip:
            out.append(w)
    return out


def _slips() -> set[str]:
    """Words only the bank's rows marked as typos say ("blok", "diffrent"): their frames join
    the bank, but their slips must stay slips, or `respell` would keep them."""
    said, slipped = set(), set()
    for row in _bank_rows():
        typo = re.search(r"typo|texting|misspel", row.get("why", ""), re.IGNORECASE)
        (slipped if typo else said).update(fold_question(row["question"]).split())
    return slipped - said - {w for t in TEMPLATES for p in t.phrasings for w in p.words()}


def respell(text: str) -> str:
    """The folded question with each unknown word replaced by the word it is a slip of: by its
    place (`slip_in_place`: "the blu block") or as a long synonym's (`synonym_slip`: "contaner"),
    then, for 4+ letters, by the one known word it is close to when that is a key word ("blok"
    -> "block"; difflib ratio >= 0.8), or else is with two letters swapped (`swap_slip`: "bolw"
    -> "bowl"); left alone when two known words are as close ("ther": there or their) or the
    closest is no key word ("round" stays)."""
    words = fold_question(text).split()
    for _ in range(2):  # twice: "teh pnk block" -- the place of "teh" is known once "pnk" is
        words = " ".join(_respelled(words, n) for n in range(len(words))).split()
    return " ".join(words)


def _respelled(words: list[str], n: int) -> str:
    """words[n], or the word it is a slip of (see `respell`)."""
    w, known = words[n], vocabulary()
    if w in known or len(w) < 3 or not w.isalpha() or w in question_typos.REAL_WORDS:
        return w
    placed = slip_in_place(words, n) or synonym_slip(w) or question_typos.guard_slip(w)
    if placed or len(w) < 4:
        return placed or w
    scored = sorted(((difflib.SequenceMatcher(None, w, k).ratio(), k)
                     for k in difflib.get_close_matches(w, known, n=3, cutoff=0.8)),
                    reverse=True)
    if not scored:  # "bolw": two letters swapped in a short word (difflib: 0.75)
        return swap_slip(w, known, _KEY_WORDS) or w
    unique = len(scored) == 1 or scored[0][0] > scored[1][0]
    return scored[0][1] if unique and scored[0][1] in _KEY_WORDS else w


def plain(text: str) -> str:
    """The folded, respelled question in the plainer words `question_rewrites` knows."""
    return rewrite(respell(text))


def reader_enabled() -> bool:
    """The reader is on unless CODEPLAN_QUESTION_READER=grammar (the grammar alone)."""
    return os.environ.get("CODEPLAN_QUESTION_READER", "nearest") != "grammar"


