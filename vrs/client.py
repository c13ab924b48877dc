"""`HttpReasoner`: the Reasoner protocol over HTTP, talking to `codeplan serve vrs`.

Why: the controller and the evaluations take any `Reasoner`; with this client the model can live
in another process or on another machine (one GPU server for many episodes) without any caller
changing. The image travels as a PNG in base64 JSON (lossless, so the server sees the exact
pixels). Transient failures (connection refused or reset, 5xx, 503 busy) are retried with
exponential backoff; a 4xx is the caller's mistake and is raised at once with the server's
message; a read timeout is not retried (the model may still be working on it).

    with HttpReasoner("http://127.0.0.1:8765") as reasoner:   # close() frees its sockets
        reasoner.ask(obs.front_rgb, ["is the red block in the blue bowl?"])
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import requests

from vrs.images import encode_png_base64
from vrs.reasoner import Answer

MAX_BACKOFF_S = 10.0


class ServiceError(RuntimeError):
    """The reasoning service could not answer; the message names the URL and the reason."""


class ServiceRejected(ServiceError):
    """The service refused the request (4xx): bad input, not worth retrying."""

    def __init__(self, message: str, status: int, detail: str) -> None:
        super().__init__(message)
        self.status = status
        self.detail = detail


class ServiceTimeout(ServiceError):
    """No answer within the client's timeout."""


class HttpReasoner:
    """Reasoner protocol backed by a `vrs.service` server at `url` (see the module docstring).

    `ask_many` sends up to `parallel` requests at once, so the server can batch them. Each
    thread keeps one keep-alive session; `close()` (or leaving a `with` block) closes them all
    and the `ask_many` thread pool. A closed reasoner still works: it opens new ones.
    """

    def __init__(self, url: str, timeout_s: float = 30.0, retries: int = 3,
                 backoff_s: float = 0.25, parallel: int = 8) -> None:
        url = url.rstrip("/")
        for suffix in ("/v1/vqa", "/healthz"):
            url = url.removesuffix(suffix)
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"reasoning service URL must start with http:// or https://, "
                             f"got {url!r}")
        if retries < 0 or timeout_s <= 0 or backoff_s < 0 or parallel < 1:
            raise ValueError("need timeout_s > 0, retries >= 0, backoff_s >= 0, parallel >= 1")
        self.url = url
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.parallel = parallel
        self._model: str | None = None
        self._local = threading.local()
        self._lock = threading.Lock()  # guards the two below
        self._sessions: list[requests.Session] = []
        self._pool: ThreadPoolExecutor | None = None

    @property
    def name(self) -> str:
        """'http:' + the served model's name (asked of /healthz once, or taken from an answer)."""
        if self._model is None:
            self._model = str(self._request("GET", "/healthz").get("model", "unknown"))
        return f"http:{self._model}"

    def ask(self, image: np.ndarray, questions: list[str]) -> list[Answer]:
        """One Answer per question, in order, from the server's model."""
        if isinstance(questions, str):
            raise TypeError("ask() takes a list of questions, got a single string")
        questions = list(questions)
        if not questions:
            return []
        body = {"image": encode_png_base64(image), "questions": questions}
        reply = self._request("POST", "/v1/vqa", json=body)
        answers = _answers(f"{self.url}/v1/vqa", reply, len(questions))
        self._model = str(reply.get("model", self._model))
        return answers

    def ask_many(self, items: list[tuple[np.ndarray, list[str]]]) -> list[list[Answer]]:
        """Answers for several images, up to `parallel` requests in flight."""
        if len(items) <= 1:
            return [self.ask(image, qs) for image, qs in items]
        return list(self._executor().map(lambda item: self.ask(*item), items))

    def close(self) -> None:
        """Close every thread's session and shut the thread pool down. Why: their sockets and
        threads would otherwise live as long as the process, one set per reasoner made."""
        with self._lock:
            sessions, self._sessions = self._sessions, []
            pool, self._pool = self._pool, None
            self._local = threading.local()  # threads open new sessions if used again
        if pool is not None:
            pool.shutdown(wait=True)
        for session in sessions:
            session.close()

    def __enter__(self) -> HttpReasoner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _executor(self) -> ThreadPoolExecutor:
        """The `ask_many` pool, made on first use and kept until close(). Why one: a pool per
        call started and joined `parallel` threads (each with a new session) every time."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.parallel, thread_name_prefix="vrs-client")
            return self._pool

    def _session(self) -> requests.Session:
        """One keep-alive session per thread (a Session is not safe to share across threads),
        remembered so that close() can close it."""
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
            with self._lock:
                self._sessions.append(session)
        return session

    def _request(self, method: str, path: str, **kwargs: object) -> dict:
        """The JSON reply, retrying transient failures; raises a ServiceError subclass."""
        url = self.url + path
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                response = self._session().request(method, url, timeout=self.timeout_s, **kwargs)
            except requests.exceptions.ReadTimeout:
                raise ServiceTimeout(f"{url} did not answer within {self.timeout_s:g} s") \
                    from None
            except requests.exceptions.ConnectionError as e:
                if last:
                    raise ServiceError(f"cannot reach {url} after {attempt + 1} attempts: "
                                       f"{_short(e)}") from None
                self._sleep(attempt, None)
                continue
            except requests.exceptions.RequestException as e:
                raise ServiceError(f"request to {url} failed: {_short(e)}") from None
            if response.status_code >= 500 and not last:
                self._sleep(attempt, response.headers.get("Retry-After"))
                continue
            return _reply(url, response, attempt + 1)
        raise AssertionError("unreachable")

    def _sleep(self, attempt: int, retry_after: str | None) -> None:
        delay = self.backoff_s * 2**attempt
        try:
            delay = max(delay, float(retry_after)) if retry_after else delay
        except ValueError:
            pass
        time.sleep(min(delay, MAX_BACKOFF_S))


def _reply(url: str, response: requests.Response, attempts: int) -> dict:
    """The JSON body of a 2xx response; ServiceRejected (4xx) or ServiceError otherwise."""
    detail = _detail(response)
    status = response.status_code
    if 400 <= status < 500:
        raise ServiceRejected(f"{url} rejected the request ({status}): {detail}", status, detail)
    if status >= 300:
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        raise ServiceError(f"{url} failed ({status}){tries}: {detail}")
    try:
        data = response.json()
    except ValueError:
        raise ServiceError(f"{url} returned a non-JSON reply: {response.text[:200]!r}") \
            from None
    if not isinstance(data, dict):
        raise ServiceError(f"{url} returned {type(data).__name__}, expected a JSON object")
    return data


def _answers(url: str, reply: dict, expected: int) -> list[Answer]:
    """The reply's answers, checked: one {"answer": str, "score": number} per question.
    Why check: a proxy or a wrong server answering 200 with other JSON must be a ServiceError
    naming the URL, not a KeyError deep in the controller."""
    answers = reply.get("answers")
    if not isinstance(answers, list) or len(answers) != expected:
        got = f"{len(answers)} answers" if isinstance(answers, list) else "no answer list"
        raise ServiceError(f"{url} returned {got} for {expected} questions")
    out = []
    for i, a in enumerate(answers):
        score = a.get("score") if isinstance(a, dict) else None
        if (not isinstance(a, dict) or not isinstance(a.get("answer"), str)
                or isinstance(score, bool) or not isinstance(score, (int, float))):
            raise ServiceError(f"{url} returned a malformed answer {i}: {str(a)[:100]!r} "
                               f"(expected {{'answer': str, 'score': number}})")
        out.append(Answer(a["answer"], float(score)))
    return out


def _detail(response: requests.Response) -> str:
    try:
        detail = response.json().get("detail")
    except (ValueError, AttributeError):
        detail = None
    return str(detail) if detail else (response.text[:200] or response.reason or "no message")


def _short(error: Exception) -> str:
    text = str(error)
    return text if len(text) <= 200 else text[:200] + "..."
