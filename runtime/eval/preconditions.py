"""`codeplan eval preconditions`: how well an LLM's preconditions match the reference set
(ConceptAgent reports this; issue 24).

One generation at temperature 0 (the one `--preconditions llm` uses and caches), then
`samples` more at temperature 0.7 with seeds 1..samples, each scored against the reference
(`runtime.planners.preconditions.match`). Precision and recall are pooled over the
generations (correct / generated, correct / reference) with Wilson 95% intervals.
"""

from __future__ import annotations

from common.stats import wilson_interval
from runtime.planners import preconditions as pc

ACTION_SETS = ("primitives", "dev")


def eval_preconditions(llm, samples: int = 10, use_grammar: bool = True,
                       form: str = pc.DEFAULT_FORM, actions: str = "primitives") -> dict:
    """Every generation's conditions and score, and the pooled precision / recall, for the
    control primitives (the reported figure) or the dev actions (where a form is chosen)."""
    if actions not in ACTION_SETS:
        raise ValueError(f"no action set {actions!r} (sets: {', '.join(ACTION_SETS)})")
    if actions == "dev":
        from runtime.eval import precondition_dev as dev

        asked, reference = dev.actions(), dev.reference_set()
    else:
        asked, reference = None, pc.reference_set()
    rows = []
    for seed in [None, *range(1, samples + 1)]:
        got, exchanges = pc.generate(llm, use_grammar=use_grammar,
                                     temperature=0.0 if seed is None else 0.7, seed=seed,
                                     form=form, actions=asked)
        m = pc.match(got, reference)
        rows.append({"seed": seed, "conditions": got.to_dict()["conditions"],
                     "dropped": got.dropped, "replies": got.replies,
                     "generated": m.generated, "correct": m.correct,
                     "reference": m.reference,
                     "llm_s": round(sum(float(x.get("latency_s") or 0) for x in exchanges), 2)})
    g, c, r = (sum(x[k] for x in rows) for k in ("generated", "correct", "reference"))
    return {"model": llm.model, "grammar": use_grammar, "form": form, "actions": actions,
            "generations": rows, "reference": reference.to_dict()["conditions"],
            "precision": _rate(c, g), "recall": _rate(c, r),
            "greedy": {"precision": _rate(rows[0]["correct"], rows[0]["generated"]),
                       "recall": _rate(rows[0]["correct"], rows[0]["reference"])}}


def _rate(k: int, n: int) -> dict:
    lo, hi = wilson_interval(k, n) if n else (0.0, 1.0)
    return {"k": k, "n": n, "rate": k / n if n else None, "ci95": [round(lo, 4), round(hi, 4)]}


def format_report(result: dict) -> str:
    def pct(x: dict) -> str:
        if x["rate"] is None:
            return "n/a (nothing generated)"
        return (f"{x['k']}/{x['n']} = {100 * x['rate']:.0f}% "
                f"[{100 * x['ci95'][0]:.0f}-{100 * x['ci95'][1]:.0f}]")

    lines = [f"preconditions of {result['model']} ({result['form']} form, grammar "
             f"{'on' if result['grammar'] else 'off'}, {result['actions']}) against the "
             f"reference {result['reference']}:"]
    for row in result["generations"]:
        label = "greedy" if row["seed"] is None else f"seed {row['seed']}"
        lines.append(f"  {label:8} {row['correct']}/{row['reference']} correct of "
                     f"{row['generated']}: {row['conditions']}")
    lines += [f"precision {pct(result['precision'])}", f"recall    {pct(result['recall'])}",
              f"greedy (the cached set): precision {pct(result['greedy']['precision'])}, "
              f"recall {pct(result['greedy']['recall'])}"]
    return "\n".join(lines)
