"""The ``openai`` provider: one chat-completions call per request, structured JSON output.

Any OpenAI-compatible endpoint works (``base_url``). The client runs with ``max_retries=0``:
Temporal owns retries, so every attempt shows in the workflow history, and a failure becomes an
``LlmError`` that says whether another attempt may succeed and, when the server said so, after
how long. The node contract is enforced by the gateway, not here: this provider returns the
model's raw text, even when it is empty.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Mapping
from datetime import UTC
from typing import Any

import openai

from activities.llm.provider import AnswerStream, LlmError, LlmReply, LlmRequest, Usage
from activities.llm.schema import schema_text, strict_schema
from domain.settings import Settings

RETRYABLE_STATUSES = frozenset({408, 409, 429})
"""Plus every 5xx: the statuses where the same request may succeed later."""


class OpenAIProvider:
    name = "openai"

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None,
        model: str,
        mini_model: str,
        timeout: float,
        response_format: str = "json_schema",
        node_models: dict[str, str] | None = None,
        temperature: float | None = None,
    ) -> None:
        self.model = model
        self.temperature = temperature
        self.mini_model = mini_model
        self.response_format = response_format
        self.node_models = dict(node_models or {})
        """Node -> model, over the complexity rule (the eval suite runs one model per node)."""
        self._client = openai.AsyncOpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> OpenAIProvider:
        if settings.openai_api_key is None or not settings.openai_api_key.get_secret_value():
            raise ValueError(
                "the openai provider needs an API key: set ALFRED_OPENAI_API_KEY or OPENAI_API_KEY"
            )
        return cls(
            api_key=settings.openai_api_key.get_secret_value(),
            base_url=settings.openai_base_url,
            model=settings.openai_model,
            mini_model=settings.openai_mini_model,
            timeout=settings.llm_timeout_seconds,
            response_format=settings.openai_response_format,
            node_models=settings.openai_node_models,
            temperature=settings.llm_temperature,
        )

    async def aclose(self) -> None:
        """Close the HTTP connection pool (the worker's shutdown calls this)."""
        await self._client.close()

    async def complete(self, request: LlmRequest) -> LlmReply:
        model = self.node_models.get(request.node) or (
            self.mini_model if request.complexity == "low" else self.model
        )
        arguments: dict[str, Any] = {
            "model": model,
            "messages": _messages(request, self.response_format),
            "response_format": _response_format(request, self.response_format),
        }
        if request.max_tokens:
            arguments["max_tokens"] = request.max_tokens
        if self.temperature is not None:
            arguments["temperature"] = self.temperature
        try:
            if request.stream is not None:
                return await self._streamed(request, request.stream, arguments)
            response = await self._client.chat.completions.create(**arguments)
        except openai.APIStatusError as error:
            raise _status_error(request.node, error) from None
        except openai.APITimeoutError:
            raise LlmError(
                f"{request.node}: the OpenAI request timed out", kind="timeout", retryable=True
            ) from None
        except openai.APIConnectionError as error:
            raise LlmError(
                f"{request.node}: could not reach the OpenAI endpoint: {error.__cause__ or error}",
                kind="connection",
                retryable=True,
            ) from None

        message = response.choices[0].message if response.choices else None
        usage = _usage(response.usage)
        _refused(request, message.refusal if message is not None else None, response.model, usage)
        return LlmReply(
            content=(message.content if message is not None else None) or "",
            truncated=bool(response.choices) and response.choices[0].finish_reason == "length",
            model=response.model,
            usage=usage,
        )

    async def _streamed(
        self, request: LlmRequest, sink: AnswerStream, arguments: dict[str, Any]
    ) -> LlmReply:
        """The same call, streamed: each piece of the answer goes to ``sink`` as it
        arrives; the reply is the whole answer, as without streaming."""
        stream = await self._client.chat.completions.create(
            **arguments, stream=True, stream_options={"include_usage": True}
        )
        parts: list[str] = []
        refusal: list[str] = []
        finish, model, usage = None, str(arguments["model"]), None
        async for chunk in stream:
            model = chunk.model or model
            usage = chunk.usage or usage
            for choice in chunk.choices:
                if choice.delta.content:
                    parts.append(choice.delta.content)
                    sink.raw(choice.delta.content)
                if choice.delta.refusal:
                    refusal.append(choice.delta.refusal)
                finish = choice.finish_reason or finish
        _refused(request, "".join(refusal) or None, model, _usage(usage))
        return LlmReply(
            content="".join(parts), truncated=finish == "length", model=model, usage=_usage(usage)
        )


def _usage(usage: Any) -> Usage:
    """The tokens of OpenAI's ``usage`` (absent: none reported)."""
    return Usage(
        prompt_tokens=usage.prompt_tokens if usage else 0,
        completion_tokens=usage.completion_tokens if usage else 0,
    )


def _refused(request: LlmRequest, refusal: str | None, model: str, usage: Usage) -> None:
    """A refusal fails the call for good; the answer was made, so it carries its cost."""
    if refusal:
        raise LlmError(
            f"{request.node}: the model refused: {refusal}",
            kind="refusal",
            retryable=False,
            usage=usage,
            model=model,
        )


def _response_format(request: LlmRequest, kind: str) -> dict[str, Any]:
    """Strict structured output: the answer's schema, which states every rule the
    gateway checks. JSON mode for servers without it (the schema is in the prompt)."""
    if kind == "json_object":
        return {"type": "json_object"}
    return {
        "type": "json_schema",
        "json_schema": {
            "name": request.node,
            "schema": strict_schema(request.answer),
            "strict": True,
        },
    }


def _system(request: LlmRequest, kind: str) -> str:
    if kind != "json_object":
        return request.system
    return (
        f"{request.system}\n\n# Answer schema\n\nAnswer with one JSON object that "
        f"satisfies this JSON Schema, every property present:\n\n{schema_text(request.answer)}"
    )


def _messages(request: LlmRequest, kind: str = "json_schema") -> list[dict[str, str]]:
    messages = [
        {"role": "system", "content": _system(request, kind)},
        {"role": "user", "content": request.user},
    ]
    if request.repair_of is not None:
        messages += [
            {"role": "assistant", "content": request.repair_of},
            {
                "role": "user",
                "content": (
                    "Your previous output failed validation: "
                    f"{request.repair_error or 'unknown error'}. "
                    "Reply with the corrected JSON object only, and nothing else."
                ),
            },
        ]
    return messages


def _status_error(node: str, error: openai.APIStatusError) -> LlmError:
    status = error.status_code
    detail = _api_message(error)
    message = f"{node}: OpenAI returned HTTP {status}" + (f": {detail}" if detail else "")
    if status in RETRYABLE_STATUSES or status >= 500:
        return LlmError(
            message,
            kind=f"http_{status}",
            retryable=True,
            retry_after=retry_after(error.response.headers),
        )
    return LlmError(message, kind=f"http_{status}", retryable=False)


def _api_message(error: openai.APIStatusError) -> str:
    """The API's own error message; the SDK hands over the body's ``error`` object."""
    body: Any = error.body
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return inner["message"]
    if isinstance(body, str):
        return body[:500]
    return ""


def retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds the server asked us to wait, or None when it did not say.

    ``retry-after-ms`` (milliseconds, OpenAI's own) wins over ``retry-after``, which is either
    seconds or an HTTP date. A date in the past means "now": the result is never negative.
    """
    millis = _number(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # "-0000": RFC 9110 dates are GMT anyway
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return max(0.0, number) if math.isfinite(number) else None
