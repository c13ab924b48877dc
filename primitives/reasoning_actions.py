"""Reasoning actions: questions a codeplan may ask about what the camera sees now."""

from primitives.episode import current

# The relations find_object_related_to_obj knows (the controller asks one question for each).
RELATIONS = ("below", "above", "on", "in", "left of", "right of", "in front of", "behind")


def find_object_related_to_obj(relation: str, obj: str) -> str | None:
    """The object that is `relation` the object `obj`, or None if there is none.

    relation: 'below', 'above', 'in', 'on', 'left of', 'right of', 'in front of', 'behind'.
    'below' gives what `obj` rests on or in ('table' when on the table).
    Example: find_object_related_to_obj('below', 'pink block') -> 'blue bowl'
    """
    return current().find_object_related_to_obj(relation, obj)


def ask(question: str) -> str:
    """Answer a question about the scene, e.g. ask('what color is the block in the blue bowl?')
    -> 'red'; ask('how many blocks are there?') -> '3'."""
    return current().ask(question)


def is_true(question: str) -> bool:
    """Answer a yes/no question, e.g. is_true('is the red block in the blue bowl?') -> True."""
    return current().is_true(question)
