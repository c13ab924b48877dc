"""`--planner llm`: clear errors when the runtime or the model is missing, one shared server per
process (started lazily, stopped by close()), and the tuned decoding settings it sends."""

from __future__ import annotations

import pytest

import runtime.planners.local_llm as local_llm
from runtime.cli import main
from runtime.planners.base import PlannerError
from runtime.planners.registry import make_planner


def test_a_missing_model_names_the_fetch_and_install_commands(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEPLAN_CACHE", str(tmp_path))
    monkeypatch.setattr("runtime.llm.server.require_runtime", lambda: None)
    with pytest.raises(PlannerError, match=r'codeplan llm fetch.*pip install -e "\.\[llm\]"'):
        make_planner("llm")


def test_a_missing_runtime_names_the_install_command(monkeypatch):
    from runtime.llm.server import LLMRuntimeMissingError

    def missing() -> None:
        raise LLMRuntimeMissingError("the local LLM runtime (xllamacpp) is not installed")

    monkeypatch.setattr("runtime.llm.server.require_runtime", missing)
    with pytest.raises(PlannerError, match=r'needs the local LLM runtime: pip install -e'):
        make_planner("llm")


def test_a_bad_model_path_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("runtime.llm.server.require_runtime", lambda: None)
    not_gguf = tmp_path / "model.gguf"
    not_gguf.write_bytes(b"PK\x03\x04 not a model")
    code = main(["run", "--planner", "llm", "--model-path", str(not_gguf), "--actor", "oracle",
                 "--reasoner", "oracle", "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "not a GGUF model" in err, err


def test_a_non_positive_llm_timeout_is_refused(capsys):
    assert main(["run", "--planner", "llm", "--llm-timeout", "0"]) == 2
    assert "--llm-timeout must be positive" in capsys.readouterr().err


class FakeServer:
    """Stands in for LocalLLMServer: counts starts and stops."""

    starts = 0

    def __init__(self, model_path, alias, threads) -> None:
        self.model_path, self.alias, self.threads = model_path, alias, threads
        self.base_url, self.model_id, self.running = "http://127.0.0.1:9/v1", alias, False

    def start(self) -> FakeServer:
        FakeServer.starts += 1
        self.running = True
        return self

    def stop(self) -> None:
        self.running = False


def test_one_server_per_process_started_lazily_and_stopped_by_close(tmp_path, monkeypatch):
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 16)
    monkeypatch.setattr("runtime.llm.server.require_runtime", lambda: None)
    monkeypatch.setattr("runtime.llm.server.LocalLLMServer", FakeServer)
    FakeServer.starts = 0
    first = make_planner("llm", model_path=str(gguf), timeout_s=42)
    second = make_planner("llm", model_path=str(gguf))
    assert FakeServer.starts == 0  # nothing starts until a codeplan is asked for
    a, b = first._planner(), second._planner()
    assert FakeServer.starts == 1 and a.base_url == b.base_url == "http://127.0.0.1:9/v1"
    assert a.model == "tiny" and a.timeout_s == 42 and a.grammar == local_llm.CODE_GRAMMAR
    body = a.request_body([{"role": "user", "content": "x"}], attempt=0)
    assert body["temperature"] == 0.0 and body["max_tokens"] == 400 and "grammar" in body
    first.close()
    assert not local_llm._servers
    second._delegate = None
    second._planner()
    assert FakeServer.starts == 2  # a later codeplan starts a fresh one
    second.close()
