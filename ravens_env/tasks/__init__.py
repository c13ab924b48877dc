"""Tabletop tasks, one per file, registered by their CLIPort-style ids."""

from ravens_env.tasks.base import ObjectSpec, Task
from ravens_env.tasks.empty_the_bowl import EmptyTheBowl
from ravens_env.tasks.flag_colors_in_bowls import FlagColorsInBowls
from ravens_env.tasks.one_block_per_bowl import OneBlockPerBowl
from ravens_env.tasks.primary_colors_in_bowls import PrimaryColorsInBowls
from ravens_env.tasks.put_block_by_relation import PutBlockByRelation
from ravens_env.tasks.put_block_in_bowl import (
    PutBlockInBowl,
    PutBlockInBowlSeen,
    PutBlockInBowlUnseen,
)
from ravens_env.tasks.put_blocks_except_color import PutBlocksExceptColor
from ravens_env.tasks.put_blocks_in_matching_bowls import PutBlocksInMatchingBowls
from ravens_env.tasks.put_blocks_in_mismatched_bowls import PutBlocksInMismatchedBowls
from ravens_env.tasks.put_darker_blocks_in_matching_bowls import PutDarkerBlocksInMatchingBowls
from ravens_env.tasks.put_n_blocks_in_bowls import PutNBlocksInBowls
from ravens_env.tasks.put_ordinal_block_in_bowl import PutOrdinalBlockInBowl
from ravens_env.tasks.rainbow_order_tower import RainbowOrderTower
from ravens_env.tasks.registry import (
    UnknownTaskError,
    make_task,
    register,
    task_category,
    task_ids,
    task_summary,
)
from ravens_env.tasks.restore_after_disturbance import RestoreAfterDisturbance
from ravens_env.tasks.reverse_tower import ReverseTower
from ravens_env.tasks.stack_block_pyramid import StackBlockPyramid
from ravens_env.tasks.stack_blocks import StackBlocks
from ravens_env.tasks.swap_blocks_in_bowls import SwapBlocksInBowls
from ravens_env.tasks.tidy_up_blocks import TidyUpBlocks
from ravens_env.tasks.warm_colors_in_bowls import WarmColorsInBowls

for _cls, _id in (
    (PutBlocksInMatchingBowls, "put-blocks-in-matching-bowls"),
    (PutDarkerBlocksInMatchingBowls, "put-darker-blocks-in-matching-bowls"),
    (PutBlocksInMismatchedBowls, "put-blocks-in-mismatched-bowls"),
    (PutBlockInBowl, "put-block-in-bowl"),
    (PutBlockInBowlSeen, "put-block-in-bowl-seen-colors"),
    (PutBlockInBowlUnseen, "put-block-in-bowl-unseen-colors"),
    (StackBlocks, "stack-blocks"),
    (StackBlockPyramid, "stack-block-pyramid"),
    # the reasoning suite (issue 21; `suites.REASONING_TASKS` lists them by category)
    (PutBlockByRelation, "put-block-by-relation"),
    (PutOrdinalBlockInBowl, "put-ordinal-block-in-bowl"),
    (PutNBlocksInBowls, "put-n-blocks-in-bowls"),
    (PutBlocksExceptColor, "put-blocks-except-color"),
    (SwapBlocksInBowls, "swap-blocks-in-bowls"),
    (RestoreAfterDisturbance, "restore-after-disturbance"),
    (ReverseTower, "reverse-tower"),
    (TidyUpBlocks, "tidy-up-blocks"),
    (OneBlockPerBowl, "one-block-per-bowl"),
    (EmptyTheBowl, "empty-the-bowl"),
    (FlagColorsInBowls, "flag-colors-in-bowls"),
    (RainbowOrderTower, "rainbow-order-tower"),
    (WarmColorsInBowls, "warm-colors-in-bowls"),
    (PrimaryColorsInBowls, "primary-colors-in-bowls"),
):
    register(_id, _cls.summary, _cls)

__all__ = [
    "ObjectSpec", "Task", "UnknownTaskError", "make_task", "task_category", "task_ids",
    "task_summary",
]
