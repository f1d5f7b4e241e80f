"""A local server that speaks OpenAI's chat-completions protocol, for testing the real client.

Tests script the responses, in order, then point ``OpenAIProvider`` at ``base_url``::

    with FakeOpenAI() as fake:
        fake.reply('{"response": "Hi"}')
        fake.fail(429, "Slow down", headers={"retry-after": "7"})
        ...
        fake.requests[0].body["model"]

Each POST to ``/v1/chat/completions`` consumes one scripted response; with none left it answers
500 with a message saying so. The server runs uvicorn in a background thread on a socket bound
to 127.0.0.1 port 0, so nothing leaves loopback and parallel runs never collide.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

SNAPSHOT = "-2025-04-14"
"""The date OpenAI appends to a model's name in its answers (``gpt-4.1-2025-04-14``)."""


def dated(body: dict[str, Any]) -> str:
    """The model a real endpoint says answered: the requested one's dated snapshot."""
    return f"{body.get('model', 'fake-model')}{SNAPSHOT}"


@dataclass(frozen=True)
class ReceivedRequest:
    body: dict[str, Any]
    headers: dict[str, str]
    """Lower-cased header names."""


@dataclass(frozen=True)
class _Success:
    content: str | None
    model: str | None
    usage: tuple[int, int] | None
    refusal: str | None
    finish_reason: str
    delay: float


@dataclass(frozen=True)
class _Failure:
    status: int
    message: str
    type: str
    code: str | None
    headers: dict[str, str] = field(default_factory=dict)


class FakeOpenAI:
    """The fake endpoint: a context manager that starts and stops the server thread."""

    def __init__(self) -> None:
        self.requests: list[ReceivedRequest] = []
        self._script: deque[_Success | _Failure] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._socket: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""
        self.chunk_size = 8
        """Characters per streamed chunk (a request with ``stream: true``)."""

    # --- scripting -----------------------------------------------------------------------

    def reply(
        self,
        content: str | None,
        *,
        model: str | None = None,
        prompt_tokens: int = 11,
        completion_tokens: int = 7,
        usage: bool = True,
        refusal: str | None = None,
        finish_reason: str = "stop",
        delay: float = 0.0,
    ) -> None:
        """Queue a 200 chat.completion, sent after ``delay`` seconds.

        ``model`` defaults to the dated snapshot of the model the request named, as the
        real API answers (``gpt-4.1`` -> ``gpt-4.1-2025-04-14``).
        """
        self._push(
            _Success(
                content=content,
                model=model,
                usage=(prompt_tokens, completion_tokens) if usage else None,
                refusal=refusal,
                finish_reason=finish_reason,
                delay=delay,
            )
        )

    def fail(
        self,
        status: int,
        message: str,
        *,
        type: str = "api_error",
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Queue an error response with OpenAI's ``{"error": {...}}`` body."""
        self._push(_Failure(status, message, type, code, dict(headers or {})))

    def _push(self, item: _Success | _Failure) -> None:
        with self._lock:
            self._script.append(item)

    @property
    def pending(self) -> int:
        """Scripted responses not consumed yet."""
        with self._lock:
            return len(self._script)

    # --- the protocol --------------------------------------------------------------------

    def _app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def chat_completions(request: Request) -> JSONResponse:
            body = await request.json()
            with self._lock:
                self.requests.append(
                    ReceivedRequest(
                        body=body, headers={k.lower(): v for k, v in request.headers.items()}
                    )
                )
                scripted = self._script.popleft() if self._script else None
            if scripted is None:
                scripted = _Failure(
                    500, "fake_openai: no scripted response left", "server_error", None
                )
            if isinstance(scripted, _Failure):
                return JSONResponse(
                    {
                        "error": {
                            "message": scripted.message,
                            "type": scripted.type,
                            "param": None,
                            "code": scripted.code,
                        }
                    },
                    status_code=scripted.status,
                    headers=scripted.headers,
                )
            if scripted.delay:
                await asyncio.sleep(scripted.delay)
            if body.get("stream"):
                return StreamingResponse(
                    self._chunks(scripted, body), media_type="text/event-stream"
                )
            return JSONResponse(self._completion(scripted, body))

        return app

    def _completion(self, scripted: _Success, body: dict[str, Any]) -> dict[str, Any]:
        completion: dict[str, Any] = {
            "id": f"chatcmpl-fake{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": scripted.model or dated(body),
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": scripted.content,
                        "refusal": scripted.refusal,
                    },
                    "logprobs": None,
                    "finish_reason": scripted.finish_reason,
                }
            ],
        }
        if scripted.usage is not None:
            prompt, completion_tokens = scripted.usage
            completion["usage"] = {
                "prompt_tokens": prompt,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt + completion_tokens,
            }
        return completion

    async def _chunks(self, scripted: _Success, body: dict[str, Any]):
        """The completion as ``chat.completion.chunk`` server-sent events, a few characters
        each, then the finish reason, the usage and ``[DONE]`` (OpenAI's stream format)."""
        base = {
            "id": f"chatcmpl-fake{next(self._ids)}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": scripted.model or dated(body),
        }

        def event(choices: list[dict[str, Any]], **extra: Any) -> str:
            return f"data: {json.dumps({**base, 'choices': choices, **extra})}\n\n"

        content = scripted.content or ""
        for start in range(0, len(content), self.chunk_size):
            piece = content[start : start + self.chunk_size]
            yield event([{"index": 0, "delta": {"content": piece}, "finish_reason": None}])
            await asyncio.sleep(0)
        if scripted.refusal:
            refusal = {"refusal": scripted.refusal}
            yield event([{"index": 0, "delta": refusal, "finish_reason": None}])
        yield event([{"index": 0, "delta": {}, "finish_reason": scripted.finish_reason}])
        if scripted.usage is not None:
            prompt, completion = scripted.usage
            usage = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
            yield event([], usage=usage)
        yield "data: [DONE]\n\n"

    # --- lifecycle -----------------------------------------------------------------------

    def start(self, *, startup_timeout: float = 10.0) -> FakeOpenAI:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        host, port = sock.getsockname()
        config = uvicorn.Config(
            self._app(),
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
        )
        self._socket = sock
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="fake-openai", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + startup_timeout
        while not self._accepting(host, port):
            if not self._thread.is_alive():
                raise RuntimeError("fake OpenAI server exited during startup")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"fake OpenAI server not accepting after {startup_timeout}s")
            time.sleep(0.01)
        self.base_url = f"http://{host}:{port}/v1"
        return self

    def _accepting(self, host: str, port: int) -> bool:
        # ``started`` flips once uvicorn's listener exists; the connect proves it accepts.
        if self._server is None or not self._server.started:
            return False
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
            if self._thread.is_alive():
                raise RuntimeError("fake OpenAI server did not stop within 10s")
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
