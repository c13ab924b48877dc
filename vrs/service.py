"""The visual reasoning HTTP service: any `Reasoner` behind `POST /v1/vqa`.

Why a service: the learned reasoner is big and slow to load, and the controller, evaluation
runs and other people's tools all want to ask it questions. One server process holds the model,
and concurrent requests are micro-batched into one forward pass (`vrs.service_batching`).

    app = create_app(load_reasoner("detector"))      # then: uvicorn.run(app, port=8765)

    POST /v1/vqa   application/json     {"image": "<base64 PNG/JPEG>", "questions": ["..."]}
                   multipart/form-data  file field `image`; `questions` repeated, or one JSON list
          200 -> {"answers": [{"question", "answer", "score"}], "model", "latency_ms", "batch_size"}
    GET  /healthz  {"status": "ok", "model": ...}
    GET  /docs, /openapi.json

`BackgroundServer(app)` runs an app in a thread of the calling process (tests, notebooks,
evaluation scripts that want a service without a second process).

Transport-level input is checked here, the cheapest check first (content type, then the
declared and the actual body size, before anything is decoded); a bad request gets a 4xx with
`{"detail": "<what is wrong>"}`, never a 5xx. Whether a question makes sense is the reasoner's
business: it answers an unparseable question with a score-0 answer.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import numpy as np
from fastapi import FastAPI, HTTPException, Request
from pydantic import BaseModel, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import ClientDisconnect

from vrs import images
from vrs.images import IMAGE_FORMATS
from vrs.reasoner import Reasoner
from vrs.service_batching import MicroBatcher, QueueFull, ReasonerFailure, ServiceStopping

MAX_BODY_BYTES = 16 * 2**20
# A lone surrogate (JSON allows the escape "\ud800") cannot be encoded in a UTF-8 reply.
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_IMAGE_PIXELS = 4096 * 4096


class VqaRequest(BaseModel):
    """JSON body of POST /v1/vqa."""

    image: str = Field(description="the image, a base64-encoded PNG or JPEG file "
                                   "(a data: URL prefix is accepted)")
    questions: list[str] = Field(description="questions about the image, answered in order",
                                 examples=[["what color is the block in the red bowl?"]])


class AnswerOut(BaseModel):
    """One answer; score 0 means the reasoner could not understand the question."""

    question: str
    answer: str
    score: float = Field(description="confidence in 0-1")


class VqaResponse(BaseModel):
    """Answers in the order the questions were asked."""

    answers: list[AnswerOut]
    model: str = Field(description="the reasoner's name")
    latency_ms: float = Field(description="time in the server, from request to answers")
    batch_size: int = Field(description="images that shared the model's forward pass")


class HealthResponse(BaseModel):
    """Liveness and which model is served."""

    status: str
    model: str


class ErrorResponse(BaseModel):
    """Every 4xx/5xx: one sentence naming the problem."""

    detail: str


@dataclass(frozen=True)
class Limits:
    """Transport-level limits on one request."""

    max_body_bytes: int = MAX_BODY_BYTES
    max_questions: int = 64
    max_question_chars: int = 500
    max_image_pixels: int = MAX_IMAGE_PIXELS


def create_app(reasoner: Reasoner, *, max_batch_images: int = 16, max_wait_ms: float = 5,
               max_body_bytes: int = MAX_BODY_BYTES, max_questions: int = 64,
               max_question_chars: int = 500, max_image_pixels: int = MAX_IMAGE_PIXELS,
               max_queue: int = 1024) -> FastAPI:
    """The FastAPI app serving `reasoner` (see the module docstring)."""
    limits = Limits(max_body_bytes, max_questions, max_question_chars, max_image_pixels)
    batcher = MicroBatcher(reasoner, max_batch_images, max_wait_ms, max_queue)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        batcher.start()
        yield
        batcher.stop()

    app = FastAPI(title="codeplan visual reasoning service", version="1",
                  description=__doc__.split("\n\n")[1], lifespan=lifespan)
    app.state.batcher = batcher
    app.state.limits = limits
    _add_routes(app, reasoner, batcher, limits)
    return app


# `codeplan serve vrs --workers N`: each uvicorn worker process builds its app from these (a
# factory by import string is how uvicorn starts several workers; the model cannot be passed).
ENV_PREFIX = "CODEPLAN_VRS_"


def app_from_env() -> FastAPI:
    """The app of one worker of a multi-process service: the reasoner named by
    $CODEPLAN_VRS_MODEL on $CODEPLAN_VRS_DEVICE, batching by $CODEPLAN_VRS_MAX_BATCH and
    $CODEPLAN_VRS_MAX_WAIT_MS, with $CODEPLAN_VRS_THREADS torch threads (the worker's share
    of the cores: without it every worker would start one thread per core)."""
    import os

    import torch

    from vrs.loading import load_reasoner

    env = {k.removeprefix(ENV_PREFIX).lower(): v for k, v in os.environ.items()
           if k.startswith(ENV_PREFIX)}
    if env.get("threads"):
        torch.set_num_threads(int(env["threads"]))
    reasoner = load_reasoner(env.get("model", "default"), env.get("device", "cpu"))
    return create_app(reasoner, max_batch_images=int(env.get("max_batch", 16)),
                      max_wait_ms=float(env.get("max_wait_ms", 5)))


_ERRORS = {code: {"model": ErrorResponse, "description": text} for code, text in (
    (400, "the body cannot be read: bad JSON, multipart, base64 or image bytes"),
    (413, "the body or the image is larger than the service accepts"),
    (415, "the content type is neither application/json nor multipart/form-data"),
    (422, "the questions are missing, empty, too long or too many"),
    (500, "the reasoner failed on valid input"),
    (503, "too many requests are waiting, or the service is shutting down; retry later"))}

_MULTIPART_SCHEMA = {
    "type": "object", "required": ["image", "questions"],
    "properties": {"image": {"type": "string", "format": "binary",
                             "description": "a PNG or JPEG file"},
                   "questions": {"type": "array", "items": {"type": "string"},
                                 "description": "repeated fields, or one field holding a "
                                                "JSON list of strings"}}}


def _add_routes(app: FastAPI, reasoner: Reasoner, batcher: MicroBatcher, limits: Limits) -> None:
    body_doc = {"requestBody": {"required": True, "content": {
        "application/json": {"schema": VqaRequest.model_json_schema()},
        "multipart/form-data": {"schema": _MULTIPART_SCHEMA}}}}

    @app.get("/healthz", response_model=HealthResponse, summary="liveness and model name")
    async def healthz() -> HealthResponse:
        return HealthResponse(status="ok", model=reasoner.name)

    @app.post("/v1/vqa", response_model=VqaResponse, responses=_ERRORS, openapi_extra=body_doc,
              summary="answer questions about one image")
    async def vqa(request: Request) -> VqaResponse:
        started = time.perf_counter()
        with batcher.arriving():
            data, questions = await read_vqa_request(request, limits)
            check_questions(questions, limits)
            image = await run_in_threadpool(decode_image, data, limits.max_image_pixels)
            try:
                future = batcher.enqueue(image, questions)
            except QueueFull as e:
                raise HTTPException(503, f"service busy: {e}; retry later",
                                    headers={"Retry-After": "1"}) from None
            except ServiceStopping as e:
                raise _stopping_error(e) from None
        try:
            result = await future
        except ServiceStopping as e:
            raise _stopping_error(e) from None
        except ReasonerFailure as e:
            raise HTTPException(500, str(e)) from None
        answers = [AnswerOut(question=q, answer=_utf8(str(a.text)), score=float(a.score))
                   for q, a in zip(questions, result.answers, strict=True)]
        return VqaResponse(answers=answers, model=reasoner.name, batch_size=result.batch_size,
                           latency_ms=(time.perf_counter() - started) * 1000)


def _utf8(text: str) -> str:
    """`text` with any lone surrogate written as an escape, so the reply can be encoded."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _stopping_error(error: ServiceStopping) -> HTTPException:
    """503: a request that arrives, or is still queued, while the server shuts down is not the
    caller's fault and may succeed on a restarted server, so the client retries it."""
    return HTTPException(503, f"{error}; retry later", headers={"Retry-After": "1"})


async def read_vqa_request(request: Request, limits: Limits) -> tuple[bytes, list]:
    """(image file bytes, questions as sent) from a JSON or multipart body."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media not in ("application/json", "multipart/form-data"):
        problem = f"unsupported content type {media!r}" if media else "no content type"
        raise HTTPException(415, f"{problem}: send application/json or multipart/form-data")
    body = await read_body(request, limits.max_body_bytes)
    if not body:
        raise HTTPException(400, "empty request body")
    if media == "application/json":
        return _from_json(body)
    return await _from_multipart(request, body, limits)


async def read_body(request: Request, max_bytes: int) -> bytes:
    """The whole body, or 413 as soon as it is known to exceed `max_bytes` (from the
    Content-Length header before reading anything, else while streaming)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            size = int(declared)
        except ValueError:
            raise HTTPException(400, f"bad Content-Length header {declared!r}") from None
        if size > max_bytes:
            raise HTTPException(413, f"payload of {size} bytes is over the limit of "
                                     f"{max_bytes} bytes")
    chunks, total = [], 0
    try:
        async for chunk in request.stream():
            total += len(chunk)
            if total > max_bytes:
                raise HTTPException(413, f"payload is over the limit of {max_bytes} bytes")
            chunks.append(chunk)
    except ClientDisconnect:
        raise HTTPException(400, "the client hung up before sending the whole body") from None
    return b"".join(chunks)


def _from_json(body: bytes) -> tuple[bytes, list]:
    raw = _json_or_error(body, 400, "body is not valid JSON")
    if not isinstance(raw, dict):
        raise HTTPException(422, 'body must be a JSON object {"image": ..., "questions": [...]}')
    if "questions" not in raw or raw["questions"] in ([], None):
        raise HTTPException(422, "no questions: send a non-empty list in 'questions'")
    try:
        req = VqaRequest.model_validate(raw)
    except ValidationError as e:
        raise HTTPException(422, _pydantic_message(e)) from None
    return decode_base64(req.image), req.questions


def _json_or_error(text: str | bytes, status: int, problem: str) -> object:
    """Parsed JSON, or `status` naming the problem. Why more than JSONDecodeError: bytes
    that are not UTF-8, an integer of 5,000 digits (ValueError) and nesting deeper than
    the parser's recursion limit all raise something else, which became a 500."""
    try:
        return json.loads(text)
    except RecursionError:
        raise HTTPException(status, f"{problem}: nested too deeply") from None
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError, int digit limit
        raise HTTPException(status, f"{problem}: {e}") from None


def _pydantic_message(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:3]:
        where = ".".join(str(x) for x in item["loc"]) or "body"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def decode_base64(text: str) -> bytes:
    """The bytes of a base64 string (or data: URL); 400 naming the problem otherwise."""
    try:
        return images.decode_base64(text)
    except ValueError as e:
        raise HTTPException(400, str(e)) from None


async def _from_multipart(request: Request, body: bytes, limits: Limits) -> tuple[bytes, list]:
    async def replay() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    try:
        form = await Request(request.scope, replay).form(
            max_files=2, max_fields=max(1000, 2 * limits.max_questions + 2))
    except HTTPException as e:  # starlette's own parse errors
        raise HTTPException(400, f"bad multipart body: {e.detail}") from None
    except Exception as e:
        raise HTTPException(400, f"bad multipart body: {e}") from None
    try:
        upload = form.get("image")
        if not isinstance(upload, UploadFile):
            raise HTTPException(400 if upload is not None else 422,
                                "multipart body needs a file part named 'image'")
        data = await upload.read()
        return data, _multipart_questions(form.getlist("questions"))
    finally:
        await form.close()


def _multipart_questions(values: list) -> list:
    if any(isinstance(v, UploadFile) for v in values):
        raise HTTPException(422, "'questions' must be text fields, not files")
    if len(values) == 1 and values[0].lstrip().startswith("["):
        values = _json_or_error(values[0], 422, "'questions' looks like a JSON list but is not")
        if not isinstance(values, list):
            raise HTTPException(422, "'questions' must be a JSON list of strings")
    if not values:
        raise HTTPException(422, "no questions: add one or more 'questions' fields")
    return values


def check_questions(questions: list, limits: Limits) -> None:
    """422 naming the first problem: none, too many, not a string, empty, too long."""
    if not questions:
        raise HTTPException(422, "no questions: send at least one question")
    if len(questions) > limits.max_questions:
        raise HTTPException(422, f"too many questions: {len(questions)}, the limit is "
                                 f"{limits.max_questions} per request")
    for i, q in enumerate(questions):
        if not isinstance(q, str):
            raise HTTPException(422, f"question {i} is not a string")
        if not q.strip():
            raise HTTPException(422, f"question {i} is empty")
        bad = _SURROGATE.search(q)
        if bad:
            raise HTTPException(422, f"question {i} is not valid Unicode text: a lone "
                                     f"surrogate U+{ord(bad.group()):04X} at character "
                                     f"{bad.start()}")
        if len(q) > limits.max_question_chars:
            raise HTTPException(422, f"question {i} is too long: {len(q)} characters, the limit "
                                     f"is {limits.max_question_chars}")


def decode_image(data: bytes, max_pixels: int = MAX_IMAGE_PIXELS) -> np.ndarray:
    """(H, W, 3) uint8 RGB from PNG/JPEG bytes (`vrs.images`); 413 if too large (checked from
    the header, before the pixels are decompressed), 400 if they are not a PNG or JPEG."""
    try:
        return images.decode_image_bytes(data, max_pixels=max_pixels, formats=IMAGE_FORMATS)
    except images.ImageTooLarge as e:
        raise HTTPException(413, str(e)) from None
    except ValueError as e:
        raise HTTPException(400, str(e)) from None


class BackgroundServer:
    """uvicorn serving `app` in a daemon thread; `port=0` picks a free port.

        with BackgroundServer(create_app(reasoner)) as server:
            HttpReasoner(server.url).ask(image, ["how many blocks are there?"])
    """

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0,
                 log_level: str = "warning") -> None:
        import uvicorn

        self.server = uvicorn.Server(uvicorn.Config(app, host=host, port=port,
                                                    log_level=log_level, lifespan="on"))
        self._thread = threading.Thread(target=self.server.run, name="vrs-http", daemon=True)
        self.host = host
        self.port = port

    @property
    def url(self) -> str:
        """Base URL of the running server, e.g. http://127.0.0.1:43117."""
        return f"http://{self.host}:{self.port}"

    def start(self, timeout_s: float = 10.0) -> BackgroundServer:
        """Start serving; returns once the socket listens (RuntimeError if it never does)."""
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the service did not start on {self.host}:{self.port}")
            time.sleep(0.01)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        """Ask uvicorn to finish (open requests complete) and wait for the thread."""
        self.server.should_exit = True
        self._thread.join(timeout_s)

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
