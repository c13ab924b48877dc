"""`codeplan serve vrs|llm`: the services the closed loop can call over HTTP.

    codeplan serve vrs --model detector --port 8765 --max-batch 16 --max-wait-ms 5
    codeplan serve llm [--model-path MODEL.gguf] [--port 0] [--threads 1]

vrs: a visual reasoner behind POST /v1/vqa (`--reasoner http://HOST:PORT` of `codeplan run`
and `eval closed-loop`, `codeplan ask --url`). llm: the packaged local LLM (`codeplan llm
fetch`) behind an OpenAI-compatible server (`--planner openai --base-url ...`); its options and
body live in `runtime.llm.commands`. Both run until Ctrl-C. The servers and models load only in
the handlers, so `codeplan --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from runtime.cli.args import add_group, non_negative_float, port, positive_int

if TYPE_CHECKING:
    import uvicorn

    from vrs.reasoner import Reasoner


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `serve vrs` and `serve llm` to the `codeplan` verbs."""
    ssub = add_group(subparsers, "serve", "run a service", "serve commands", "SERVICE")
    add_vrs_parser(ssub)
    add_llm_parser(ssub)


# -- codeplan serve vrs --------------------------------------------------------------------
def add_vrs_parser(ssub: argparse._SubParsersAction) -> None:
    """Add `vrs` to the `serve` group: a reasoner behind HTTP, batching concurrent requests."""
    vrs = ssub.add_parser("vrs", help="the visual reasoning HTTP service (POST /v1/vqa)")
    vrs.add_argument("--model", default="default",
                     help="checkpoint directory or shipped name: default, detector, ofa")
    vrs.add_argument("--device", default="cpu", help="torch device, e.g. cpu or cuda")
    vrs.add_argument("--host", default="127.0.0.1", help="address to listen on")
    vrs.add_argument("--port", type=positive_int, default=8765)
    vrs.add_argument("--max-batch", type=positive_int, default=16, metavar="N",
                     help="most images per forward pass (default 16)")
    vrs.add_argument("--max-wait-ms", type=non_negative_float, default=5.0, metavar="MS",
                     help="longest wait for more requests to batch (default 5)")
    vrs.add_argument("--workers", type=positive_int, default=1, metavar="N",
                     help="server processes behind the one address, each with its own model "
                          "and its share of the cores (default 1; see `codeplan bench "
                          "service` for what more buy on this machine)")
    vrs.add_argument("--log-level", default="info",
                     choices=("critical", "error", "warning", "info", "debug"))
    vrs.set_defaults(handler=_serve_vrs)


def _serve_vrs(args: argparse.Namespace) -> int:
    """Load the reasoner, then serve until Ctrl-C (uvicorn handles the signal). With
    --workers N, uvicorn runs N processes on the one port, each building its app (and
    loading its model) from the environment (`vrs.service.app_from_env`)."""
    from vrs.loading import load_reasoner

    reasoner = load_reasoner(args.model, args.device)  # a bad model fails here, once
    if args.workers > 1:
        return _serve_vrs_workers(args, reasoner.name)
    server = build_server(args, reasoner)
    print(f"codeplan: serving {reasoner.name} on http://{args.host}:{args.port} "
          f"(docs at /docs)", file=sys.stderr)
    server.run()
    return 0


def _serve_vrs_workers(args: argparse.Namespace, name: str) -> int:
    import os

    import uvicorn

    from vrs.service import ENV_PREFIX

    threads = max(1, (os.cpu_count() or 1) // args.workers)
    os.environ.update({f"{ENV_PREFIX}{k}": str(v) for k, v in (
        ("MODEL", args.model), ("DEVICE", args.device), ("MAX_BATCH", args.max_batch),
        ("MAX_WAIT_MS", args.max_wait_ms), ("THREADS", threads))})
    print(f"codeplan: serving {name} on http://{args.host}:{args.port} with {args.workers} "
          f"worker processes, {threads} torch thread(s) each (docs at /docs)", file=sys.stderr)
    uvicorn.run("vrs.service:app_from_env", factory=True, host=args.host, port=args.port,
                workers=args.workers, log_level=args.log_level, lifespan="on")
    return 0


def build_server(args: argparse.Namespace, reasoner: Reasoner) -> uvicorn.Server:
    """The uvicorn.Server that `serve vrs` runs, from its parsed options."""
    import uvicorn

    from vrs.service import create_app

    app = create_app(reasoner, max_batch_images=args.max_batch, max_wait_ms=args.max_wait_ms)
    return uvicorn.Server(uvicorn.Config(app, host=args.host, port=args.port,
                                         log_level=args.log_level, lifespan="on"))


# -- codeplan serve llm --------------------------------------------------------------------
def add_llm_parser(ssub: argparse._SubParsersAction) -> None:
    """Add `llm` to the `serve` group: the local LLM behind an OpenAI-compatible server."""
    from runtime.llm.commands import serve_command

    llm = ssub.add_parser("llm", help="the local LLM for --planner llm (OpenAI-compatible "
                                      "server; `codeplan llm fetch` first)")
    add_serve_arguments(llm)
    llm.set_defaults(handler=serve_command)


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """`codeplan serve llm [--model-path P] [--host H] [--port N] [--threads N] [--parallel N]
    [--ctx N]`."""
    parser.add_argument("--model-path", default=None,
                        help="a GGUF file to serve instead of the packaged model")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 to serve the "
                             "other nodes of a Ray cluster)")
    parser.add_argument("--port", type=port, default=0, help="0 (default): a free port")
    parser.add_argument("--threads", type=positive_int, default=1,
                        help="CPU threads (default 1: two collapse on a 2-core machine)")
    parser.add_argument("--parallel", type=positive_int, default=1,
                        help="request slots, one per concurrent client (default 1)")
    parser.add_argument("--ctx", type=positive_int, default=4096,
                        help="context tokens per slot (default 4096)")
