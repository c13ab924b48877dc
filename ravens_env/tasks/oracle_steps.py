"""Oracle moves the reasoning tasks share: piles, empty bowls, parking, assignments, chains.

Why: a task's `oracle_step` must find the next step from any state the oracle can reach, and
the physics leave it few moves — a block goes only in a bowl, on a block or on the stand (there
is no "put it on the table"), a bowl holds one block, and the suction picks whatever is on top
of a pile. These helpers put those facts in one place, so each task only says what its goal is.
Every step is in the words `OracleActor` reads: "put the X in the Y" / "put the X on the Y".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ravens_env.scene_graph import Scene


def put_in(block: str, bowl: str) -> str:
    """The step that puts `block` in `bowl`."""
    return f"put the {block} in the {bowl}"


def put_on(block: str, other: str) -> str:
    """The step that puts `block` on the block `other`."""
    return f"put the {block} on the {other}"


def blocks_on(scene: Scene, name: str) -> list[str]:
    """Blocks resting directly on `name`."""
    return [s for s in scene.related("on", name) if scene.get(s).type == "block"]


def is_clear(scene: Scene, name: str) -> bool:
    """Nothing rests on `name`: the suction can pick it."""
    return not blocks_on(scene, name)


def pile_above(scene: Scene, name: str) -> list[str]:
    """`name` and every block resting on it, directly or not, bottom first."""
    pile, frontier = [name], [name]
    while frontier:
        above = [b for b in blocks_on(scene, frontier.pop()) if b not in pile]
        pile += above
        frontier += above
    return pile


def pile_top(scene: Scene, name: str) -> str:
    """The block the suction would pick above `name` (`name` itself when it is clear)."""
    top = name
    while above := [b for b in blocks_on(scene, top) if b != name]:
        top = above[0]
    return top


def blocks_below(scene: Scene, name: str) -> list[str]:
    """The blocks `name` rests on, directly or not, nearest first."""
    below, current = [], name
    while ((support := scene.support_of(current)) in scene.names()
           and scene.get(support).type == "block" and support not in below):
        below.append(support)
        current = support
    return below


def empty_bowls(scene: Scene, exclude: Iterable[str] = ()) -> list[str]:
    """Bowls with no block in them (a bowl holds one block), in scene order."""
    skip = set(exclude)
    return [b.name for b in scene.of_type("bowl")
            if b.name not in skip and not scene.related("in", b.name)]


def blocks_in_bowls(scene: Scene) -> list[str]:
    """Blocks that are *in* some bowl."""
    return [b.name for b in scene.of_type("block") if scene.container_of(b.name)]


def clear_blocks(scene: Scene, avoid: Iterable[str] = (),
                 keep: Callable[[str], bool] = lambda _: True) -> list[str]:
    """Clear blocks not in `avoid` for which `keep` holds, in scene order."""
    skip = set(avoid)
    return [b.name for b in scene.of_type("block")
            if b.name not in skip and is_clear(scene, b.name) and keep(b.name)]


def stack_somewhere(scene: Scene, block: str, avoid: Iterable[str] = (),
                    prefer: Iterable[str] = ()) -> str | None:
    """Put `block` on a clear block outside its own pile and `avoid` — one of `prefer` first,
    else a block in a bowl (which stays in it), else any; None when no block is free."""
    skip = set(avoid) | set(pile_above(scene, block))
    free = clear_blocks(scene, skip)
    preferred = [b for b in prefer if b in free]
    in_bowls = [b for b in free if scene.container_of(b)]
    for pool in (preferred, in_bowls, free):
        if pool:
            return put_on(block, pool[0])
    return None


def park(scene: Scene, block: str, keep_free: Iterable[str] = (), avoid: Iterable[str] = (),
         bowls: bool = True) -> str | None:
    """Move `block` out of the way: into an empty bowl not in `keep_free` (when `bowls`),
    else onto a clear block outside `avoid` (see `stack_somewhere`)."""
    free = empty_bowls(scene, exclude=keep_free) if bowls else []
    if free:
        return put_in(block, free[0])
    return stack_somewhere(scene, block, avoid)


def assignment_step(scene: Scene, goal: dict[str, str]) -> str | None:
    """Next step towards every block of `goal` being in its bowl (block -> bowl), or None.

    A clear block whose bowl is empty goes straight in; otherwise the top of whatever is in
    the way (the block in its bowl, or a block on it) is parked in a bowl no block of `goal`
    needs, else on another block.
    """
    pending = [b for b, bowl in goal.items() if scene.container_of(b) != bowl]
    for block in pending:
        if is_clear(scene, block) and not scene.related("in", goal[block]):
            return put_in(block, goal[block])
    for block in pending:
        occupants = scene.related("in", goal[block])
        blocker = pile_top(scene, occupants[0] if occupants else block)
        done = [b for b, bowl in goal.items() if scene.container_of(b) == bowl]
        step = park(scene, blocker, keep_free=goal.values(),
                    avoid=[b for b in goal if b not in done])
        if step:
            return step
    return None


def chain_length(scene: Scene, chain: list[str], base_ok: Callable[[Scene, str], bool]) -> int:
    """How many blocks of `chain` (bottom first) already stand as asked: 0 when the base is
    not acceptable, else 1 + the number of blocks each resting on the one before."""
    if not base_ok(scene, chain[0]):
        return 0
    k = 1
    while k < len(chain) and scene.holds(chain[k], "on", chain[k - 1]):
        k += 1
    return k


def chain_step(scene: Scene, chain: list[str], k: int, bowls: bool = True) -> str | None:
    """Next step that puts chain[k] on chain[k-1] (k >= 1): clear both first, parking what
    is on them (in an empty bowl when `bowls`, else on a block off the chain)."""
    below, nxt = chain[k - 1], chain[k]
    built = chain[:k]
    cover = pile_top(scene, below)
    if cover != below:
        return park(scene, cover, avoid=[*built, nxt], bowls=bowls)
    cover = pile_top(scene, nxt)
    if cover != nxt:
        return park(scene, cover, avoid=[*built, *pile_above(scene, nxt)], bowls=bowls)
    return put_on(nxt, below)
