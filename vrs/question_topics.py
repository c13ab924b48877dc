"""A topic or a place said before the question (the question reader's rewrites).

Why a module of its own: people put what they ask about first ("Looking at the orange bowl,
is the blue block inside it?", "In the white bowl, what colour is the block?") and then ask a
question that points back at it by a pronoun or leaves the place out. No phrasing hears the
topic first, and the frame of such a question misleads the reader: the first object named reads
as the subject ("looking at the alpha is the beta inside it": the bowl inside the block). Each
rule here puts the topic back where the question would say it; a question that says a place of
its own, or points back at the topic more than once, is left as it is (and so stays refused).
"""

from __future__ import annotations

import re

from vrs.question_vocab import KINDS

# every way to say a relation, longest first ("in front of" before "in")
_RELS = "|".join(sorted({re.escape(p) for ps in KINDS["rel"].all_phrases().values() for p in ps},
                        key=len, reverse=True))
_RELATION = re.compile(rf"\b(?:{_RELS})\b")
_OBJECT = r"the (?:\w+ )?(?:blocks?|bowls?|stands?|table)"
# a topic announced: "looking at the orange bowl", "as for the stand", "regarding the red block"
_TOPIC = re.compile(r"^(?:(?:now )?looking at|look at|as for|as to|as regards|regarding|"
                    r"concerning|speaking of|talking about|with regard to|with respect to|"
                    rf"when it comes to|about|considering) ({_OBJECT}) (.+)$")
# a place put first: "in the white bowl, what colour is the block?"
_PLACE = re.compile(rf"^((?:{_RELS}) {_OBJECT}) ((?:what|which|how many|is|are|does|do)\b.+)$")
_ASKS = re.compile(r"^(?:what|which|how|is|are|does|do|has|have|can|could)\b")
_POINTERS = re.compile(r"\b(?:it|them|they|its|their|there|that|this|one|ones)\b")
_EXISTS = re.compile(r"^(?:is|are) there\b")  # "is there": no pointer to a place
# a relation left without its anchor at the end: "is the blue block inside?"
_BARE_END = re.compile(rf"\b(?:{_RELS})$")


def topic_first(text: str) -> str:
    """"looking at the orange bowl is the blue block inside it" asks "is the blue block inside
    the orange bowl": the pronoun (or the relation left bare at the end: "... is the blue block
    inside") stands for the topic. Left as it is when the question after the topic is no
    question, or points back at it more than once or not at all."""
    m = _TOPIC.match(text)
    if m is None or not _ASKS.match(m[2]):
        return text
    topic, asked = m[1], m[2]
    pronoun = r"\bthem\b" if topic.endswith("s") else r"\bit\b"
    pointers = _POINTERS.findall(_EXISTS.sub("", asked))
    if len(pointers) == 1 and re.fullmatch(pronoun, pointers[0]):
        return re.sub(pronoun, topic, asked)
    if not pointers and _BARE_END.search(asked):
        return f"{asked} {topic}"
    return text


def place_first(text: str) -> str:
    """"in the white bowl what color is the block" asks "what color is the block in the white
    bowl": a place said before a question that names no place of its own is where its objects
    are. Left as it is when the question says a relation ("on the stand, is the red block left
    of the bowl": which is where?) or points back ("in the bowl, what colour is it")."""
    m = _PLACE.match(text)
    if m is None or _RELATION.search(m[2]) or _POINTERS.search(_EXISTS.sub("", m[2])):
        return text
    return f"{m[2]} {m[1]}"


def fronted(text: str) -> str:
    """`text` with a topic or place said first put back where the question says it."""
    return place_first(topic_first(text))
