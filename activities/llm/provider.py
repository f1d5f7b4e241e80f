"""The LLM gateway's vocabulary: one request in, one response out, typed errors.

Providers (``openai``, ``script``, the offline ``demo`` model) implement ``LlmProvider``.
They do not retry: Temporal owns retries so every attempt is visible in the history. They
raise ``LlmError`` with ``retryable`` set, and the activity turns that into an
ApplicationError (retryable with the provider's retry-after as the next delay, or not).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel

from domain.answers import Answer
from domain.ledger import Price


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    repairs: int = 0
    """Model outputs that failed validation and were asked for again (their tokens count)."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            repairs=self.repairs + other.repairs,
        )


class AnswerStream(Protocol):
    """Where a provider sends the answer's text as the model writes it (``activities.
    streaming``): ``begin`` before each take (the first, and each repair), then ``raw``
    with each piece of the answer's JSON."""

    def begin(self, take: int) -> None: ...

    def raw(self, delta: str) -> None: ...


STREAM_CHUNK = 24
"""Characters per piece when a provider that has the whole answer at once streams it."""


def stream_whole(request: LlmRequest, content: str | dict[str, Any]) -> None:
    """Send a whole answer to ``request.stream`` in pieces, as a streaming model would."""
    if request.stream is None:
        return
    text = content if isinstance(content, str) else json.dumps(content)
    for start in range(0, len(text), STREAM_CHUNK):
        request.stream.raw(text[start : start + STREAM_CHUNK])


@dataclass(frozen=True)
class LlmRequest:
    """One structured-output call: prompts in, an ``answer`` expected, read into the node's
    contract (``Answer.to_output``)."""

    node: str
    """Node name (``understand``, ``think``, ``act``, ...): see ``domain.nodes.NODE_OUTPUTS``."""
    system: str
    user: str
    answer: type[Answer]
    """What the model must answer (``domain.answers.answer_model``): its schema is sent."""
    complexity: str = "medium"
    """``low`` picks the small model, ``medium``/``high`` the full one (seed 004 §8)."""
    step: int | None = None
    """Act step index, for the script provider's matching."""
    template: str = ""
    version: str = ""
    repair_of: str | None = None
    """The previous, invalid output when this call is the one repair attempt."""
    repair_error: str | None = None
    max_tokens: int | None = None
    """The node's output cap (``domain.nodes.output_cap``), or less to fit the model's
    window; providers that can, send it."""
    window: int | None = None
    """The model's context window (tokens), when set: a repair fits its prompt to it."""
    stream: AnswerStream | None = field(default=None, compare=False)
    """When set, the provider sends the answer here as it comes (a node whose text the
    user reads as it is written: Reply, cook, brainstorm)."""
    facts: BaseModel | None = field(default=None, compare=False, repr=False)
    """The node's request model itself, for a provider that reasons from its structure
    rather than from the prompt (the offline demo model). Other providers never read it;
    it is never serialized or sent anywhere."""
    shown: Any = field(default=None, compare=False, repr=False)
    """The registry (``SessionIdRegistry``) the node's prompt showed, for the same provider
    and on the same terms as ``facts``."""


@dataclass(frozen=True)
class LlmReply:
    """What a provider returns: the raw output (JSON text or an already-parsed object)."""

    content: str | dict[str, Any]
    model: str
    usage: Usage
    truncated: bool = False
    """The model stopped at the output cap (``finish_reason: length``): the output is cut off."""


class LlmError(Exception):
    """A provider failure. ``retryable`` says whether another attempt may succeed."""

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        retryable: bool,
        retry_after: float | None = None,
        usage: Usage | None = None,
        model: str = "",
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable
        self.retry_after = retry_after
        self.usage = usage
        """What the failed call cost (the outputs that were refused, and their repairs)."""
        self.model = model
        """The model that answered, when one did (a refusal, outputs refused)."""
        self.price: Price | None = None
        """What ``usage`` was charged at (``LlmGateway``)."""


class LlmProvider(Protocol):
    name: str

    async def complete(self, request: LlmRequest) -> LlmReply: ...
