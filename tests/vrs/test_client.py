"""`HttpReasoner` against the real service and against tiny local servers that misbehave."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
import requests

from vrs.client import HttpReasoner, ServiceError, ServiceRejected, ServiceTimeout
from vrs.reasoner import Answer
from vrs.service import BackgroundServer, create_app


class BrightnessReasoner:
    """Answers from the pixels: the mean brightness and the image height."""

    name = "brightness"

    def __init__(self) -> None:
        self.batches: list[int] = []

    def ask(self, image, questions):
        return self.ask_many([(image, questions)])[0]

    def ask_many(self, items):
        self.batches.append(len(items))
        time.sleep(0.01)
        return [[self._answer(image, q) for q in qs] for image, qs in items]

    @staticmethod
    def _answer(image, question):
        if question == "how bright is it?":
            return Answer(str(round(float(image.mean()))), 1.0)
        if question == "how tall is it?":
            return Answer(str(image.shape[0]), 1.0)
        return Answer("unsupported question", 0.0)


def gray(level: int, height: int = 24) -> np.ndarray:
    return np.full((height, 32, 3), level, np.uint8)


@pytest.fixture(scope="module")
def service():
    reasoner = BrightnessReasoner()
    with BackgroundServer(create_app(reasoner, max_wait_ms=20)) as server:
        yield server.url, reasoner


def test_ask_answers_from_the_real_service_and_names_the_model(service):
    url, _ = service
    client = HttpReasoner(url + "/")
    assert client.name == "http:brightness"
    answers = client.ask(gray(77, height=19), ["how bright is it?", "how tall is it?", "eh?"])
    assert answers == [Answer("77", 1.0), Answer("19", 1.0), Answer("unsupported question", 0.0)]
    assert client.ask(gray(1), []) == []


def test_ask_many_sends_in_parallel_so_the_server_batches(service):
    url, reasoner = service
    client = HttpReasoner(url, parallel=8)
    before = len(reasoner.batches)
    items = [(gray(10 * i, height=10 + i), ["how bright is it?", "how tall is it?"])
             for i in range(12)]
    results = client.ask_many(items)
    assert [[a.text for a in r] for r in results] == [[str(10 * i), str(10 + i)]
                                                      for i in range(12)]
    assert max(reasoner.batches[before:]) > 1


def test_server_rejection_is_raised_with_its_message(service):
    url, _ = service
    with pytest.raises(ServiceRejected, match="question 0 is too long") as err:
        HttpReasoner(url).ask(gray(1), ["x" * 2000])
    assert err.value.status == 422 and url in str(err.value)


def test_bad_images_and_urls_are_refused_locally():
    with pytest.raises(ValueError, match="uint8"):
        HttpReasoner("http://127.0.0.1:1").ask(np.zeros((4, 4, 3), np.float32), ["q?"])
    with pytest.raises(ValueError, match="http://"):
        HttpReasoner("127.0.0.1:8765")
    with pytest.raises(TypeError, match="list of questions"):
        HttpReasoner("http://127.0.0.1:1").ask(gray(1), "how bright is it?")


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # the timeout test's client hangs up on purpose


class Scripted:
    """A tiny HTTP server: the first `failures` POSTs get `status`, later ones a valid reply
    (after `sleep_s`). Counts every request."""

    def __init__(self, failures: int = 0, status: int = 503, sleep_s: float = 0.0) -> None:
        self.failures, self.status, self.sleep_s, self.hits = failures, status, sleep_s, 0
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                scripted.hits += 1
                if scripted.hits <= scripted.failures:
                    return self._send(scripted.status, {"detail": f"scripted {scripted.status}"})
                time.sleep(scripted.sleep_s)
                answers = [{"question": q, "answer": "ok", "score": 0.5}
                           for q in body["questions"]]
                return self._send(200, {"answers": answers, "model": "scripted",
                                        "latency_ms": 1.0, "batch_size": 1})

            def _send(self, status, data):
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args):
                pass

        self.httpd = QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> Scripted:
        threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_503s_are_retried_until_the_server_answers():
    with Scripted(failures=2, status=503) as server:
        client = HttpReasoner(server.url, retries=3, backoff_s=0.01)
        assert client.ask(gray(5), ["a?", "b?"]) == [Answer("ok", 0.5)] * 2
        assert server.hits == 3
        assert client.name == "http:scripted"  # taken from the answer, no /healthz needed


def test_persistent_5xx_gives_up_after_the_retries_naming_the_url():
    with Scripted(failures=100, status=500) as server:
        with pytest.raises(ServiceError, match=r"failed \(500\) after 3 attempts: scripted 500"):
            HttpReasoner(server.url, retries=2, backoff_s=0.01).ask(gray(5), ["a?"])
        assert server.hits == 3


def test_400_is_not_retried():
    with Scripted(failures=100, status=400) as server:
        with pytest.raises(ServiceRejected, match=r"rejected the request \(400\): scripted 400"):
            HttpReasoner(server.url, retries=5, backoff_s=0.01).ask(gray(5), ["a?"])
        assert server.hits == 1


def test_a_server_that_sleeps_times_out_with_a_clear_error():
    with Scripted(sleep_s=1.5) as server:
        started = time.monotonic()
        message = re.escape(f"{server.url}/v1/vqa did not answer within 0.3 s")
        with pytest.raises(ServiceTimeout, match=message):
            HttpReasoner(server.url, timeout_s=0.3, retries=3).ask(gray(5), ["a?"])
        assert time.monotonic() - started < 1.2  # not retried
        assert server.hits == 1


def test_connection_refused_is_retried_then_reported():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once the socket is closed
    message = re.escape(f"cannot reach http://127.0.0.1:{port}/v1/vqa after 3 attempts")
    with pytest.raises(ServiceError, match=message):
        HttpReasoner(f"http://127.0.0.1:{port}", retries=2, backoff_s=0.01).ask(gray(5), ["a?"])


@pytest.fixture
def recorded(monkeypatch):
    """Every requests.Session and ask_many pool the client makes, as (sessions, pools)."""
    sessions: list[requests.Session] = []
    pools: list[ThreadPoolExecutor] = []

    class RecordingSession(requests.Session):
        closed = False

        def __init__(self) -> None:
            super().__init__()
            sessions.append(self)

        def close(self) -> None:
            self.closed = True
            super().close()

    class RecordingPool(ThreadPoolExecutor):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            pools.append(self)

    monkeypatch.setattr(requests, "Session", RecordingSession)
    monkeypatch.setattr("vrs.client.ThreadPoolExecutor", RecordingPool)
    return sessions, pools


def test_leaving_the_with_block_closes_every_threads_session(service, recorded):
    url, _ = service
    sessions, _ = recorded
    items = [(gray(10 * i), ["how tall is it?"]) for i in range(6)]
    with HttpReasoner(url, parallel=3) as client:
        assert client.ask(gray(1), ["how tall is it?"]) == [Answer("24", 1.0)]
        client.ask_many(items)
        assert len(sessions) >= 2 and not any(s.closed for s in sessions)
    assert all(s.closed for s in sessions)  # the caller's thread's and the pool threads'


def test_ask_many_keeps_one_pool_until_close(service, recorded):
    url, _ = service
    _, pools = recorded
    items = [(gray(10 * i, height=10 + i), ["how tall is it?"]) for i in range(5)]
    client = HttpReasoner(url, parallel=4)
    for _ in range(3):
        assert [r[0].text for r in client.ask_many(items)] == [str(10 + i) for i in range(5)]
    assert len(pools) == 1
    client.close()
    with pytest.raises(RuntimeError, match="shutdown"):
        pools[0].submit(print)  # close() shut it down
    assert len(client.ask_many(items)) == 5 and len(pools) == 2  # usable again: a new pool
    client.close()


class Garbage:
    """A server that answers every request with the same raw reply (status 200)."""

    def __init__(self, body: bytes, content_type: str = "application/json") -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> Garbage:
        threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize(("body", "says"), [
    (b"<html>proxy error</html>", "non-JSON reply"),
    (b"[1, 2]", "returned list, expected a JSON object"),
    (b'{"answers": "yes"}', "no answer list for 1 questions"),
    (b'{"answers": []}', "0 answers for 1 questions"),
    (b'{"answers": [7]}', "malformed answer 0: '7'"),
    (b'{"answers": [{"answer": "yes"}]}', "malformed answer 0"),
    (b'{"answers": [{"answer": ["yes"], "score": 1}]}', "malformed answer 0"),
    (b'{"answers": [{"answer": "yes", "score": "high"}]}', "malformed answer 0"),
    (b'{"answers": [{"answer": "yes", "score": true}]}', "malformed answer 0"),
    (b'\xff\xfe{"answers"', "non-JSON reply"),
])
def test_a_reply_that_is_not_an_answer_is_a_service_error_naming_the_url(body, says):
    with Garbage(body) as server:
        with pytest.raises(ServiceError, match=re.escape(says)) as caught:
            HttpReasoner(server.url, retries=0).ask(gray(5), ["a?"])
        assert server.url in str(caught.value)


def test_odd_but_wellformed_answers_pass_through():
    reply = b'{"answers": [{"answer": "\\ud800\\u0000", "score": 1}], "model": "m"}'
    with Garbage(reply) as server:
        assert HttpReasoner(server.url).ask(gray(5), ["a?"]) == [Answer("\ud800\x00", 1.0)]
