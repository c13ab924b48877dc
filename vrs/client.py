"""`HttpReasoner`: the Reasoner protocol over HTTP, talking to `codeplan serve vrs`.

Why: the controller and the evaluations take any `Reasoner`; with this client the model can live
in another process or on another machine (one GPU server for many episodes) without any caller
changing. The image travels as a PNG in base64 JSON (lossless, so the server sees the exact
pixels). Transient failures (connection refused or reset, 5xx, 503 busy) are retried with
exponential backoff; a 4xx is the caller's mistake and is raised at once with the server's
message; a read timeout is not retried (the model may still be working on it).

    reasoner = HttpReasoner("http://127.0.0.1:8765")
    reasoner.ask(obs.front_rgb, ["is the red block in the blue bowl?"])
"""

from __future__ import annotations

import base64
import io
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import requests

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

    `ask_many` sends up to `parallel` requests at once, so the server can batch them.
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
        answers = reply.get("answers")
        if not isinstance(answers, list) or len(answers) != len(questions):
            raise ServiceError(f"{self.url}/v1/vqa returned {len(answers or [])} answers for "
                               f"{len(questions)} questions")
        self._model = str(reply.get("model", self._model))
        return [Answer(str(a["answer"]), float(a["score"])) for a in answers]

    def ask_many(self, items: list[tuple[np.ndarray, list[str]]]) -> list[list[Answer]]:
        """Answers for several images, up to `parallel` requests in flight."""
        if len(items) <= 1:
            return [self.ask(image, qs) for image, qs in items]
        with ThreadPoolExecutor(min(self.parallel, len(items))) as pool:
            return list(pool.map(lambda item: self.ask(*item), items))

    def _session(self) -> requests.Session:
        """One keep-alive session per thread (a Session is not safe to share across threads)."""
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
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


def _detail(response: requests.Response) -> str:
    try:
        detail = response.json().get("detail")
    except (ValueError, AttributeError):
        detail = None
    return str(detail) if detail else (response.text[:200] or response.reason or "no message")


def _short(error: Exception) -> str:
    text = str(error)
    return text if len(text) <= 200 else text[:200] + "..."


def encode_png_base64(image: np.ndarray) -> str:
    """Base64 text of `image` as a PNG: (H, W, 3) or (H, W, 4) or (H, W) uint8."""
    from PIL import Image

    arr = np.asarray(image)
    if arr.dtype != np.uint8 or not (arr.ndim == 2 or (arr.ndim == 3 and arr.shape[2] in (3, 4))):
        raise ValueError(f"image must be (H, W, 3) uint8, got {arr.shape} {arr.dtype}")
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(arr)).save(buffer, format="PNG", compress_level=1)
    return base64.b64encode(buffer.getvalue()).decode("ascii")
