"""What the question-reader rounds' tests share (a module, not a conftest: plain imports)."""

from __future__ import annotations

from vrs.questions import UnsupportedQuestion, read_question


def refused(text: str) -> bool:
    """Whether `read_question` refuses `text` (UnsupportedQuestion) rather than reading it."""
    try:
        read_question(text)
    except UnsupportedQuestion:
        return True
    return False
