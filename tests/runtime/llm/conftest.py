"""A stand-in for the llama.cpp child process, so the server's lifecycle is tested in seconds.

The fake speaks the same protocol as the real child (a JSON line with the address on stdout once
ready, then live until stdin closes) and serves `GET /v1/models` with the standard library.
"""

from __future__ import annotations

import pytest

from runtime.llm import server

FAKE_CHILD = r"""
import json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
cfg = json.loads(sys.argv[1])
print("config " + json.dumps(cfg, sort_keys=True), file=sys.stderr, flush=True)
print(f"pid {os.getpid()}", file=sys.stderr, flush=True)
MODE = "@MODE@"
if MODE == "error":
    print("0.00.010.256 E gguf_init_from_reader: failed to read header", file=sys.stderr)
    print("0.00.010.285 E llama_model_load: error loading model: bad header", file=sys.stderr)
    print("0.00.016.111 E srv          init: exiting due to model loading error",
          file=sys.stderr, flush=True)
    print(json.dumps({"error": "Failed to init server, please check the input params."}),
          flush=True)
    sys.exit(1)
if MODE == "silent":
    time.sleep(60)

class Models(BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"object": "list", "data": [{"id": cfg["alias"]}]}).encode()
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

httpd = ThreadingHTTPServer((cfg["host"], cfg["port"]), Models)
threading.Thread(target=httpd.serve_forever, daemon=True).start()
print(json.dumps({"address": f"http://{cfg['host']}:{httpd.server_port}"}), flush=True)
if MODE == "stubborn":
    while True:
        time.sleep(1)
sys.stdin.buffer.read()
"""


@pytest.fixture
def fake_child(monkeypatch):
    """Swap the real child for the fake; call it with a mode: ok, error, silent, stubborn."""
    monkeypatch.setattr(server, "require_runtime", lambda: None)

    def use(mode: str = "ok") -> None:
        monkeypatch.setattr(server, "_CHILD", FAKE_CHILD.replace("@MODE@", mode))

    use()
    return use


@pytest.fixture
def fake_child_script():
    """The fake child's source in its ordinary mode, for tests that start their own parent."""
    return FAKE_CHILD.replace("@MODE@", "ok")
