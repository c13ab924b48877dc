"""The visual reasoning service over real HTTP: answers, rejections, micro-batching, docs."""

from __future__ import annotations

import asyncio
import base64
import io
import threading
import time

import numpy as np
import pytest
import requests
from PIL import Image

from vrs.reasoner import Answer
from vrs.service import BackgroundServer, create_app
from vrs.service_batching import MicroBatcher, ServiceStopping

PALETTE = {"red": (220, 30, 30), "green": (30, 200, 60), "blue": (30, 60, 220),
           "white": (250, 250, 250), "black": (5, 5, 5)}


class PixelReasoner:
    """Answers from the pixels: the dominant palette color, bright pixels, the width. Records
    every batch size, and whether the model was ever entered by two threads at once."""

    name = "pixel-test"

    def __init__(self, delay_s: float = 0.0) -> None:
        self.delay_s = delay_s
        self.batches: list[int] = []
        self.overlaps = 0
        self._busy = threading.Lock()

    def ask(self, image, questions):
        return self.ask_many([(image, questions)])[0]

    def ask_many(self, items):
        if not self._busy.acquire(blocking=False):
            self.overlaps += 1
            self._busy.acquire()
        try:
            self.batches.append(len(items))
            time.sleep(self.delay_s)
            return [[answer(image, q) for q in qs] for image, qs in items]
        finally:
            self._busy.release()


def answer(image: np.ndarray, question: str) -> Answer:
    q = question.strip().lower().rstrip("?")
    if q == "what color is the image":
        names = list(PALETTE)
        ref = np.array([PALETTE[n] for n in names], dtype=np.int32)
        dist = ((image.reshape(-1, 1, 3).astype(np.int32) - ref[None]) ** 2).sum(axis=2)
        return Answer(names[int(np.bincount(dist.argmin(axis=1)).argmax())], 1.0)
    if q == "how many bright pixels are there":
        return Answer(str(int((image.min(axis=2) > 240).sum())), 1.0)
    if q == "how wide is the image":
        return Answer(str(image.shape[1]), 1.0)
    return Answer(f"unsupported question: {question}", 0.0)


def make_image(color: str, bright: int = 0, width: int = 40, height: int = 30) -> np.ndarray:
    img = np.empty((height, width, 3), np.uint8)
    img[:] = PALETTE[color]
    img.reshape(-1, 3)[:bright] = 255
    return img


def encode(image: np.ndarray, fmt: str = "PNG") -> bytes:
    buf = io.BytesIO()
    Image.fromarray(image).save(buf, format=fmt)
    return buf.getvalue()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


QUESTIONS = ["What color is the image?", "how many bright pixels are there?",
             "how wide is the image?"]
MAX_BODY = 300_000


@pytest.fixture(scope="module")
def service():
    reasoner = PixelReasoner(delay_s=0.01)
    app = create_app(reasoner, max_batch_images=16, max_wait_ms=20, max_body_bytes=MAX_BODY,
                     max_questions=8, max_question_chars=500, max_image_pixels=1_000_000)
    with BackgroundServer(app) as server:
        yield server.url, reasoner


def post_json(url: str, body: dict) -> requests.Response:
    return requests.post(url + "/v1/vqa", json=body, timeout=10)


def test_healthz_names_the_model(service):
    url, _ = service
    assert requests.get(url + "/healthz", timeout=5).json() == {"status": "ok",
                                                               "model": "pixel-test"}


def test_json_request_gets_answers_computed_from_its_pixels(service):
    url, _ = service
    image = make_image("green", bright=7, width=52)
    reply = post_json(url, {"image": b64(encode(image)), "questions": [*QUESTIONS, "why?"]})
    assert reply.status_code == 200, reply.text
    data = reply.json()
    assert [a["answer"] for a in data["answers"]] == ["green", "7", "52",
                                                      "unsupported question: why?"]
    assert [a["score"] for a in data["answers"]] == [1.0, 1.0, 1.0, 0.0]
    assert [a["question"] for a in data["answers"]] == [*QUESTIONS, "why?"]
    assert data["model"] == "pixel-test" and data["latency_ms"] > 0 and data["batch_size"] >= 1


def test_json_accepts_a_data_url(service):
    url, _ = service
    image = "data:image/png;base64," + b64(encode(make_image("blue")))
    reply = post_json(url, {"image": image, "questions": QUESTIONS[:1]})
    assert reply.json()["answers"][0]["answer"] == "blue"


@pytest.mark.parametrize("as_json_list", [False, True])
def test_multipart_request_with_repeated_or_json_list_questions(service, as_json_list):
    url, _ = service
    image = make_image("red", bright=3, width=33)
    questions = ('["what color is the image?", "how wide is the image?"]' if as_json_list
                 else ["what color is the image?", "how wide is the image?"])
    reply = requests.post(url + "/v1/vqa", files={"image": ("x.png", encode(image), "image/png")},
                          data={"questions": questions}, timeout=10)
    assert reply.status_code == 200, reply.text
    assert [a["answer"] for a in reply.json()["answers"]] == ["red", "33"]


def test_multipart_jpeg_is_decoded(service):
    url, _ = service
    jpeg = encode(make_image("blue", width=64, height=48), "JPEG")
    questions = ["what color is the image?", "how wide is the image?"]
    reply = requests.post(url + "/v1/vqa", files={"image": ("x.jpg", jpeg)},
                          data={"questions": questions}, timeout=10)
    assert [a["answer"] for a in reply.json()["answers"]] == ["blue", "64"]


PNG = b64(encode(make_image("red")))
GIF = b64(encode(make_image("red"), "GIF"))


@pytest.mark.parametrize(("body", "status", "message"), [
    ({"image": b64(b"hello, not an image"), "questions": ["q?"]}, 400, "not a PNG or JPEG"),
    ({"image": GIF, "questions": ["q?"]}, 400, "not a PNG or JPEG"),
    ({"image": b64(encode(make_image("red"))[:60]), "questions": ["q?"]}, 400, "decodable"),
    ({"image": "%%% not base64 %%%", "questions": ["q?"]}, 400, "base64"),
    ({"image": PNG, "questions": [""]}, 422, "question 0 is empty"),
    ({"image": PNG, "questions": ["ok?", "   "]}, 422, "question 1 is empty"),
    ({"image": PNG, "questions": ["x" * 2000]}, 422, "too long: 2000 characters"),
    ({"image": PNG, "questions": []}, 422, "no questions"),
    ({"image": PNG}, 422, "no questions"),
    ({"questions": ["q?"]}, 422, "image: Field required"),
    ({"image": PNG, "questions": ["q?"] * 9}, 422, "too many questions: 9"),
    ({"image": PNG, "questions": "what color is the image?"}, 422, "questions"),
    ({"image": PNG, "questions": [1, 2]}, 422, "questions.0"),
])
def test_bad_json_requests_get_a_4xx_naming_the_problem(service, body, status, message):
    url, reasoner = service
    before = len(reasoner.batches)
    reply = post_json(url, body)
    assert reply.status_code == status, reply.text
    assert message in reply.json()["detail"]
    assert len(reasoner.batches) == before  # the model never saw it


@pytest.mark.parametrize(("data", "headers", "status", "message"), [
    (b"hello", {"Content-Type": "text/plain"}, 415, "unsupported content type 'text/plain'"),
    (b"hello", {}, 415, "no content type"),
    (b"{not json", {"Content-Type": "application/json"}, 400, "not valid JSON"),
    (b"[1, 2]", {"Content-Type": "application/json"}, 422, "JSON object"),
    (b"", {"Content-Type": "application/json"}, 400, "empty request body"),
    (b"x" * (MAX_BODY + 1), {"Content-Type": "application/json"}, 413, "over the limit"),
])
def test_bad_bodies_get_a_4xx_naming_the_problem(service, data, headers, status, message):
    url, _ = service
    reply = requests.post(url + "/v1/vqa", data=data, headers=headers, timeout=10)
    assert reply.status_code == status, reply.text
    assert message in reply.json()["detail"]


@pytest.mark.parametrize(("data", "status", "message"), [
    (b'{"image": "%s", "questions": ["\\ud800?"]}', 422,
     "question 0 is not valid Unicode text: a lone surrogate U+D800 at character 0"),
    (b"[" * 100_000 + b"]" * 100_000, 400, "not valid JSON: nested too deeply"),
    (b'{"image": "%s", "questions": [1' + b"0" * 5000 + b"]}", 400, "not valid JSON"),
    (b'{"image": "%s", "questions": ["\xff?"]}', 400, "not valid JSON"),
])
def test_json_no_parser_or_encoder_can_take_gets_a_4xx_not_a_500(service, data, status, message):
    url, _ = service
    data = data.replace(b"%s", PNG.encode())
    reply = requests.post(url + "/v1/vqa", data=data, timeout=10,
                          headers={"Content-Type": "application/json"})
    assert reply.status_code == status, reply.text
    assert message in reply.json()["detail"]


def test_the_415_for_a_request_without_a_content_type_reads_plainly(service):
    url, _ = service
    reply = requests.post(url + "/v1/vqa", data=b"hello", timeout=10)
    assert reply.json()["detail"] == ("no content type: send application/json or "
                                      "multipart/form-data")


def test_oversize_body_without_content_length_is_cut_off_while_streaming(service):
    url, _ = service
    chunks = (b"x" * 50_000 for _ in range(10))  # a generator: chunked, no Content-Length
    reply = requests.post(url + "/v1/vqa", data=chunks,
                          headers={"Content-Type": "application/json"}, timeout=10)
    assert reply.status_code == 413 and "over the limit" in reply.json()["detail"]


def test_image_with_too_many_pixels_is_413_before_decoding(service):
    url, _ = service
    big = encode(np.zeros((1001, 1000, 3), np.uint8))
    reply = post_json(url, {"image": b64(big), "questions": ["q?"]})
    assert reply.status_code == 413 and "1000x1001 pixels" in reply.json()["detail"]


@pytest.mark.parametrize(("files", "data", "status", "message"), [
    ({"image": ("x.png", b"not an image")}, {"questions": ["q?"]}, 400, "not a PNG or JPEG"),
    ({"other": ("x.png", encode(make_image("red")))}, {"questions": ["q?"]}, 422,
     "file part named 'image'"),
    ({"image": ("x.png", encode(make_image("red")))}, {}, 422, "no questions"),
    ({"image": ("x.png", encode(make_image("red")))}, {"questions": "[1, "}, 422,
     "looks like a JSON list but is not"),
    ({"image": ("x.png", encode(make_image("red")))}, {"questions": ["x" * 2000]}, 422,
     "too long"),
    ({"image": ("x.png", encode(make_image("red")))}, {"questions": '["\\udc80"]'}, 422,
     "lone surrogate U+DC80"),
    ({"image": ("x.png", encode(make_image("red")))}, {"questions": '[' * 100_000}, 422,
     "nested too deeply"),
])
def test_bad_multipart_requests_get_a_4xx(service, files, data, status, message):
    url, _ = service
    reply = requests.post(url + "/v1/vqa", files=files, data=data, timeout=10)
    assert reply.status_code == status, reply.text
    assert message in reply.json()["detail"]


def test_sixteen_concurrent_clients_get_their_own_answers_in_shared_batches(service):
    url, reasoner = service
    colors = ["red", "green", "blue", "black", "red"]  # not white: every pixel would be bright
    start = threading.Barrier(16)
    results: dict[int, list] = {}

    def client(i: int) -> None:
        session = requests.Session()
        start.wait()
        for k in range(3):
            image = make_image(colors[(i + k) % 5], bright=i * 3 + k, width=20 + i)
            reply = session.post(url + "/v1/vqa", timeout=20,
                                 json={"image": b64(encode(image)), "questions": QUESTIONS})
            results.setdefault(i, []).append((reply.status_code, reply.json(),
                                               [colors[(i + k) % 5], str(i * 3 + k), str(20 + i)]))

    before = len(reasoner.batches)
    threads = [threading.Thread(target=client, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(results) == list(range(16))
    for replies in results.values():
        for status, data, expected in replies:
            assert status == 200, data
            assert [a["answer"] for a in data["answers"]] == expected
    batches = reasoner.batches[before:]
    assert sum(batches) == 48 and max(batches) > 1 and len(batches) < 48
    assert reasoner.overlaps == 0  # the model was never called from two threads at once


class AskOnlyReasoner:
    """No ask_many; raises on an all-black image (a model bug, not bad input)."""

    name = "ask-only"

    def ask(self, image, questions):
        if image.max() < 10:
            raise RuntimeError("black image broke the model")
        return [answer(image, q) for q in questions]


def test_reasoner_without_ask_many_and_a_failure_that_spoils_only_its_own_request():
    app = create_app(AskOnlyReasoner(), max_wait_ms=50)
    with BackgroundServer(app) as server:
        def post(color: str) -> requests.Response:
            body = {"image": b64(encode(make_image(color))), "questions": QUESTIONS[:1]}
            return post_json(server.url, body)

        replies: dict[str, requests.Response] = {}
        threads = [threading.Thread(target=lambda c=c: replies.__setitem__(c, post(c)))
                   for c in ("red", "black", "blue")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
    assert replies["red"].json()["answers"][0]["answer"] == "red"
    assert replies["blue"].json()["answers"][0]["answer"] == "blue"
    assert replies["black"].status_code == 500
    assert "black image broke the model" in replies["black"].json()["detail"]


def test_openapi_describes_both_request_kinds_and_the_response(service):
    url, _ = service
    spec = requests.get(url + "/openapi.json", timeout=5).json()
    post = spec["paths"]["/v1/vqa"]["post"]
    assert set(post["requestBody"]["content"]) == {"application/json", "multipart/form-data"}
    assert post["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/VqaResponse")
    assert {"413", "415", "422"} <= set(post["responses"])
    assert "answers" in spec["components"]["schemas"]["VqaResponse"]["properties"]
    docs = requests.get(url + "/docs", timeout=5)
    assert docs.status_code == 200 and "swagger" in docs.text.lower()


def test_batch_history_keeps_only_the_latest_batches():
    batcher = MicroBatcher(PixelReasoner(), max_wait_ms=0, batch_history=3)

    async def five_requests() -> None:
        for width in range(10, 15):
            await batcher.submit(make_image("red", width=width), ["how wide is the image?"])

    asyncio.run(five_requests())
    batcher.stop()
    assert list(batcher.batch_sizes) == [1, 1, 1]  # a long-running server keeps a bounded tail


class GateReasoner:
    """Stays inside the model until `release` is set; records the batch sizes."""

    name = "gate"

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.batches: list[int] = []

    def ask(self, image, questions):
        return self.ask_many([(image, questions)])[0]

    def ask_many(self, items):
        self.batches.append(len(items))
        self.entered.set()
        assert self.release.wait(10)
        return [[Answer("ok", 1.0) for _ in qs] for _, qs in items]


def model_workers() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "vrs-model-worker" and t.is_alive()}


def test_start_is_refused_until_a_stopped_worker_has_ended():
    reasoner = GateReasoner()
    batcher = MicroBatcher(reasoner, max_wait_ms=0)
    before = model_workers()

    async def stop_while_the_model_runs() -> None:
        running = batcher.enqueue(make_image("red"), ["q?"])
        await asyncio.to_thread(reasoner.entered.wait, 5)
        busy = model_workers()
        batcher.stop(timeout_s=0.05)  # times out: the worker is still inside the model
        with pytest.raises(ServiceStopping):
            batcher.start()
        with pytest.raises(ServiceStopping, match="shutting down"):
            batcher.enqueue(make_image("red"), ["q?"])
        assert model_workers() == busy  # no second worker beside the busy one
        reasoner.release.set()
        assert (await asyncio.wait_for(running, 5)).answers == [Answer("ok", 1.0)]

    asyncio.run(stop_while_the_model_runs())
    for worker in model_workers() - before:
        worker.join(5)
    assert model_workers() == before
    batcher.start()  # the old worker has ended: a fresh one may start
    assert len(model_workers() - before) == 1
    batcher.stop()
    assert model_workers() == before


def test_requests_still_queued_at_stop_fail_with_service_stopping():
    reasoner = GateReasoner()
    batcher = MicroBatcher(reasoner, max_batch_images=1, max_wait_ms=0)

    async def stop_with_a_queue() -> list:
        image = make_image("red")
        running = batcher.enqueue(image, ["q?"])
        await asyncio.to_thread(reasoner.entered.wait, 5)
        queued = [batcher.enqueue(image, ["q?"]) for _ in range(2)]
        batcher.stop(timeout_s=0.05)
        reasoner.release.set()
        return await asyncio.wait_for(asyncio.gather(running, *queued, return_exceptions=True),
                                      5)

    first, *rest = asyncio.run(stop_with_a_queue())
    assert first.answers == [Answer("ok", 1.0)]  # the running batch is finished
    assert [type(r) for r in rest] == [ServiceStopping, ServiceStopping]
    assert "shutting down" in str(rest[0])
    assert reasoner.batches == [1]  # the queued requests never reached the model


def test_a_request_while_the_service_shuts_down_gets_503():
    app = create_app(PixelReasoner())

    def refuse(image, questions):
        raise ServiceStopping("the reasoning service is shutting down")

    app.state.batcher.enqueue = refuse
    with BackgroundServer(app) as server:
        reply = post_json(server.url, {"image": PNG, "questions": QUESTIONS[:1]})
    assert reply.status_code == 503 and reply.headers["Retry-After"] == "1"
    assert "shutting down" in reply.json()["detail"]
