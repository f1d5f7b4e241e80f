"""Validate a provider's output against the node contract, with one repair attempt."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from pydantic import BaseModel, ValidationError

from activities.llm.base import LlmError, LlmProvider, LlmRequest, Usage


class LlmResult(BaseModel):
    """A validated node output and what it cost."""

    output: dict[str, Any]
    model: str
    usage: Usage
    attempts: int
    """1, or 2 when the repair attempt was needed."""


def _parse(content: str | dict[str, Any], model: type[BaseModel]) -> BaseModel:
    if isinstance(content, dict):
        return model.model_validate(content)
    return model.model_validate_json(content)


class LlmGateway:
    def __init__(self, provider: LlmProvider) -> None:
        self.provider = provider

    async def call(self, request: LlmRequest) -> LlmResult:
        """The provider's output as a valid instance of ``request.output_model``.

        An output that fails validation gets exactly one repair attempt, shown the error;
        a second failure raises a non-retryable ``LlmError`` (kind ``invalid_output``).
        """
        reply = await self.provider.complete(request)
        usage = reply.usage
        try:
            parsed = _parse(reply.content, request.output_model)
            return LlmResult(
                output=parsed.model_dump(mode="json"), model=reply.model, usage=usage, attempts=1
            )
        except (ValidationError, ValueError) as first:
            repair = dataclasses.replace(
                request,
                repair_of=reply.content
                if isinstance(reply.content, str)
                else json.dumps(reply.content),
                repair_error=_describe(first),
            )
        reply = await self.provider.complete(repair)
        usage = usage + reply.usage
        try:
            parsed = _parse(reply.content, request.output_model)
        except (ValidationError, ValueError) as second:
            raise LlmError(
                f"{request.node}: the model's output failed validation twice: {_describe(second)}",
                kind="invalid_output",
                retryable=False,
            ) from None
        return LlmResult(
            output=parsed.model_dump(mode="json"), model=reply.model, usage=usage, attempts=2
        )


def _describe(error: Exception) -> str:
    if isinstance(error, ValidationError):
        parts = [
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in error.errors()
        ]
        return "; ".join(parts[:8])
    return str(error)
