"""LocalLLMServer: readiness, failure reports and a stop that really frees the process and port.

The fast tests run a stand-in child (conftest.py); the slow one runs the packaged model.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

from runtime.llm import server
from runtime.llm.model_store import ModelMissingError, resolve_model
from runtime.llm.server import (
    INSTALL_COMMAND,
    LLMRuntimeMissingError,
    LLMServerError,
    LocalLLMServer,
    require_runtime,
)

ROOT = Path(__file__).resolve().parents[3]


def _gone(pid: int) -> bool:
    """No such process, or only a zombie left for init to reap."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return _gone(pid)


def _port_closed(base_url: str) -> bool:
    url = urlparse(base_url)
    try:
        socket.create_connection((url.hostname, url.port), timeout=1).close()
    except OSError:
        return True
    return False


def _child_config(log: Path) -> dict:
    line = next(ln for ln in log.read_text().splitlines() if ln.startswith("config "))
    return json.loads(line.removeprefix("config "))


def test_the_server_comes_up_reports_its_address_and_stops_for_good(tmp_path, fake_child):
    log = tmp_path / "server.log"
    srv = LocalLLMServer(tmp_path / "m.gguf", alias="tiny", threads=1, n_ctx=1000,
                         n_parallel=3, log_path=log)
    with srv:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1", srv.base_url)
        assert srv.model_id == "tiny" and srv.running
        pid, base_url = srv.pid, srv.base_url
        assert not _port_closed(base_url)
    assert _gone(pid) and _port_closed(base_url) and not srv.running
    assert _child_config(log) == {"alias": "tiny", "host": "127.0.0.1", "model": str(
        tmp_path / "m.gguf"), "n_ctx": 3000, "n_parallel": 3, "port": 0, "threads": 1}
    assert log.is_file()  # a log the caller named is the caller's


def test_a_temporary_log_is_removed_after_a_clean_stop(tmp_path, fake_child):
    with LocalLLMServer(tmp_path / "m.gguf") as srv:
        log = srv.log_path
        assert log.is_file()
    assert not log.exists()


def test_a_child_that_ignores_its_closed_stdin_is_killed(tmp_path, fake_child, monkeypatch):
    fake_child("stubborn")
    monkeypatch.setattr(server, "_STOP_GRACE_S", 0.5)
    srv = LocalLLMServer(tmp_path / "m.gguf").start()
    pid, base_url = srv.pid, srv.base_url
    stopper = threading.Thread(target=srv.stop, daemon=True)
    stopper.start()
    stopper.join(timeout=5)
    if stopper.is_alive():
        os.kill(pid, signal.SIGKILL)  # clean up before failing
    assert not stopper.is_alive(), "stop() did not return"
    assert _gone(pid) and _port_closed(base_url)


def test_the_child_exits_when_its_parent_dies_without_stopping_it(tmp_path, fake_child_script):
    log = tmp_path / "server.log"
    parent = (
        "import os\n"
        "from pathlib import Path\n"
        "from runtime.llm import server\n"
        "server.require_runtime = lambda: None\n"
        f"server._CHILD = {fake_child_script!r}\n"
        f"srv = server.LocalLLMServer(Path({str(tmp_path / 'm.gguf')!r}),\n"
        f"                            log_path=Path({str(log)!r})).start()\n"
        "print(srv.pid, srv.base_url, flush=True)\n"
        "os._exit(0)\n")
    done = subprocess.run([sys.executable, "-c", parent], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=True)
    pid, base_url = done.stdout.split()
    assert _wait_gone(int(pid), timeout=10) and _port_closed(base_url)


def test_a_model_the_runtime_cannot_load_is_a_clear_error_naming_the_log(tmp_path, fake_child):
    fake_child("error")
    srv = LocalLLMServer(tmp_path / "m.gguf")
    with pytest.raises(LLMServerError, match="Failed to init server") as err:
        srv.start()
    assert str(tmp_path / "m.gguf") in str(err.value)
    assert "(llama.cpp: llama_model_load: error loading model: bad header)" in str(err.value)
    log = Path(str(err.value).rsplit("its log: ", 1)[1])
    assert log.is_file() and "config " in log.read_text()
    assert srv.pid is None
    log.unlink()


def test_a_server_that_never_gets_ready_is_stopped_at_the_deadline(
        tmp_path, fake_child, monkeypatch):
    fake_child("silent")
    monkeypatch.setattr(server, "_STOP_GRACE_S", 0.5)
    log = tmp_path / "server.log"
    srv = LocalLLMServer(tmp_path / "m.gguf", ready_timeout_s=1.0, log_path=log)
    started = time.monotonic()
    with pytest.raises(LLMServerError, match="no model loaded within 1 s"):
        srv.start()
    assert time.monotonic() - started < 10
    pid = int(re.search(r"^pid (\d+)$", log.read_text(), re.M).group(1))
    assert _gone(pid) and srv.pid is None and not srv.running


def test_a_missing_runtime_names_the_install_command(tmp_path, monkeypatch):
    real_find_spec = server.importlib.util.find_spec
    monkeypatch.setattr(server.importlib.util, "find_spec",
                        lambda name: None if name == "xllamacpp" else real_find_spec(name))
    with pytest.raises(ModuleNotFoundError, match=re.escape(INSTALL_COMMAND)):
        require_runtime()
    with pytest.raises(LLMRuntimeMissingError):
        LocalLLMServer(tmp_path / "m.gguf").start()


def test_the_model_id_comes_from_the_model_list_when_it_has_the_expected_shape():
    assert server._first_model_id({"data": [{"id": "qwen"}]}) == "qwen"
    for odd in ({"data": []}, {"data": "x"}, [], {"models": [{"name": "qwen"}]}, None):
        assert server._first_model_id(odd) == ""


@pytest.mark.slow
def test_the_packaged_model_answers_a_chat_completion_and_the_server_stops():
    pytest.importorskip("xllamacpp")
    from runtime.planners.chat_client import post_chat

    try:
        model = resolve_model(None)
    except ModelMissingError:
        pytest.skip("the packaged model is not in the cache (codeplan llm fetch)")
    with LocalLLMServer(model, threads=1) as srv:
        reply = post_chat(srv.base_url, {
            "model": srv.model_id, "max_tokens": 16, "temperature": 0,
            "messages": [{"role": "user", "content": "Write a Python comment that says hello."}]},
            api_key="local", timeout_s=600, max_retries=0)
        pid, base_url = srv.pid, srv.base_url
        stopping = time.monotonic()
    assert time.monotonic() - stopping < server._STOP_GRACE_S / 2  # left on its own, not killed
    assert reply.content.strip()
    assert 0 < reply.completion_tokens <= 16
    assert _gone(pid) and _port_closed(base_url)
