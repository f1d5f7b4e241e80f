"""Validate a provider's output against the node contract, with up to two repair attempts."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections import Counter
from typing import Any

from pydantic import BaseModel, ValidationError

from activities.llm.provider import LlmError, LlmProvider, LlmReply, LlmRequest, Usage
from domain.ledger import Price, Prices, price_of
from domain.tokens import CHAT_OVERHEAD, clip, estimate_tokens


class LlmResult(BaseModel):
    """A validated node output and what it cost."""

    output: dict[str, Any]
    model: str
    usage: Usage
    attempts: int
    """1, plus one per repair attempt needed."""
    price: Price | None = None
    """What ``usage`` was charged at (None: the price table has no price for ``model``)."""


def _parse(reply: LlmReply, request: LlmRequest) -> BaseModel:
    """The node contract the reply's answer means; a ValueError says what is wrong."""
    if reply.truncated:
        said = reply.content if isinstance(reply.content, str) else ""
        looping = f", saying {loop!r} over and over" if (loop := repeated(said)) else ""
        again = "saying each thing once, " if looping else ""
        raise ValueError(
            f"the output was cut off at the {request.max_tokens or 'output'}-token "
            f"limit{looping}; answer again, shorter, {again}with every required field"
        )
    content, model = reply.content, request.answer
    if isinstance(content, dict):
        answer = model.model_validate(content)
    else:
        answer = model.model_validate_json(content)
    _finite(answer.model_dump(), "")
    return answer.to_output()


SENTENCE = re.compile(r"[^.!?\n]{12,}?[.!?]")
LOOPED = 3
"""A sentence said this many times in one cut-off output is a loop: at temperature 0 the
1.5B local model wrote "It is not in the inventory or the meal plan for any other day."
until its cap, and its two repairs, told only that it was cut off, did the same."""
LOOP_SHOWN = 120
"""At most this many characters of the looped sentence are quoted in the repair."""


def repeated(text: str) -> str | None:
    """The sentence ``text`` says most often, when it says one ``LOOPED`` times or more
    (a model looping into its cap); None otherwise."""
    counts = Counter(m.group(0).strip() for m in SENTENCE.finditer(text))
    if not counts:
        return None
    sentence, times = counts.most_common(1)[0]
    return sentence[:LOOP_SHOWN] if times >= LOOPED else None


def unlooped(text: str) -> str:
    """``text`` up to the end of the first saying of the sentence it loops on
    (``repeated``), then "…"; ``text`` itself when it loops on none. Shown its own output
    with the loop whole, the 1.5B local model, asked at t=0 to say each thing once, wrote
    the same sentence to its cap twice more ("It is a good choice for a quick dinner.")."""
    loop = repeated(text)
    if loop is None:
        return text
    return text[: text.index(loop) + len(loop)] + " …"


REPAIR_WORDS = 60
"""Estimated tokens of the repair's own words around the error (the provider's message)."""


def _repair(request: LlmRequest, said: str, problem: str) -> LlmRequest:
    """The repair call: ``request`` shown its output ``said`` and what is wrong with it.
    Within a model's window, the output shown and the new answer share what the prompt
    leaves, half each: the shown output is cut to its half (a cut-off answer is as long
    as the whole room), so the repair is never refused as too long."""
    if request.window is None or request.max_tokens is None:
        return dataclasses.replace(request, repair_of=said, repair_error=problem)
    prompt = estimate_tokens(request.system) + estimate_tokens(request.user)
    left = request.window - prompt - estimate_tokens(problem) - REPAIR_WORDS - CHAT_OVERHEAD
    answer = max(1, min(request.max_tokens, left // 2))
    return dataclasses.replace(
        request,
        repair_of=clip(said, max(0, left - answer)),
        repair_error=problem,
        max_tokens=answer,
    )


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


MAX_REPAIRS = 2
"""Repair attempts after the first output, each shown the previous output and its error."""


class LlmGateway:
    def __init__(self, provider: LlmProvider, prices: Prices | None = None) -> None:
        self.provider = provider
        self.prices = prices or {}
        """The price table every call is charged at as it is made (``domain.ledger``)."""

    async def call(self, request: LlmRequest) -> LlmResult:
        """The provider's answer, valid against ``request.answer``, as the node's contract.

        An output that fails validation, or was cut off at the output cap, gets up to
        ``MAX_REPAIRS`` repair attempts, each shown the error; after that a non-retryable
        ``LlmError`` (kind ``invalid_output``) says what was wrong with the last one.
        """
        usage, model = Usage(), ""
        current = request
        for attempt in range(1, MAX_REPAIRS + 2):
            if request.stream is not None:
                request.stream.begin(attempt)
            try:
                reply = await self.provider.complete(current)
            except LlmError as error:  # a refusal, or a failure after outputs were refused
                raise self._charged(error, usage, model, repairs=attempt - 1) from None
            usage, model = usage + reply.usage, reply.model
            try:
                parsed = _parse(reply, request)
            except (ValidationError, ValueError) as error:
                problem = _describe(error)
                said = (
                    reply.content if isinstance(reply.content, str) else json.dumps(reply.content)
                )
                current = _repair(request, unlooped(said) if reply.truncated else said, problem)
                continue
            return LlmResult(
                output=parsed.model_dump(mode="json"),
                model=reply.model,
                usage=usage.model_copy(update={"repairs": attempt - 1}),
                attempts=attempt,
                price=price_of(reply.model, self.prices),
            )
        failed = LlmError(
            f"{request.node}: the model's output failed validation {MAX_REPAIRS + 1} times: "
            f"{problem}",
            kind="invalid_output",
            retryable=False,
        )
        raise self._charged(failed, usage, model, repairs=MAX_REPAIRS)

    def _charged(self, error: LlmError, spent: Usage, model: str, *, repairs: int) -> LlmError:
        """``error`` with what the call cost: the outputs refused before it, the tokens
        of the answer it reports (a refusal), and the price they were charged at."""
        if error.usage is None and not repairs and not model:
            return error  # nothing was answered (a timeout, an HTTP error)
        error.usage = (spent + (error.usage or Usage())).model_copy(update={"repairs": repairs})
        error.model = error.model or model
        error.price = price_of(error.model, self.prices)
        return error


def _describe(error: Exception) -> str:
    if isinstance(error, ValidationError):
        parts = [
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in error.errors()
        ]
        return "; ".join(parts[:8])
    return str(error)
