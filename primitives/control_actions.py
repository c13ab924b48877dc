"""Control actions: what a codeplan may ask the robot to do."""

from primitives.episode import current


def put_first_on_second(pick: str, place: str) -> None:
    """Pick up the object named `pick` and put it in or on the object named `place`.

    `pick` must be a block; `place` may be a bowl ("blue bowl"), another block ("red block"),
    "stand" (the next free place of a pyramid's bottom row), or two blocks for a pyramid's
    upper rows ("red block and blue block").
    Example: put_first_on_second('red block', 'blue bowl')
    """
    current().put_first_on_second(pick, place)
