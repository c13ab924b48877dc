"""The families (dataset splits) of the VQA data and exactly what each one holds.

Why families: the VQA model is evaluated per kind of reasoning (CLEVR-style), and the seed
paper's failures are specific (a red block in a red bowl, darker shades, knocked blocks), so
each family fixes which tasks seed its scenes, what is done to them, which colors objects may
take, and which questions are asked. Every family can be generated for train, val and test by
`--seed-offset` (disjoint seed ranges, see `shard_seed`).

  block_stack   stack-blocks and stack-block-pyramid scenes (a few put-block-in-bowl), mostly
                stacking pick-places; questions about on / above / below. Seen colors.
  block_bowl    the bowl tasks (matching, darker-shade matching, mismatched, put-block-in-bowl),
                mostly block-in-bowl pick-places with the block's own-color bowl half the time,
                blocks put down beside bowls; "is the X in/on the Y?" heavily, half of the `in`
                ones about same-color pairs; colors, all-in. Seen colors.
  global_table  every task, blocks moved to random spots; left / right / front / behind,
                counts, listing. Seen colors.
  unseen        the bowl tasks with at least 6 objects, recolored with CLIPort's unseen-only
                colors (orange, purple, pink, white); heavier clutter: 3-7 pick-places, a
                quarter of them stacking and 40% putting a block just behind another object
                (occlusion), "hard" situations always.
  cogent_a/b    CLEVR CoGenT: blocks take one half of the 11-color palette and bowls the other
                (`palette.COGENT_HALVES`), swapped in B; so no same-color block/bowl pair.
  pyramid       (opt-in: `--splits pyramid`, not in the default set) pyramids part-built by the
                task's own steps, some broken by hard situations, blocks set behind and beside
                them; "on", "below", lists and counts. Every color. Added for the closed loop:
                the other families' 1-4 random moves almost never build a pyramid's second row,
                and the detector read a covered stand as a brown bowl and missed straddling
                blocks' second support (docs/RESULTS.md, "The pyramid").

Seen colors are CLIPort's training split (blue, red, green, yellow, brown, gray, cyan), so
the unseen family is truly held out; train on the unseen family too for a deployed model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from datagen.palette import (
    ALL_RULE,
    COGENT_A_RULE,
    COGENT_B_RULE,
    SEEN_RULE,
    UNSEEN_RULE,
    ColorRule,
)

SEED_STRIDE = 10**9  # shard seeds of one family: base .. base + SEED_STRIDE - 1
BOWL_TASKS = {"put-blocks-in-matching-bowls": 0.3, "put-darker-blocks-in-matching-bowls": 0.25,
              "put-blocks-in-mismatched-bowls": 0.2, "put-block-in-bowl": 0.25}
DIRECTIONS_EVEN = {"left": 1.0, "right": 1.0, "front": 1.0, "behind": 1.0}


@dataclass(frozen=True)
class Family:
    """What one split holds. Weights need not sum to 1; ranges are inclusive."""

    name: str
    index: int  # fixes the seed base; never renumber a family
    summary: str
    tasks: dict[str, float]  # task id -> weight
    colors: ColorRule
    actions: tuple[int, int]  # random pick-places after the reset
    action_kinds: dict[str, float]  # see scenes.ACTION_KINDS
    templates: dict[str, float]  # question template id -> weight
    relations: dict[str, float]  # rel -> weight in relation questions
    oracle_p: float = 0.4  # a pick-place is the task's own next step (when it has one)
    complete_p: float = 0.15  # the task's oracle first runs to completion
    hard_p: float = 0.3  # the episode uses the "hard" situations preset
    own_bowl_p: float = 0.5  # an `in` pick-place targets the block's own-color bowl
    same_color_q: float = 0.0  # share of relation questions about a same-color pair
    min_objects: int = 0  # episodes with fewer objects are redrawn (clutter)
    notes: tuple[str, ...] = field(default_factory=tuple)
    default: bool = True  # generated when no --splits is given (the evaluation sets' splits)

    @property
    def seed_base(self) -> int:
        return (self.index + 1) * SEED_STRIDE


FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family(
        "block_stack", 0, "stacking and pyramid scenes; on / above / below",
        tasks={"stack-blocks": 0.5, "stack-block-pyramid": 0.4, "put-block-in-bowl": 0.1},
        colors=SEEN_RULE, actions=(1, 4),
        action_kinds={"on": 0.55, "stand": 0.15, "in": 0.1, "near": 0.05, "behind": 0.1,
                      "spot": 0.05},
        templates={"relation_yes_no": 0.4, "relate_object": 0.25, "query_color": 0.1,
                   "count": 0.1, "exists": 0.15},
        relations={"on": 0.4, "above": 0.25, "below": 0.25, "in": 0.1},
        own_bowl_p=0.3, same_color_q=0.2,
    ),
    Family(
        "block_bowl", 1, "bowl tasks; in / on, same-color pairs, darker shades, colors",
        tasks=BOWL_TASKS, colors=SEEN_RULE, actions=(1, 4),
        action_kinds={"in": 0.55, "on": 0.1, "near": 0.2, "behind": 0.1, "spot": 0.05},
        templates={"relation_yes_no": 0.5, "query_color": 0.15, "relate_object": 0.1,
                   "all_in": 0.1, "exists": 0.075, "count": 0.075},
        relations={"in": 0.7, "on": 0.2, "above": 0.05, "below": 0.05},
        oracle_p=0.5, complete_p=0.2, own_bowl_p=0.6, same_color_q=0.6,
    ),
    Family(
        "global_table", 2, "every task; left / right / front / behind, counts, listing",
        tasks={**BOWL_TASKS, "stack-blocks": 0.25, "stack-block-pyramid": 0.25},
        colors=SEEN_RULE, actions=(1, 4),
        action_kinds={"spot": 0.4, "in": 0.2, "on": 0.15, "near": 0.1, "behind": 0.15},
        templates={"relation_yes_no": 0.3, "relate_object": 0.15, "query_color": 0.1,
                   "count": 0.25, "exists": 0.1, "list_objects": 0.1},
        relations={**DIRECTIONS_EVEN, "on": 0.5},
        oracle_p=0.3, complete_p=0.1, hard_p=0.2,
    ),
    Family(
        "unseen", 3, "unseen-only colors, heavier clutter and occlusion, hard situations",
        tasks=BOWL_TASKS, colors=UNSEEN_RULE, actions=(3, 7), min_objects=6,
        action_kinds={"in": 0.25, "on": 0.25, "near": 0.1, "behind": 0.4},
        templates={"relation_yes_no": 0.4, "relate_object": 0.15, "query_color": 0.15,
                   "count": 0.1, "exists": 0.1, "all_in": 0.05, "list_objects": 0.05},
        relations={"in": 0.3, "on": 0.25, "above": 0.1, "below": 0.1,
                   **{k: 0.0625 for k in DIRECTIONS_EVEN}},
        hard_p=1.0, own_bowl_p=0.4, same_color_q=0.4,
        notes=("bowl tasks only, at least 6 objects: four unseen-only colors allow at most "
               "4 blocks + 4 bowls, so stack tasks could only be sparse; stacks come from "
               "the `on` pick-places",),
    ),
    *(Family(
        f"cogent_{cond}", 4 + i, f"CoGenT condition {cond.upper()}: blocks and bowls take "
        "disjoint color halves",
        tasks={**BOWL_TASKS, "stack-blocks": 0.25}, colors=rule, actions=(1, 4),
        action_kinds={"in": 0.4, "on": 0.25, "near": 0.15, "behind": 0.1, "spot": 0.1},
        templates={"relation_yes_no": 0.35, "relate_object": 0.15, "query_color": 0.2,
                   "count": 0.1, "exists": 0.15, "all_in": 0.05},
        relations={"in": 0.3, "on": 0.25, "above": 0.1, "below": 0.1,
                   **{k: 0.0625 for k in DIRECTIONS_EVEN}},
        complete_p=0.2, own_bowl_p=0.0,
        notes=("no pyramid: six blocks need more colors than one half holds",),
    ) for i, (cond, rule) in enumerate((("a", COGENT_A_RULE), ("b", COGENT_B_RULE)))),
    Family(
        "pyramid", 6, "pyramids part-built by the task's own steps, broken, half hidden",
        tasks={"stack-block-pyramid": 1.0}, colors=ALL_RULE, actions=(2, 7),
        action_kinds={"stand": 0.3, "on": 0.15, "behind": 0.35, "near": 0.2},
        templates={"relation_yes_no": 0.45, "relate_object": 0.2, "exists": 0.1,
                   "list_objects": 0.15, "count": 0.1},
        relations={"on": 0.7, "below": 0.2, "above": 0.1},
        oracle_p=0.8, complete_p=0.15, hard_p=0.3, default=False,
        notes=("opt-in: not in the default splits, so the evaluation sets keep their six",),
    ),
)}
DEFAULT_SPLITS = tuple(name for name, f in FAMILIES.items() if f.default)


def family(name: str) -> Family:
    """The family called `name`; ValueError naming the known ones otherwise."""
    if name not in FAMILIES:
        raise ValueError(f"unknown split {name!r}; known splits: {', '.join(FAMILIES)}")
    return FAMILIES[name]


def shard_seed(fam: Family, seed_offset: int, shard_index: int) -> int:
    """The seed of one shard. Train/val/test runs use different `seed_offset`s (e.g. 0,
    100000, 200000) so that their shard seeds, and every seed derived from them, differ."""
    if not 0 <= seed_offset + shard_index < SEED_STRIDE:
        raise ValueError(f"seed offset + shard index must be in [0, {SEED_STRIDE}), got "
                         f"{seed_offset} + {shard_index}")
    return fam.seed_base + seed_offset + shard_index


def describe(fam: Family) -> dict:
    """A JSON-ready account of a family (written into the manifest)."""
    return {"summary": fam.summary, "tasks": fam.tasks, "color_rule": fam.colors.name,
            "block_colors": list(fam.colors.blocks), "bowl_colors": list(fam.colors.bowls),
            "pick_places": list(fam.actions), "action_kinds": fam.action_kinds,
            "templates": fam.templates, "relations": fam.relations, "oracle_p": fam.oracle_p,
            "complete_p": fam.complete_p, "hard_situations_p": fam.hard_p,
            "own_bowl_p": fam.own_bowl_p, "same_color_question_p": fam.same_color_q,
            "min_objects": fam.min_objects, "seed_base": fam.seed_base,
            "notes": list(fam.notes)}
