"""Plan actions: what a codeplan may ask of the planner side."""

from primitives.episode import current


def get_object_names() -> list[str]:
    """Names of the objects seen on the table, e.g. ['blue bowl', 'red block', 'stand']."""
    return current().get_object_names()


def tell_planner(message: str) -> None:
    """Report back to the planner and end this codeplan.

    Call tell_planner('done') when the task is complete. Any other message (for example
    'I cannot find a green bowl') asks the planner for a new codeplan.
    """
    current().tell_planner(message)
