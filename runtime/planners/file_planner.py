"""A planner that reads the codeplan from a file: for hand-written codeplans and debugging.

It lets a person run the closed loop on a codeplan they wrote (or an LLM wrote elsewhere)
without a model in the loop. It has no way to react to feedback, so a recovery attempt gets
the same file again: the recovery then only helps when the codeplan itself checks the scene
and skips what is already done (or when the file was edited in between: it is read anew on
every call). A file holding markdown fences (a reply pasted from a chat model) gives the code
inside them, as the LLM planners take it from a reply (`extract_code`).
"""

from __future__ import annotations

from pathlib import Path

from runtime.planners.base import Codeplan, PlannerError, PlanRequest


class FilePlanner:
    """Returns the text of `path` as the codeplan, on every attempt."""

    name = "file"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def plan(self, request: PlanRequest) -> Codeplan:
        """The file's text; PlannerError when it is missing, unreadable, not UTF-8 or empty."""
        try:
            source = self.path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            raise PlannerError(f"codeplan file {self.path} does not exist") from None
        except UnicodeDecodeError as e:
            raise PlannerError(f"codeplan file {self.path} is not UTF-8 text "
                               f"(byte {e.start}: {e.reason})") from None
        except OSError as e:
            raise PlannerError(f"cannot read codeplan file {self.path}: "
                               f"{e.strerror or e}") from None
        if not source.strip():
            raise PlannerError(f"codeplan file {self.path} is empty")
        note = f"from {self.path}" + (" (the same file again)" if request.attempt else "")
        return Codeplan(self._unfenced(source.removeprefix("\ufeff")), planner=self.name,
                        notes=note)

    def _unfenced(self, source: str) -> str:
        """The code in a fenced block when a line opens a markdown fence, else `source`."""
        if not any(line.lstrip().startswith("```") for line in source.splitlines()):
            return source
        from runtime.planners.openai_planner import extract_code

        code = extract_code(source)
        if code is None:
            raise PlannerError(f"codeplan file {self.path} has markdown fences with no code "
                               f"in them")
        return code
