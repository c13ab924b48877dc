"""Tabletop tasks, one per file, registered by their CLIPort-style ids."""

from ravens_env.tasks.base import ObjectSpec, Task
from ravens_env.tasks.put_block_in_bowl import (
    PutBlockInBowl,
    PutBlockInBowlSeen,
    PutBlockInBowlUnseen,
)
from ravens_env.tasks.put_blocks_in_matching_bowls import PutBlocksInMatchingBowls
from ravens_env.tasks.put_blocks_in_mismatched_bowls import PutBlocksInMismatchedBowls
from ravens_env.tasks.put_darker_blocks_in_matching_bowls import PutDarkerBlocksInMatchingBowls
from ravens_env.tasks.registry import UnknownTaskError, make_task, register, task_ids, task_summary
from ravens_env.tasks.stack_block_pyramid import StackBlockPyramid
from ravens_env.tasks.stack_blocks import StackBlocks

for _cls, _id in (
    (PutBlocksInMatchingBowls, "put-blocks-in-matching-bowls"),
    (PutDarkerBlocksInMatchingBowls, "put-darker-blocks-in-matching-bowls"),
    (PutBlocksInMismatchedBowls, "put-blocks-in-mismatched-bowls"),
    (PutBlockInBowl, "put-block-in-bowl"),
    (PutBlockInBowlSeen, "put-block-in-bowl-seen-colors"),
    (PutBlockInBowlUnseen, "put-block-in-bowl-unseen-colors"),
    (StackBlocks, "stack-blocks"),
    (StackBlockPyramid, "stack-block-pyramid"),
):
    register(_id, _cls.summary, _cls)

__all__ = [
    "ObjectSpec", "Task", "UnknownTaskError", "make_task", "task_ids", "task_summary",
]
