"""The LLM planner for any OpenAI-compatible chat-completions server.

One client covers OpenAI itself and the local servers people run models with (vLLM, Ollama,
llama.cpp's server), which all speak `POST /v1/chat/completions`. The prompt comes from the
files in `prompts/`; the codeplan is the code block of the reply. Anything that goes wrong on
the way (no key, no server, an HTTP error, a malformed reply, a reply without code) is a
one-line PlannerError that names the server and what happened, so a run fails with a
sentence rather than a traceback. Every call is returned as an *exchange* (messages,
parameters, model, tokens, latency, raw reply) for the run's trace.
"""

from __future__ import annotations

import ast
import os
import re
import time
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlparse

from runtime.planners.base import Codeplan, PlannerError, PlanRequest
from runtime.planners.chat_client import ChatError, ChatReply, post_chat
from runtime.planners.prompts import PROMPTS_DIR, build_messages

DEFAULT_BASE_URL = "https://api.openai.com/v1"
LOCAL_API_KEY = "not-needed"  # local servers ignore the key, but the protocol has one
DEFAULT_TIMEOUT_S = 180.0  # a whole call on one CPU core: cold 1.5B prompt + 300 tokens
DEFAULT_MAX_TOKENS = 400  # a codeplan is 60-200 tokens; more is a reply running on
# The user message's headings: a small model that runs on writes the next example with them.
DEFAULT_STOP = ("\nInstruction:", "\nObjects:", "\nScene:")
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
_FENCE_LINE = re.compile(r"^\s*```+\s*([\w+.-]*)[^`]*$")
_CODE_START = re.compile(r"^(from|import)\s+\w")
# A prose heading at column 0 ("Instruction: ...", "Explanation:") ends the code: it would
# parse as an annotation, but a codeplan never starts a line that way.
_PROSE_HEADING = re.compile(r"^[A-Z][\w-]*( [\w-]+){0,3}:(\s|$)")


class OpenAIPlanner:
    """Asks a chat model for a codeplan; records every call as an exchange.

    `api_key` falls back to OPENAI_API_KEY and `base_url` to OPENAI_BASE_URL, then OpenAI's
    own URL (which needs a key; a local server gets a dummy one). `timeout_s` bounds a whole
    call, retries included; `max_retries` retries 429/5xx answers with backoff. `temperature`
    is for the first codeplan (None leaves it to the server); a recovery codeplan samples at
    `retry_temperature` with a per-attempt seed, so it does not repeat the code that failed.
    `max_tokens` and `stop` end a reply that runs on; `grammar` (a GBNF string, llama.cpp
    only) constrains its shape. A codeplan whose dry run shows a mistake is asked for again up
    to `check_retries` times (-1: no check). `prompts_dir` swaps in other prompt files.
    """

    name = "openai"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S, max_retries: int = 2,
                 temperature: float | None = 0.0, retry_temperature: float | None = 0.7,
                 max_tokens: int | None = DEFAULT_MAX_TOKENS,
                 stop: tuple[str, ...] | list[str] | None = DEFAULT_STOP,
                 grammar: str | None = None, check_retries: int = 2,
                 prompts_dir: str | Path | None = None) -> None:
        if not model:
            raise PlannerError("the openai planner needs a model name, e.g. model='gpt-4o-mini'")
        if not float(timeout_s) > 0:
            raise PlannerError(f"the LLM timeout must be positive, got {timeout_s}")
        self.model, self.timeout_s, self.max_retries = model, float(timeout_s), int(max_retries)
        self.temperature, self.retry_temperature = temperature, retry_temperature
        self.max_tokens, self.stop, self.grammar = max_tokens, list(stop or []), grammar
        self.check_retries = int(check_retries)  # -1: no dry-run check at all
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL)
        self.prompts_dir = PROMPTS_DIR if prompts_dir is None else Path(prompts_dir)
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key and _is_openai(self.base_url):
            raise PlannerError("OPENAI_API_KEY is not set: export it or pass api_key=...; "
                               "for a local server (vLLM, Ollama, llama.cpp) pass base_url=...")
        self.api_key = key or LOCAL_API_KEY

    def plan(self, request: PlanRequest) -> Codeplan:
        """A codeplan for the request. Its dry run (`plan_check`) must show no mistake; else
        the model is asked again, up to `check_retries` times, with the mistake named (the
        last codeplan is returned anyway: the robot and the recovery loop take it from there).
        PlannerError, carrying the exchanges, when no code comes back."""
        from runtime.planners.plan_check import check_plan

        exchanges: list[dict] = []
        current = request
        for ask in range(self.check_retries + 1):
            source, reply = self._ask(current, exchanges)
            problem = check_plan(source, request) if self.check_retries >= 0 else None
            if problem is None or ask == self.check_retries:
                return self._codeplan(source, reply, exchanges, problem)
            exchanges[-1]["rejected"] = problem
            current = replace(request, attempt=request.attempt + ask + 1,
                              previous=[*request.previous, source],
                              feedback=[*request.feedback, f"a dry run, before anything "
                                        f"moved, showed that {problem}"])
        raise AssertionError("unreachable")

    def _ask(self, request: PlanRequest, exchanges: list[dict]) -> tuple[str, ChatReply]:
        """One codeplan from the model: a reply with no code is asked for once more
        (sampled); PlannerError when none comes back."""
        messages = build_messages(request, self.prompts_dir)
        for extra in range(2):
            body = self.request_body(messages, request.attempt + extra)
            reply = self._call(body, request.attempt, exchanges)
            source = extract_code(reply.content)
            if source is not None:
                exchanges[-1]["source"] = with_imports(source)  # what this reply gave
                return exchanges[-1]["source"], reply
            exchanges[-1]["error"] = "the reply has no code"
        raise PlannerError(f"{self.base_url}: the model's reply has no code: "
                           f"{_clip(reply.content)!r}", exchanges)

    def complete(self, messages: list[dict[str, str]], max_tokens: int,
                 grammar: str | None = None, temperature: float = 0.0,
                 seed: int | None = None) -> tuple[str, dict]:
        """One chat completion that is not a codeplan (preconditions, a step, a critic's
        score): its text and its exchange (for the trace). PlannerError on any failure."""
        body: dict = {"model": self.model, "messages": messages, "max_tokens": max_tokens,
                      "temperature": temperature}
        if seed is not None:
            body["seed"] = seed
        if grammar:
            body["grammar"] = grammar
        exchanges: list[dict] = []
        reply = self._call(body, 0, exchanges)
        return reply.content, exchanges[0]

    def request_body(self, messages: list[dict[str, str]], attempt: int) -> dict:
        """The JSON body of one call. Why the sampling on later attempts: at temperature 0 a
        recovery request returned the failed code byte for byte (5 of 6 episodes)."""
        body: dict = {"model": self.model, "messages": messages}
        temperature = self.temperature if attempt == 0 else self.retry_temperature
        if temperature is not None:
            body["temperature"] = temperature
        if attempt > 0 and self.retry_temperature:
            body["seed"] = attempt
        if self.max_tokens:
            body["max_tokens"] = self.max_tokens
        if self.stop:
            body["stop"] = self.stop
        if self.grammar:
            body["grammar"] = self.grammar
        return body

    def _call(self, body: dict, attempt: int, exchanges: list[dict]) -> ChatReply:
        """post_chat, recorded as an exchange whatever happens."""
        exchange = {"attempt": attempt, "server": self.base_url, "model": self.model,
                    "params": {k: v for k, v in body.items() if k != "messages"},
                    "messages": body["messages"]}
        exchanges.append(exchange)
        started = time.perf_counter()
        try:
            reply = post_chat(self.base_url, body, self.api_key, self.timeout_s,
                              self.max_retries)
        except ChatError as e:
            exchange.update(latency_s=round(time.perf_counter() - started, 4), error=str(e),
                            status=e.status, tries=e.tries, prompt_tokens=0,
                            completion_tokens=0, reply=None)
            raise PlannerError(str(e), exchanges) from None
        exchange.update(latency_s=round(time.perf_counter() - started, 4), status=reply.status,
                        tries=reply.tries, reply_model=reply.model,
                        prompt_tokens=reply.prompt_tokens,
                        completion_tokens=reply.completion_tokens,
                        finish_reason=reply.finish_reason, reply=reply.content)
        return reply

    def _codeplan(self, source: str, reply: ChatReply, exchanges: list[dict],
                  problem: str | None) -> Codeplan:
        notes = f"finish_reason={reply.finish_reason}" + (
            f"; dry run still shows: {problem}" if problem else "")
        return Codeplan(source, planner=self.name, model=reply.model or self.model,
                        prompt_tokens=sum(x["prompt_tokens"] for x in exchanges),
                        completion_tokens=sum(x["completion_tokens"] for x in exchanges),
                        latency_s=round(sum(x["latency_s"] for x in exchanges), 4),
                        reply=reply.content, notes=notes, exchanges=exchanges)


def extract_code(reply: str) -> str | None:
    """The codeplan in a reply: the first ```python block, else the first fenced block, else
    the leading Python of an unfenced reply; None if there is none.

    Reply shapes seen from real models: a fenced block with prose around it; several blocks;
    `<think>` reasoning first; code with no opening fence whose closing fence is followed by a
    new made-up example (the old pairing of fences returned the prose between them); code that
    runs on into prose or a new example; a block cut off by max_tokens or a stop sequence. A
    fenced block is returned even when it does not parse: the sandbox then reports the syntax
    error, and that feedback is what lets the model fix its code in the next attempt.
    """
    text = _THINK.sub("", reply)
    blocks = _fenced_blocks(text.splitlines())
    for lang, body in blocks:
        if lang in ("python", "py", "python3") and body.strip():
            return body.strip() + "\n"
    for _lang, body in blocks:
        if body.strip():
            return body.strip() + "\n"
    if blocks:
        return None
    return _leading_code(text.splitlines())


def with_imports(source: str) -> str:
    """The codeplan with the import line of every primitive module it uses but does not import.

    Why: the prompt tells the model the imports are made for it (about 35 tokens, 3 s on one
    core, saved per call), and a small model dropped a module's import when an example did not
    need it. Code that does not parse is left as it is, for the sandbox to report.
    """
    import primitives

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return source
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    header = [f"from {module} import {', '.join(fns)}"
              for module, fns in primitives.sandbox_api().items()
              if module not in imported and used & set(fns)]
    return "\n".join(header) + ("\n\n" if header else "") + source


def _fenced_blocks(lines: list[str]) -> list[tuple[str, str]]:
    """(language, body) of every fenced block, in order. A bare fence that closes code written
    with no opening fence makes that code a block; an unclosed block runs to the end."""
    blocks: list[tuple[str, str]] = []
    outside: list[str] = []
    lang: str | None = None  # None: outside a block
    body: list[str] = []
    for line in lines:
        m = _FENCE_LINE.match(line)
        if lang is None:
            if not m:
                outside.append(line)
            elif not m.group(1) and _leading_code(outside) is not None:
                blocks.append(("python", _leading_code(outside)))
            else:
                lang, body = m.group(1).lower(), []
            if m:
                outside = []
        elif m:
            blocks.append((lang, "\n".join(body)))
            lang, body = (m.group(1).lower(), []) if m.group(1) else (None, [])
        else:
            body.append(line)
    if lang is not None:
        blocks.append((lang, "\n".join(body)))
    return blocks


def _leading_code(lines: list[str]) -> str | None:
    """The longest run of lines, from the first import (or the top), that parses as Python
    and does something (an import or a call); None when there is none."""
    start = next((i for i, line in enumerate(lines) if _CODE_START.match(line)), 0)
    stop = next((i for i in range(start, len(lines)) if _PROSE_HEADING.match(lines[i])),
                len(lines))
    for end in range(stop, start, -1):
        text = "\n".join(lines[start:end]).strip()
        if not text:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        if any(isinstance(n, (ast.Call, ast.Import, ast.ImportFrom)) for n in ast.walk(tree)):
            return text + "\n"
    return None


def _is_openai(base_url: str) -> bool:
    host = urlparse(base_url).hostname or ""
    return host == "openai.com" or host.endswith(".openai.com")


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."
