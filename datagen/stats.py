"""Answer statistics of generated questions, for the manifest and the balance tests.

Why these numbers: they are the checks a reader of the manifest needs to trust the balance —
yes share per template, how often a count is 0, how often an object question is answered
"nothing" / "table", how often an answer repeats the anchor's color, the share of same-color
and darker-shade questions, and the accuracy of a *question-only* baseline (the majority answer
of each template + relation), which a VQA model must beat to be reading the image.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict

HISTOGRAM_TOP = 40  # answers listed per histogram
OVERLAP = 0.25  # share of an object's pixel box another box must cover to count as overlapped


def question_stats(rows: list[dict]) -> dict:
    """Statistics of question rows (dicts with the ROW_FEATURES columns but `image`)."""
    n = len(rows)
    by_template: dict[str, list[dict]] = defaultdict(list)
    by_type: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_template[r["template"]].append(r)
        by_type[r["answer_type"]].append(r)
    return {
        "questions": n,
        "templates": {t: _summary(rs) for t, rs in sorted(by_template.items())},
        "answer_types": {t: _summary(rs) for t, rs in sorted(by_type.items())},
        "count_zero_share": _share(by_type["count"], lambda r: r["answer"] == "0"),
        "object_nothing_or_table_share": _share(
            by_type["object"], lambda r: r["answer"] in ("nothing", "table")),
        "color_nothing_share": _share(by_type["color"], lambda r: r["answer"] == "nothing"),
        "same_color": _flag(rows, "same_color"),
        "same_color_block_in_bowl": _share(rows, _same_color_in),
        "dark": _flag(rows, "dark"),
        "relations": dict(sorted(Counter(_rel(r) for r in rows if _rel(r)).items())),
        "question_only_baseline": question_only_baseline(rows),
    }


def question_only_baseline(rows: list[dict]) -> float:
    """Accuracy of answering each (template, relation) group with its most common answer."""
    groups: dict[tuple, Counter] = defaultdict(Counter)
    for r in rows:
        groups[(r["template"], _rel(r))][r["answer"]] += 1
    hits = sum(c.most_common(1)[0][1] for c in groups.values())
    return round(hits / len(rows), 4) if rows else 0.0


def image_stats(scenes: list[dict]) -> dict:
    """Per-image facts from scenes.json entries: tasks, situations, objects, colors."""
    objects = [o for s in scenes for o in s["objects"]]
    return {
        "images": len(scenes),
        "tasks": dict(sorted(Counter(s["state"]["task"] for s in scenes).items())),
        "situations_preset": dict(Counter(s["state"]["situations"] for s in scenes)),
        "situations_fired": dict(sorted(Counter(
            k for s in scenes for k in s["state"]["situations_fired"]).items())),
        "objects_per_image": round(len(objects) / max(len(scenes), 1), 3),
        "hidden_objects": sum(not o["visible"] for o in objects),
        "overlapped_objects_share": round(sum(_overlapped(s) for s in scenes)
                                          / max(len(objects), 1), 4),
        "colors": {k: dict(sorted(Counter(o["color"] for o in objects if o["type"] == k)
                                  .items())) for k in ("block", "bowl")},
        "dark_blocks": sum(o["shade"] == "dark" for o in objects),
        "images_without_questions": sum(s["questions"] == 0 for s in scenes),
        "questions_per_image": round(sum(s["questions"] for s in scenes)
                                     / max(len(scenes), 1), 3),
    }


def _overlapped(scene: dict) -> int:
    """Objects whose front-camera box is at least OVERLAP covered by the box of an object they
    do not rest in or on (nor that rests on them): clutter and occlusion, not stacking."""
    objects = scene["objects"]
    touching = {(a, b) for a, rel, b in scene["relations"] if rel in ("in", "on")}
    count = 0
    for o in objects:
        u0, v0, u1, v1 = o["pixel_box"]
        area = max((u1 - u0) * (v1 - v0), 1)
        for p in objects:
            a0, b0, a1, b1 = p["pixel_box"]
            inter = max(0, min(u1, a1) - max(u0, a0)) * max(0, min(v1, b1) - max(v0, b0))
            pair = {(o["name"], p["name"]), (p["name"], o["name"])}
            if p is not o and not pair & touching and inter / area >= OVERLAP:
                count += 1
                break
    return count


def _summary(rows: list[dict]) -> dict:
    answers = Counter(r["answer"] for r in rows)
    top = answers.most_common(1)[0][1] if answers else 0
    out = {"questions": len(rows), "distinct_answers": len(answers),
           "majority_share": round(top / len(rows), 4) if rows else 0.0,
           "answers": dict(answers.most_common(HISTOGRAM_TOP))}
    if any(r["answer_type"] == "yes/no" for r in rows):
        out["yes_share"] = _share(rows, lambda r: r["answer"] == "yes")
    return out


def _flag(rows: list[dict], key: str) -> dict:
    flagged = [r for r in rows if r[key]]
    yes_no = [r for r in flagged if r["answer_type"] == "yes/no"]
    return {"questions": len(flagged), "share": _share(rows, lambda r: r[key]),
            "yes_share_of_yes_no": _share(yes_no, lambda r: r["answer"] == "yes")}


def _same_color_in(row: dict) -> bool:
    return row["same_color"] and row["template"] == "relation_yes_no" and _rel(row) == "in"


def _rel(row: dict) -> str | None:
    return json.loads(row["program"])["params"].get("rel")


def _share(rows: list[dict], pred) -> float:
    return round(sum(1 for r in rows if pred(r)) / len(rows), 4) if rows else 0.0
