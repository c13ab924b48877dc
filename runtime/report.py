"""The HTML report of a run: codeplans, a timeline, every question and answer, frames, a GIF.

Built from the trace alone, so any trace (including one from a crashed run, or one copied
from another machine) can be turned into a report: `write_report(run_dir)`.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from runtime.trace import read_trace

_CSS = """body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1100px}
pre{background:#f5f5f5;padding:.8em;overflow:auto}table{border-collapse:collapse}
td,th{border:1px solid #ddd;padding:3px 6px;vertical-align:top}.ok{color:#080}.bad{color:#b00}
.frames img{width:240px;margin:2px}.meta td:first-child{font-weight:bold}"""


def write_report(run_dir: Path) -> Path:
    """Write `report.html` (and `episode.gif` from the frames) into `run_dir`."""
    run_dir = Path(run_dir)
    header, events = read_trace(run_dir)
    gif = _write_gif(run_dir, [e for e in events if e["type"] == "frame"])
    body = [_summary(header, events, gif), _plans(events), _llm(events), _timeline(events),
            _frames(events)]
    page = (f"<!doctype html><meta charset=utf-8><title>codeplan run</title>"
            f"<style>{_CSS}</style>" + "".join(body))
    out = run_dir / "report.html"
    out.write_text(page, encoding="utf-8", errors="backslashreplace")
    return out


# Lone surrogates and control characters (not tab, newline): shown as escapes. Why: a
# codeplan's strings reach the page, and a surrogate cannot be written as UTF-8 at all.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def _esc(value: object) -> str:
    text = _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", str(value))
    return html.escape(text)


def _summary(header: dict, events: list[dict], gif: str | None) -> str:
    end = next((e for e in events if e["type"] == "episode_end"), None)
    crash = next((e for e in events if e["type"] == "crash"), None)
    if end:
        verdict = ("<b class=ok>success</b>" if end["success"] else
                   f"<b class=bad>failure</b>: {_esc(end['failure_reason'])}")
    else:
        verdict = f"<b class=bad>crashed</b>: {_esc(crash['error']) if crash else 'no end'}"
    rows = [("instruction", header.get("instruction")), ("task", header.get("task")),
            ("seed", header.get("seed")), ("mode", header.get("mode")),
            ("planner", header.get("planner")), ("reasoner", header.get("reasoner")),
            ("actor", header.get("actor")), ("situations", header.get("situations"))]
    if end:
        rows += [(k, v) for k, v in end["counts"].items()] + [("wall s", end["wall_s"])]
    table = "".join(f"<tr><td>{_esc(k)}<td>{_esc(v)}" for k, v in rows)
    img = f"<p><img src='{_esc(gif)}' alt='episode'></p>" if gif else ""
    return f"<h1>codeplan run</h1><p>{verdict}</p><table class=meta>{table}</table>{img}"


def _plans(events: list[dict]) -> str:
    parts = ["<h2>Codeplans</h2>"]
    for e in events:
        if e["type"] == "preconditions":  # ConceptAgent: the set every put is checked against
            rows = "".join(f"<li>{_esc(k)}: {_esc(', '.join(v) or 'none')}</li>"
                           for k, v in e["conditions"].items())
            parts.append(f"<p><b>preconditions</b> ({_esc(e['source'])})</p><ul>{rows}</ul>")
        elif e["type"] == "plan":
            parts.append(f"<h3>attempt {e['attempt']} ({_esc(e['planner'])})</h3>"
                         f"<pre>{_esc(e['source'])}</pre>")
            tree = (e.get("details") or {}).get("tree")
            if tree:
                parts.append(f"<details><summary>search tree: {_esc(e.get('notes', ''))}"
                             f"</summary><ul class=tree>{_tree(tree)}</ul></details>")
        elif e["type"] == "replan":
            parts.append(f"<p><b>feedback:</b> {_esc(e['feedback'])}</p>")
    return "".join(parts)


def _tree(node: dict) -> str:
    """An MCTS node and its children as nested list items: step, visits, mean, critic."""
    score = "" if node.get("score") is None else f", critic {node['score']:g}"
    kids = "".join(_tree(c) for c in node.get("children", []))
    return (f"<li>{_esc(node['step'])} (visits {node['visits']}, mean {node['mean']:g}"
            f"{_esc(score)})" + (f"<ul>{kids}</ul>" if kids else "") + "</li>")


def _llm(events: list[dict]) -> str:
    """Every LLM call: model, tokens, seconds, parameters, the messages sent and the raw
    reply (or the error), so a person sees exactly what the model was asked and said."""
    calls = [e for e in events if e["type"] == "llm_exchange"]
    if not calls:
        return ""
    total = (f"{len(calls)} call(s), {sum(e.get('prompt_tokens') or 0 for e in calls)} prompt "
             f"+ {sum(e.get('completion_tokens') or 0 for e in calls)} completion tokens, "
             f"{sum(e.get('latency_s') or 0 for e in calls):.1f} s")
    parts = [f"<h2>LLM calls</h2><p>{_esc(total)}</p>"]
    for e in calls:
        head = (f"attempt {e.get('attempt')}: {e.get('reply_model') or e.get('model')}, "
                f"{e.get('prompt_tokens')} + {e.get('completion_tokens')} tokens, "
                f"{e.get('latency_s')} s, {e.get('params')}")
        messages = "\n\n".join(f"[{m.get('role')}]\n{m.get('content')}"
                                for m in e.get("messages") or [])
        reply = e.get("reply") if e.get("reply") is not None else f"(error) {e.get('error')}"
        err = f"<p class=bad>{_esc(e['error'])}</p>" if e.get("error") else ""
        if e.get("rejected"):
            err += f"<p class=bad>dry run, asked again: {_esc(e['rejected'])}</p>"
        parts.append(f"<h3>{_esc(head)}</h3>{err}<details><summary>messages sent</summary>"
                     f"<pre>{_esc(messages)}</pre></details><pre>{_esc(reply)}</pre>")
    return "".join(parts)


def _timeline(events: list[dict]) -> str:
    rows = []
    for e in events:
        text = _describe(e)
        if text:
            rows.append(f"<tr><td>{e['t']:.2f}<td>{_esc(e['type'])}<td>{text}")
    return ("<h2>Timeline</h2><table><tr><th>t (s)<th>event<th>details"
            + "".join(rows) + "</table>")


def _describe(e: dict) -> str | None:
    kind = e["type"]
    if kind == "call":
        args = ", ".join(repr(a) for a in e["args"])
        out = e.get("result", e.get("error", e.get("stop")))
        return _esc(f"{e['function']}({args}) -> {out!r}")
    if kind == "action":
        result = e.get("result") or {}
        mark = "ok" if result.get("ok") else "bad"
        detail = e.get("error") or result.get("reason") or ""
        extra = f" [situations: {', '.join(result['situations'])}]" if result.get(
            "situations") else ""
        extra += f" [halted after {result['halted']}]" if result.get("halted") else ""
        extra += f" [{e['after_halt']} after the halt]" if e.get("after_halt") else ""
        return f"<span class={mark}>{_esc(e['instruction'])}</span> {_esc(detail)}{_esc(extra)}"
    if kind == "questions":
        return "<br>".join(f"{_esc(q)} &rarr; <b>{_esc(a)}</b> ({s})" for q, a, s in e["qa"])
    if kind == "symbolic_check":  # DKPROMPT's modes: each predicate, its answer, the belief
        rows = [f"{_esc(pred)}: {_esc(q or 'robot state')} &rarr; <b>{_esc(a or '')}</b> "
                f"({s}) <b>{_esc(verdict)}</b>" for pred, q, a, s, verdict in e["verdicts"]]
        rows += [_esc(f"belief: {c['block']} {c['from']} -> {c['to']} ({c['cause']})")
                 for c in e.get("belief_changes", [])]
        return f"{_esc(e['check'])} of {_esc(e['action'])}<br>" + "<br>".join(rows)
    if kind == "precondition_check":  # ConceptAgent's gate: each predicate and its answer
        rows = [f"{_esc(pred)}: {_esc(q or 'robot state')} &rarr; <b>{_esc(a or '')}</b> "
                f"({s}) <b>{_esc(verdict)}</b>" for pred, q, a, s, verdict in e["verdicts"]]
        head = f"{_esc(e['call'])}: " + ("<b class=bad>not run</b>" if e["blocked"] else "ok")
        return head + "<br>" + "<br>".join(rows)
    if kind == "halt":  # monitor mode: where the motion stopped, why, and what came next
        return _esc(f"'{e['claim']}' halted after {e['segment']} at {e['sim_s']} s simulated: "
                    f"{e['reason']} -> {e['recovery']}")
    if kind == "tool_switch":
        tools = " + ".join(e.get("tools") or []) or "none needed"
        return _esc(f"'{e['claim']}': grounded {tools} ({e.get('reason', '')})")
    if kind in ("retry", "replan", "step", "tell_planner", "sandbox_end", "crash", "print"):
        return _esc({k: v for k, v in e.items() if k not in ("seq", "t", "type", "traceback")})
    return None


def _frames(events: list[dict]) -> str:
    imgs = "".join(f"<img src='{_esc(e['path'])}' title='{_esc(e['label'])}'>"
                   for e in events if e["type"] == "frame")
    return f"<h2>Frames</h2><div class=frames>{imgs}</div>"


def _write_gif(run_dir: Path, frames: list[dict]) -> str | None:
    if not frames:
        return None
    from PIL import Image

    images = [Image.open(run_dir / f["path"]).convert("P", palette=Image.Palette.ADAPTIVE)
              for f in frames]
    images[0].save(run_dir / "episode.gif", save_all=True, append_images=images[1:],
                   duration=700, loop=0)
    return "episode.gif"
