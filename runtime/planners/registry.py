"""Planners by name, so that a run config or the command line can choose one.

Each planner's module is imported only when it is chosen: the openai client and
unified-planning each take a noticeable part of a second to import, and a run needs one.
"""

from __future__ import annotations

import importlib
import inspect

from runtime.planners.base import Planner

PLANNERS = {  # name -> (module, class)
    "offline": ("runtime.planners.offline", "OfflinePlanner"),
    "openai": ("runtime.planners.openai_planner", "OpenAIPlanner"),
    "llm": ("runtime.planners.local_llm", "LocalLLMPlanner"),  # the packaged local model
    "file": ("runtime.planners.file_planner", "FilePlanner"),
    "react": ("runtime.planners.react", "ReActPlanner"),  # one step per call (ConceptAgent)
    "mcts": ("runtime.planners.mcts", "MCTSPlanner"),  # LLM-guided tree search (ConceptAgent)
}


def planner_names() -> list[str]:
    """The names make_planner accepts."""
    return list(PLANNERS)


def make_planner(name: str, **options: object) -> Planner:
    """A planner by name with its constructor options, e.g. make_planner('openai',
    model='gpt-4o-mini'). Options set to None count as not given (a command line's unset
    flags). ValueError for an unknown name or option, naming the known ones."""
    if name not in PLANNERS:
        raise ValueError(f"unknown planner {name!r}; planners: {', '.join(PLANNERS)}")
    module, cls_name = PLANNERS[name]
    cls = getattr(importlib.import_module(module), cls_name)
    given = {k: v for k, v in options.items() if v is not None}
    params = inspect.signature(cls).parameters
    unknown = sorted(set(given) - set(params))
    if unknown:
        raise ValueError(f"planner {name!r} has no option {', '.join(map(repr, unknown))}; "
                         f"options: {', '.join(params) or 'none'}")
    missing = [p.name for p in params.values()
               if p.default is inspect.Parameter.empty and p.name not in given]
    if missing:
        raise ValueError(f"planner {name!r} needs {', '.join(missing)} "
                         f"(e.g. {name} {' '.join(f'{m}=...' for m in missing)})")
    return cls(**given)
