"""Validate a provider's output against the node contract, with one repair attempt."""

from __future__ import annotations

import dataclasses
import json
import math
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
        parsed = model.model_validate(content)
    else:
        parsed = model.model_validate_json(content)
    _finite(parsed.model_dump(), "")
    return parsed


def _finite(value: Any, where: str) -> None:
    """Refuse NaN and infinities anywhere in an output: JSON mode would turn them into
    null on their way to the activities (a NaN quantity saved as "no quantity")."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where or '(root)'}: {value} is not a number; use a finite number")
    if isinstance(value, dict):
        for key, item in value.items():
            _finite(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _finite(item, f"{where}[{i}]")


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
