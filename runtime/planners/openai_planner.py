"""The LLM planner for any OpenAI-compatible chat-completions server.

One client covers OpenAI itself and the local servers people run models with (vLLM, Ollama,
llama.cpp's server), which all speak `POST /v1/chat/completions`. The prompt comes from the
files in `prompts/`; the codeplan is the code block of the reply. Anything that goes wrong on
the way (no key, no server, an HTTP error, a reply without code) is a PlannerError that says
what happened, so a run fails with a sentence rather than a traceback.
"""

from __future__ import annotations

import ast
import os
import re
import time
from pathlib import Path
from urllib.parse import urlparse

import openai

from runtime.planners.base import Codeplan, PlannerError, PlanRequest
from runtime.planners.prompts import PROMPTS_DIR, build_messages

DEFAULT_BASE_URL = "https://api.openai.com/v1"
LOCAL_API_KEY = "not-needed"  # local servers ignore the key, but the client insists on one
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


class OpenAIPlanner:
    """Asks a chat model for a codeplan; records tokens, latency and the raw reply.

    `api_key` falls back to OPENAI_API_KEY and `base_url` to OPENAI_BASE_URL, then OpenAI's
    own URL (which needs a key; a local server gets a dummy one). `timeout_s` is per request,
    `max_retries` the client's own retries (0: one request, so latency means one call),
    `temperature` None leaves it to the server. `prompts_dir` swaps in other prompt files.
    """

    name = "openai"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 timeout_s: float = 60, max_retries: int = 0,
                 temperature: float | None = 0.0,
                 prompts_dir: str | Path | None = None) -> None:
        if not model:
            raise PlannerError("the openai planner needs a model name, e.g. model='gpt-4o-mini'")
        self.model, self.temperature, self.timeout_s = model, temperature, float(timeout_s)
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL)
        self.prompts_dir = PROMPTS_DIR if prompts_dir is None else Path(prompts_dir)
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key and _is_openai(self.base_url):
            raise PlannerError("OPENAI_API_KEY is not set: export it or pass api_key=...; "
                               "for a local server (vLLM, Ollama, llama.cpp) pass base_url=...")
        self.client = openai.OpenAI(base_url=self.base_url, api_key=key or LOCAL_API_KEY,
                                    timeout=self.timeout_s, max_retries=int(max_retries))

    def plan(self, request: PlanRequest) -> Codeplan:
        """One chat completion -> one codeplan; PlannerError when no usable code comes back."""
        messages = build_messages(request, self.prompts_dir)
        started = time.perf_counter()
        response = self._complete(messages)
        latency = time.perf_counter() - started
        if not getattr(response, "choices", None):
            raise PlannerError(f"{self.base_url} returned no choices for model {self.model!r}")
        choice = response.choices[0]
        reply = choice.message.content if choice.message else None
        if not reply:
            raise PlannerError(f"the model's reply has no text "
                               f"(finish_reason={choice.finish_reason!r})")
        source = extract_code(reply)
        if source is None:
            raise PlannerError(f"the model's reply has no code: {_clip(reply)!r}")
        usage = getattr(response, "usage", None)
        return Codeplan(source, planner=self.name, model=response.model or self.model,
                        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                        latency_s=round(latency, 4), reply=reply,
                        notes=f"finish_reason={choice.finish_reason}")

    def _complete(self, messages: list[dict[str, str]]):
        options = {} if self.temperature is None else {"temperature": self.temperature}
        try:
            return self.client.chat.completions.create(model=self.model, messages=messages,
                                                       **options)
        except openai.APIStatusError as e:
            raise PlannerError(f"{self.base_url} answered HTTP {e.status_code}: "
                               f"{_server_message(e)}") from None
        except openai.APITimeoutError:
            raise PlannerError(f"no answer from {self.base_url} within "
                               f"{self.timeout_s:g} s") from None
        except openai.APIConnectionError as e:
            cause = e.__cause__ or e
            raise PlannerError(f"cannot reach {self.base_url}: {cause}") from None
        except openai.OpenAIError as e:
            raise PlannerError(f"openai client error: {e}") from None


def extract_code(reply: str) -> str | None:
    """The codeplan in a reply: the first ```python block, else the first fenced block, else
    the whole reply if it is Python that does something (an import or a call); None if none.

    A fenced block is returned even when it does not parse: the sandbox then reports the syntax
    error, and that feedback is what lets the model fix its code in the next attempt.
    """
    text = _THINK.sub("", reply)
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(text)]
    for lang, body in blocks:
        if lang in ("python", "py", "python3") and body.strip():
            return body.strip() + "\n"
    for _lang, body in blocks:
        if body.strip():
            return body.strip() + "\n"
    if blocks:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    if any(isinstance(n, (ast.Call, ast.Import, ast.ImportFrom)) for n in ast.walk(tree)):
        return text.strip() + "\n"
    return None


def _is_openai(base_url: str) -> bool:
    host = urlparse(base_url).hostname or ""
    return host == "openai.com" or host.endswith(".openai.com")


def _server_message(e: openai.APIStatusError) -> str:
    body = e.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str):
            return error
    return _clip(e.message)


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."
