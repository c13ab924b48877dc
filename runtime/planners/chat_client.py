"""A small, strict client for OpenAI-compatible `POST /chat/completions`, on the standard library.

Why not the `openai` package: its timeout is per socket read, so a server that drips a byte
every few seconds keeps a run alive for minutes, and it parses replies into objects that let a
number or a list through as `content` (the planner then crashed with a traceback). Here one
deadline covers the whole call, retries included (a watchdog closes the socket when it passes),
429 and 5xx answers are retried with bounded backoff, and every reply is checked field by field:
anything malformed is a one-line PlannerError that names the server and what was wrong.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import math
import socket
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlparse

from runtime.planners.base import PlannerError

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_READ_CHUNK = 65536
_MAX_BODY = 8 << 20  # a chat completion is a few KB; a bigger body is not one


@dataclass
class ChatReply:
    """One checked completion: the text, why it stopped, the model and the token counts."""

    content: str
    finish_reason: str | None
    model: str | None
    prompt_tokens: int
    completion_tokens: int
    status: int
    tries: int


class ChatError(PlannerError):
    """A call that gave no usable reply; `status` is the last HTTP status (None: no answer)."""

    def __init__(self, message: str, status: int | None = None, tries: int = 1) -> None:
        super().__init__(message)
        self.status, self.tries = status, tries


def post_chat(base_url: str, body: dict, api_key: str, timeout_s: float,
              max_retries: int = 2, backoff_s: float = 0.5) -> ChatReply:
    """POST `body` to `<base_url>/chat/completions` and return the checked reply.

    Why one deadline: `timeout_s` bounds the whole call (connect, every read, every retry and
    backoff sleep), so no server behaviour can hold a run past it.
    """
    deadline = time.monotonic() + timeout_s
    status: int | None = None
    for attempt in range(max_retries + 1):
        status, raw, retry_after = _post_once(base_url, body, api_key, deadline, timeout_s)
        if status not in RETRY_STATUSES or attempt == max_retries:
            break
        wait = min(retry_after if retry_after is not None else backoff_s * 2 ** attempt, 10.0)
        if time.monotonic() + wait >= deadline:
            break
        time.sleep(wait)
    tries = attempt + 1
    if status != 200:
        raise ChatError(f"{base_url} answered HTTP {status}: {_error_message(raw)}"
                        + (f" (after {tries} tries)" if tries > 1 else ""), status, tries)
    return parse_completion(raw, base_url, tries)


def _post_once(base_url: str, body: dict, api_key: str, deadline: float,
               timeout_s: float) -> tuple[int, bytes, float | None]:
    """One HTTP exchange: (status, body bytes, Retry-After seconds or None)."""
    url = urlparse(base_url)
    if url.scheme not in ("http", "https") or not url.hostname:
        raise ChatError(f"base URL {base_url!r} is not an http(s) URL")
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise ChatError(f"no answer from {base_url} within {timeout_s:g} s")
    cls = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
    conn = cls(url.hostname, url.port, timeout=remaining)
    watchdog = threading.Timer(remaining, _shut, args=(conn,))
    watchdog.daemon = True
    watchdog.start()
    try:
        return _exchange(conn, url.path.rstrip("/") + "/chat/completions", body, api_key,
                         deadline)
    except (OSError, http.client.HTTPException) as e:
        if time.monotonic() >= deadline - 0.01 or isinstance(e, TimeoutError):
            raise ChatError(f"no answer from {base_url} within {timeout_s:g} s") from None
        raise ChatError(f"cannot reach {base_url}: {_oneline(e)}") from None
    finally:
        watchdog.cancel()
        conn.close()


def _exchange(conn: http.client.HTTPConnection, path: str, body: dict, api_key: str,
              deadline: float) -> tuple[int, bytes, float | None]:
    data = json.dumps(body).encode()
    conn.request("POST", path, body=data, headers={
        "Content-Type": "application/json", "Accept": "application/json",
        "Authorization": f"Bearer {api_key}"})
    resp = conn.getresponse()
    chunks, size = [], 0
    while True:
        if time.monotonic() >= deadline:
            raise TimeoutError("deadline")
        chunk = resp.read1(_READ_CHUNK)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > _MAX_BODY:
            raise http.client.HTTPException(f"reply body over {_MAX_BODY} bytes")
    if time.monotonic() >= deadline:
        raise TimeoutError("deadline")
    return resp.status, b"".join(chunks), _retry_after(resp.getheader("Retry-After"))


def _shut(conn: http.client.HTTPConnection) -> None:
    """The watchdog: unblock any read in progress by shutting the socket down."""
    sock = conn.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _retry_after(value: str | None) -> float | None:
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and math.isfinite(seconds) and seconds >= 0 else None


def parse_completion(raw: bytes, server: str, tries: int = 1) -> ChatReply:
    """Check a 200 reply's body field by field; ChatError naming the first thing wrong."""
    def bad(what: str) -> ChatError:
        return ChatError(f"{server} sent a malformed reply: {what}", 200, tries)

    if not raw.strip():
        raise bad("empty body")
    try:
        doc = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise bad(f"not JSON: {_clip(raw.decode('utf-8', 'replace'), 80)!r}") from None
    if not isinstance(doc, dict):
        raise bad(f"the body is a JSON {type(doc).__name__}, not an object")
    choices = doc.get("choices")
    if not isinstance(choices, list) or not choices:
        raise bad("no choices" if not choices else f"'choices' is a {type(choices).__name__}")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise bad(f"choice 0 is a {type(choice).__name__} ({_clip(repr(choice), 60)}), "
                  f"not an object")
    message = choice.get("message")
    if not isinstance(message, dict):
        raise bad(f"choice 0 has no message object (got {type(message).__name__})")
    content = message.get("content")
    finish = choice.get("finish_reason")
    if content is None or content == "":
        raise bad(f"the reply has no text (finish_reason={finish!r})")
    if not isinstance(content, str):
        raise bad(f"message content is a {type(content).__name__}, not text")
    prompt, completion = _usage(doc.get("usage"))
    model = doc.get("model")
    return ChatReply(content, finish if isinstance(finish, str) else None,
                     model if isinstance(model, str) and model else None,
                     prompt, completion, 200, tries)


def _usage(usage: object) -> tuple[int, int]:
    """(prompt, completion) tokens; 0 for anything missing or not a non-negative integer (a
    server's garbage accounting must not cost the plan)."""
    if not isinstance(usage, dict):
        return 0, 0
    return _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    return int(value) if math.isfinite(value) and 0 <= value < 1e9 else 0


def _error_message(raw: bytes) -> str:
    """The server's own error text from an error body, else the body clipped."""
    try:
        doc = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return _clip(raw.decode("utf-8", "replace")) or "(empty body)"
    error = doc.get("error", doc) if isinstance(doc, dict) else doc
    if isinstance(error, dict) and error.get("message"):
        return _clip(str(error["message"]))
    return _clip(str(error))


def _oneline(e: BaseException) -> str:
    return _clip(str(e) or type(e).__name__)


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."
