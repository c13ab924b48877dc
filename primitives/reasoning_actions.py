"""Reasoning actions: questions a codeplan may ask about what the camera sees.

Every question can be asked of the scene now or, with `at_start=True`, of the scene as it was
when the episode began (the first camera image, before any action): that is how a codeplan
remembers the initial arrangement ("put them back where they were", "swap", "the leftmost
block" after blocks have moved) across recovery codeplans.
"""

from primitives.episode import current

# The relations find_object_related_to_obj knows (the controller asks one question for each).
RELATIONS = ("below", "above", "on", "in", "left of", "right of", "in front of", "behind")


def find_object_related_to_obj(relation: str, obj: str, at_start: bool = False) -> str | None:
    """The object that is `relation` the object `obj`, or None if there is none.

    relation: 'below', 'above', 'in', 'on', 'left of', 'right of', 'in front of', 'behind'.
    'below' gives what `obj` rests on or in ('table' when on the table).
    at_start=True answers about the scene when the episode began.
    Example: find_object_related_to_obj('below', 'pink block') -> 'blue bowl'
    """
    return current().find_object_related_to_obj(relation, obj, at_start)


def ask(question: str, at_start: bool = False) -> str:
    """Answer a question about the scene, e.g. ask('what color is the block in the blue bowl?')
    -> 'red'; ask('how many blocks are there?') -> '3'. at_start=True: as the scene was when
    the episode began."""
    return current().ask(question, at_start)


def is_true(question: str, at_start: bool = False) -> bool:
    """Answer a yes/no question, e.g. is_true('is the red block in the blue bowl?') -> True;
    is_true('is the red block left of the blue block?'). at_start=True: as the scene was when
    the episode began."""
    return current().is_true(question, at_start)
