"""`--planner mcts`: ConceptAgent's LLM-guided Monte-Carlo tree search (issue 24).

Each step searches over primitive calls on the *believed* scene (the perceived facts of the
request, never ground truth) and returns the best first action as a one-call codeplan:

    selection        UCB1, Q/N + C * sqrt(ln N_parent / N), C = UCB_C (values in [0, 1])
    expansion        the LLM proposes up to K next actions for the node's believed scene
                     (one call); each child's scene follows from put's effect (the block
                     rests on the place); `done()` is always a child too (a 1.5B model
                     never proposed it, and kept moving blocks after the task was done:
                     dev seed 5000), and ends its branch
    evaluation       an LLM critic judges, in one call, the action sequence from the
                     episode's start to each new child: does the scene it leads to fulfil
                     the instruction (yes 1, no 0)? in place of random rollouts. Why yes/no
                     and not ConceptAgent's graded score: asked for 0-10, the 1.5B model gave
                     10 to the first plan listed and to done(), whatever they did; asked
                     yes/no it told them apart (dev seed 5000, put-block-in-bowl)
    backpropagation  the child's score is added up the path
    budget           `expansions` per step, `budget_s` LLM seconds per step and `episode_s`
                     per episode: no expansion starts that would run past them, taking the
                     last expansion's cost as the next one's (a step with no tree to reuse
                     needs one; when the episode cannot pay for it, the planner stops the
                     episode with a PlannerError that says so)

The chosen action is the root child with the highest mean value (a tie: the one visited
more). Why not the most visited ("robust child"): that rule needs many simulations per child;
at a budget of 3 expansions the child that happened to be expanded always has the most
visits, whatever its value (dev seed 5000). After the step the
planner looks again: when the perceived scene is the one the tree predicted, the chosen
child's subtree is kept (its expansions and scores reused); otherwise the tree is rebuilt.
Every node (action, visits, mean value, critic score) is in the codeplan's `details`, and so
in the trace and the report.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from runtime.planners.base import Codeplan, PlannerError, PlanRequest
from runtime.planners.openai_planner import DEFAULT_TIMEOUT_S
from runtime.planners.prompts import PROMPTS_DIR, format_history, format_now, load_prompt
from runtime.planners.steps import (
    Step,
    UsesLLM,
    action_grammar,
    make_llm,
    observation,
    parse_step,
    uses_grammar,
)

UCB_C = 1.0  # exploration constant; rewards are the critic's yes (1) / no (0)
K = 3  # actions the LLM proposes per expansion
EXPANSIONS = 3  # expansions per step (the default budget)
BUDGET_S = 60.0  # LLM seconds per step: no new expansion starts after this
# LLM seconds per episode (the 3 minutes): when it cannot pay for another expansion
# the planner stops with a PlannerError that says so (a planner is made per episode)
EPISODE_S = 180.0

Scene = tuple[tuple[str, str], ...]  # sorted (block, what it rests in/on)


@dataclass
class Node:
    """A believed scene reached by `step` from its parent."""

    scene: Scene
    step: Step | None = None
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    visits: int = 0
    value: float = 0.0  # sum of backed-up scores
    score: float | None = None  # the critic's score of the path to here
    expanded: bool = False

    @property
    def terminal(self) -> bool:
        return self.step is not None and self.step.done

    def mean(self) -> float:
        return self.value / self.visits if self.visits else 0.0

    def path(self) -> list[Step]:
        node, out = self, []
        while node is not None and node.step is not None:
            out.append(node.step)
            node = node.parent
        return out[::-1]

    def to_dict(self) -> dict:
        return {"step": str(self.step) if self.step else "root", "visits": self.visits,
                "mean": round(self.mean(), 3), "score": self.score,
                "children": [c.to_dict() for c in self.children]}


def scene_of(facts: list[tuple[str, str, str]], objects: list[str]) -> Scene:
    """The believed scene: each block and what it rests in/on ("table" when nothing said)."""
    support = {o: "table" for o in objects if o.endswith("block")}
    for block, _rel, place in facts:
        if block in support:
            support[block] = place
    return tuple(sorted(support.items()))


def apply(scene: Scene, step: Step) -> Scene:
    """put's effect on a believed scene: the block now rests on the place (a pair of blocks:
    on the first); whatever rested on the block moves with nothing (the model is put's)."""
    if step.done:
        return scene
    place = step.place.split(" and ")[0]
    return tuple(sorted({**dict(scene), step.pick: place}.items()))


def facts_of(scene: Scene) -> list[tuple[str, str, str]]:
    return [(b, "in" if p.endswith("bowl") else "on", p) for b, p in scene]


class MCTSPlanner(UsesLLM):
    """LLM-guided MCTS, one step per call; `expansions`, `k`, `budget_s`, `c` its budget."""

    name = "mcts"
    stepwise = True

    def __init__(self, model_path: str | Path | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S, server_url: str | None = None,
                 fetch: bool = True, base_url: str | None = None, model: str | None = None,
                 expansions: int = EXPANSIONS, k: int = K, budget_s: float = BUDGET_S,
                 c: float = UCB_C, episode_s: float = EPISODE_S) -> None:
        if int(expansions) < 1 or int(k) < 1 or not float(budget_s) > 0:
            raise PlannerError(f"mcts: expansions and k must be >= 1 and budget_s > 0, got "
                               f"{expansions}, {k}, {budget_s}")
        self.llm = make_llm(model_path, timeout_s, server_url, fetch, base_url, model)
        self.expansions, self.k, self.budget_s, self.c = int(expansions), int(k), \
            float(budget_s), float(c)
        self._kept: Node | None = None  # the subtree of the last chosen step
        self.episode_s, self._spent = float(episode_s), 0.0  # a planner serves one episode
        self._expansion_s = 0.0  # LLM seconds of the last expansion

    # -- one step ---------------------------------------------------------------------------
    def plan(self, request: PlanRequest) -> Codeplan:
        root, reused = self._root(request)
        search = _Search(self, request)
        started = time.perf_counter()
        left = self.episode_s - self._spent
        reserve = self._expansion_s  # what the last expansion cost: the next one, about
        if left <= 0 or (reserve > left and not root.children):
            raise PlannerError(f"mcts: the episode's LLM budget ({self.episode_s:g} s) is "
                               f"spent ({self._spent:.0f} s used; an expansion takes about "
                               f"{reserve:.0f} s)")
        step_s = min(self.budget_s, left)
        for _ in range(self.expansions):
            if root.children and search.llm_s + reserve > step_s:
                break  # no expansion starts that the budget cannot pay for
            leaf = self._select(root)
            if leaf.terminal:
                self._backup(leaf, leaf.score or 0.0)
                continue
            before = search.llm_s
            search.expand(leaf)
            reserve = self._expansion_s = search.llm_s - before
            for child in leaf.children:
                self._backup(child, child.score or 0.0)
        self._spent += search.llm_s
        if not root.children:
            raise PlannerError("mcts: the LLM proposed no valid action", search.exchanges)
        best = max(root.children, key=lambda n: (n.mean(), n.visits))
        self._kept = best
        details = {"tree": root.to_dict(), "chosen": str(best.step),
                   "expansions": search.expansions, "llm_s": round(search.llm_s, 3),
                   "wall_s": round(time.perf_counter() - started, 3), "c": self.c,
                   "k": self.k, "reused": reused}
        return Codeplan(best.step.source(), planner=self.name, model=self.model,
                        prompt_tokens=sum(int(x.get("prompt_tokens") or 0)
                                          for x in search.exchanges),
                        completion_tokens=sum(int(x.get("completion_tokens") or 0)
                                              for x in search.exchanges),
                        latency_s=round(search.llm_s, 4), reply=None,
                        notes=f"step: {best.step} (visits {best.visits}, mean "
                              f"{best.mean():.2f}, {search.expansions} expansions)",
                        exchanges=search.exchanges, details=details)

    def _root(self, request: PlanRequest) -> tuple[Node, bool]:
        """The kept subtree when the scene is the one it predicted (True), else a new root."""
        scene = scene_of(request.facts, request.objects)
        kept, self._kept = self._kept, None
        if request.attempt > 0 and kept is not None and kept.scene == scene \
                and not kept.terminal:
            kept.parent, kept.step = None, None
            return kept, True
        return Node(scene), False

    def _select(self, node: Node) -> Node:
        """Down by UCB1 to a node not yet expanded (or a terminal one)."""
        while node.expanded and node.children and not node.terminal:
            log_n = math.log(max(node.visits, 1))
            node = max(node.children, key=lambda ch: float("inf") if ch.visits == 0 else
                       ch.mean() + self.c * math.sqrt(log_n / ch.visits))
        return node

    @staticmethod
    def _backup(node: Node | None, value: float) -> None:
        while node is not None:
            node.visits += 1
            node.value += value
            node = node.parent


class _Search:
    """One step's LLM calls: proposals and critic scores, their exchanges and seconds."""

    def __init__(self, planner: MCTSPlanner, request: PlanRequest) -> None:
        self.planner, self.request = planner, request
        self.exchanges: list[dict] = []
        self.llm_s = 0.0
        self.expansions = 0

    def _ask(self, messages: list[dict], max_tokens: int, grammar: str | None,
             purpose: str) -> str:
        try:
            text, exchange = self.planner.llm.complete(messages, max_tokens, grammar)
        except PlannerError as e:
            raise PlannerError(str(e), self.exchanges + e.exchanges) from None
        self.exchanges.append({**exchange, "attempt": self.request.attempt,
                               "purpose": purpose})
        self.llm_s += float(exchange.get("latency_s") or 0.0)
        return text

    def expand(self, node: Node) -> None:
        """The LLM's proposals become children; the critic scores them in one call."""
        self.expansions += 1
        node.expanded = True
        objects = self.request.objects
        grammar = None
        if uses_grammar(self.planner.llm):
            lines = " ".join(['"1. " action "\\n"'] + [f'("{i}. " action "\\n")?'
                                                       for i in range(2, self.planner.k + 1)])
            grammar = f"root ::= {lines}\n" + action_grammar(objects)
        text = self._ask(propose_messages(self.request, node, self.planner.k),
                         30 * self.planner.k, grammar, "propose")
        seen: set[Step] = set()
        for line in text.splitlines():
            try:
                step = parse_step(line, objects)
            except PlannerError:
                continue
            if step not in seen and len(seen) < self.planner.k:
                seen.add(step)
                node.children.append(Node(apply(node.scene, step), step, node))
        if Step() not in seen:  # stopping is always a candidate: the critic judges it
            node.children.append(Node(node.scene, Step(), node))
        self.score(node.children)

    def score(self, children: list[Node]) -> None:
        letters = "ABCDEFGHIJ"[: len(children)]
        grammar = None
        if uses_grammar(self.planner.llm):
            grammar = "root ::= " + " ".join(f'"{x}: " a "\\n"' for x in letters) + \
                '\na ::= "yes" | "no"\n'
        text = self._ask(critic_messages(self.request, children, letters), 6 * len(letters),
                         grammar, "critic")
        found = dict(re.findall(r"^\s*([A-J])\s*[:=)-]\s*(yes|no)\b", text, re.M | re.I))
        for letter, child in zip(letters, children, strict=True):
            child.score = 1.0 if found.get(letter, "no").lower() == "yes" else 0.0


def propose_messages(request: PlanRequest, node: Node, k: int,
                     directory: Path = PROMPTS_DIR) -> list[dict]:
    """Ask for up to k plausible next actions from the node's believed scene."""
    path = node.path()
    lines = observation(request).splitlines()
    if path:  # the node is ahead of the real scene: show the believed one
        lines = [ln for ln in lines if not ln.startswith(("Now:", "Last step failed:"))]
        lines += [f"Then planned: {'; '.join(str(s) for s in path)}.",
                  f"Believed now: {format_now(facts_of(node.scene))}"]
    user = "\n".join(lines) + f"\nList up to {k} good next actions, best first."
    return [{"role": "system", "content": load_prompt("mcts_propose.txt", directory).strip()},
            {"role": "user", "content": user}]


def critic_messages(request: PlanRequest, children: list[Node], letters: str,
                    directory: Path = PROMPTS_DIR) -> list[dict]:
    """Ask the critic to score each child's action sequence from the start, 0-10."""
    done = format_history(request.history).rstrip(".")
    plans = []
    for letter, child in zip(letters, children, strict=True):
        seq = "; ".join(str(s) for s in child.path())
        plans.append(f"{letter}: {seq or 'nothing'} -> scene: {format_now(facts_of(child.scene))}")
    user = (f"Instruction: {request.instruction}\n"
            f"At the start: {format_now(request.initial_facts or request.facts)}\n"
            f"Done so far: {done}.\n" + "\n".join(plans))
    return [{"role": "system", "content": load_prompt("mcts_critic.txt", directory).strip()},
            {"role": "user", "content": user}]
