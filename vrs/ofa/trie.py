"""Answer decoding constrained by a trie over the tokenized answer vocabulary, as OFA does.

Why: a generative decoder can emit any token sequence, but the controller can only use answers
of the question language. At each step only tokens that continue some answer are allowed (the
others' logits are masked to -inf before the softmax), so decoding can never leave the
vocabulary, and the softmax over the allowed tokens gives the answer's confidence.

One trie per answer type (the question's template fixes it: a yes/no question gets
{yes, no}) plus 'any', the union. A `list_objects` answer is object names joined by ", ",
sorted by name (`vrs.question_exec`): after a complete object name the separator may follow,
and the trie restarts at its root, now allowing only names that sort after the last one. So a
list is strictly increasing (no repeats) and decoding ends within len(names) items.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from vrs.ofa.tokenizer import QuestionTokenizer, answer_vocabulary


@dataclass
class Node:
    """A trie node: `children` by token id; `text` when a whole answer ends here; `item` when
    that answer may be a list item; `max_item`: the largest list-item text below (or '')."""

    children: dict[int, Node] = field(default_factory=dict)
    text: str | None = None
    item: bool = False
    max_item: str = ""


@dataclass
class Cursor:
    """Where one sequence stands in its trie: the node, the list items already complete, and
    whether it has ended (then `answer` is the text)."""

    node: Node
    items: list[str] = field(default_factory=list)
    answer: str | None = None


class AnswerTrie:
    """Allowed next tokens for answers of one vocabulary (see the module docstring)."""

    def __init__(self, answers: dict[str, list[int]], list_items: set[str], eos_id: int,
                 separator_id: int) -> None:
        self.root, self.eos_id, self.separator_id = Node(), eos_id, separator_id
        for text, ids in answers.items():
            node = self.root
            for token in ids:
                node = node.children.setdefault(token, Node())
            node.text, node.item = text, text in list_items
        self._fill_max(self.root)
        depth = max(len(ids) for ids in answers.values())
        items = len(list_items & set(answers))
        self.max_tokens = max(depth + 1, items * (depth + 1))  # +1: the EOS or a separator

    def _fill_max(self, node: Node) -> str:
        best = node.text if node.item and node.text else ""
        for child in node.children.values():
            best = max(best, self._fill_max(child))
        node.max_item = best
        return best

    def start(self) -> Cursor:
        """A cursor at the root, nothing decoded."""
        return Cursor(self.root)

    def allowed(self, cursor: Cursor) -> list[int]:
        """Token ids that may come next (empty once the answer has ended)."""
        if cursor.answer is not None:
            return []
        last = cursor.items[-1] if cursor.items else None
        node = cursor.node
        out = [t for t, child in node.children.items() if last is None or child.max_item > last]
        if node.text is not None and (last is None or (node.item and node.text > last)):
            out.append(self.eos_id)
            if node.item and self.root.max_item > node.text:
                out.append(self.separator_id)
        return out

    def advance(self, cursor: Cursor, token: int) -> None:
        """Move `cursor` by an allowed token (ValueError for one that is not allowed)."""
        if token not in self.allowed(cursor):
            raise ValueError(f"token {token} is not allowed here")
        node = cursor.node
        if token == self.eos_id:
            cursor.answer = ", ".join([*cursor.items, node.text])
        elif token == self.separator_id and node.text is not None and token not in node.children:
            cursor.items.append(node.text)
            cursor.node = self.root
        else:
            cursor.node = node.children[token]


def build_tries(tokenizer: QuestionTokenizer) -> dict[str, AnswerTrie]:
    """A trie per answer type of `answer_vocabulary()` and 'any' (every answer); object names
    are list items in 'objects' and 'any'."""
    vocab = answer_vocabulary()
    names = {a for a in vocab["objects"] if a != "nothing"}
    every = {a: tokenizer.encode_answer(a) for answers in vocab.values() for a in answers}
    tries = {}
    for kind, answers in [*vocab.items(), ("any", list(every))]:
        items = names if kind in ("objects", "any") else set()
        tries[kind] = AnswerTrie({a: every[a] for a in answers}, items, tokenizer.eos_id,
                                 tokenizer.separator_id)
    return tries


# (prefix (A, t) token ids of the A unfinished rows, their row indices (A,)) -> (A, V) logits
NextLogits = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


@torch.no_grad()
def constrained_greedy(next_logits: NextLogits, tries: list[AnswerTrie], bos_id: int,
                       pad_id: int, device: str | torch.device = "cpu"
                       ) -> list[tuple[str, float]]:
    """Greedy decoding of one answer per row, each row in its own trie; returns (text, score)
    where score is the product of the chosen tokens' probabilities under the masked softmax
    (the answer's probability among the allowed answers, greedily), in (0, 1]."""
    rows = len(tries)
    cursors = [t.start() for t in tries]
    prefix = torch.full((rows, 1), bos_id, dtype=torch.long, device=device)  # (B, t)
    log_score = torch.zeros(rows, dtype=torch.float64)  # (B,) sum of log-probabilities
    active = list(range(rows))
    for _ in range(max((t.max_tokens for t in tries), default=0)):
        if not active:
            break
        allowed = {row: tries[row].allowed(cursors[row]) for row in active}
        chosen = {row: (ids[0], 0.0) for row, ids in allowed.items() if len(ids) == 1}
        asked = [row for row in active if row not in chosen]  # forced rows need no model call
        if asked:
            chosen.update(_choose(next_logits, prefix, asked, allowed, device))
        column = torch.full((rows, 1), pad_id, dtype=torch.long, device=device)
        for row in active:
            token, logp = chosen[row]
            column[row, 0] = token
            log_score[row] += logp
            tries[row].advance(cursors[row], token)
        prefix = torch.cat([prefix, column], dim=1)
        active = [row for row in active if cursors[row].answer is None]
    if active:
        raise RuntimeError(f"decoding did not end within the trie's bound for rows {active}")
    scores = log_score.exp().clamp(min=1e-12)  # 0.0 would mean "unsupported" to the controller
    return [(c.answer, float(s)) for c, s in zip(cursors, scores, strict=True)]


def _choose(next_logits: NextLogits, prefix: torch.Tensor, asked: list[int],
            allowed: dict[int, list[int]], device: str | torch.device
            ) -> dict[int, tuple[int, float]]:
    """Greedy (token, log-probability) for the rows `asked`, softmax over allowed tokens."""
    index = torch.tensor(asked, device=device)
    logits = next_logits(prefix[index], index).float()  # (A, V)
    mask = torch.full_like(logits, float("-inf"))
    for i, row in enumerate(asked):
        mask[i, allowed[row]] = 0.0
    logp = torch.log_softmax(logits + mask, dim=-1)  # (A, V), -inf where not allowed
    best = logp.argmax(dim=-1)  # (A,)
    chosen = logp.gather(1, best[:, None])[:, 0].double().cpu()  # (A,)
    return {row: (int(best[i]), float(chosen[i])) for i, row in enumerate(asked)}
