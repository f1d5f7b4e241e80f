"""What a turn's model calls cost: a ledger line per node, model and price.

Each call is charged when it is made, at the price table of the worker that made it
(``ALFRED_EVAL_PRICES``: USD per million prompt and completion tokens, by model), and the
line keeps the price it was charged at. Reads sum what was charged and never price again:
a new price table prices the calls made after it, not the ones before.

A line charged at no price (the table has no entry for the model, or the turn was stored
before calls recorded their price) has no known cost, and a total over it says so
(``Cost.unpriced_models``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, Field

Prices = Mapping[str, tuple[float, float]]

DATE_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$")
"""How providers name a model's dated snapshot: ``gpt-4.1-2025-04-14``,
``claude-3-5-sonnet-20241022``, ``gpt-3.5-turbo-0125``."""


class Price(BaseModel):
    """The price a call was charged at: the price table's entry for the model."""

    listed_as: str
    """The table's name for the model (``gpt-4.1`` for ``gpt-4.1-2025-04-14``)."""
    prompt_usd: float
    """Per million prompt tokens."""
    completion_usd: float
    """Per million completion tokens."""

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.prompt_usd + completion_tokens * self.completion_usd) / 1e6


def price_of(model: str, prices: Prices) -> Price | None:
    """The table's price for the model a provider answered with: its own name, else its
    name without the date suffix (OpenAI answers ``gpt-4.1-2025-04-14`` when asked for
    ``gpt-4.1``). None when neither is listed: never a shorter name's price, so
    ``gpt-4.1-mini-2025-04-14`` is ``gpt-4.1-mini`` or unpriced, never ``gpt-4.1``."""
    for name in (model, DATE_SUFFIX.sub("", model)):
        if name in prices:
            prompt, completion = prices[name]
            return Price(listed_as=name, prompt_usd=prompt, completion_usd=completion)
    return None


class LedgerLine(BaseModel):
    node: str
    model: str
    """The model that answered, as the provider named it."""
    price: Price | None = None
    """What its calls were charged at when they were made; None: no price."""
    calls: int = 0
    """Requests the model answered (repairs and failed calls included)."""
    failed_calls: int = 0
    """Of ``calls``, the requests of node calls that failed for good (outputs refused
    after repairs, a refusal): they were answered, so their tokens count."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    repairs: int = 0
    cost_usd: float | None = None
    """What its calls cost at ``price`` (None without one)."""


def add_call(
    ledger: list[LedgerLine],
    node: str,
    model: str,
    *,
    price: Price | None,
    calls: int,
    prompt_tokens: int,
    completion_tokens: int,
    repairs: int = 0,
    failed: bool = False,
) -> None:
    """Charge a node call at ``price`` on the ledger's line for its node, model and price
    (in place). A ``failed`` call's requests count as ``failed_calls`` as well."""
    cost = price.cost(prompt_tokens, completion_tokens) if price is not None else None
    _count(
        ledger,
        LedgerLine(
            node=node,
            model=model,
            price=price,
            calls=calls,
            failed_calls=calls if failed else 0,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            repairs=repairs,
            cost_usd=cost,
        ),
    )


def _count(ledger: list[LedgerLine], x: LedgerLine) -> None:
    line = next(
        (y for y in ledger if (y.node, y.model, y.price) == (x.node, x.model, x.price)), None
    )
    if line is None:
        ledger.append(x.model_copy())
        return
    line.calls += x.calls
    line.failed_calls += x.failed_calls
    line.prompt_tokens += x.prompt_tokens
    line.completion_tokens += x.completion_tokens
    line.repairs += x.repairs
    if x.cost_usd is not None:
        line.cost_usd = (line.cost_usd or 0.0) + x.cost_usd


def merged(lines: Iterable[LedgerLine]) -> list[LedgerLine]:
    """One line per node, model and price, summed (their recorded costs too), in
    first-seen order."""
    ledger: list[LedgerLine] = []
    for x in lines:
        _count(ledger, x)
    return ledger


class Cost(BaseModel):
    """What a set of calls cost, and whether that is all of it."""

    cost_usd: float | None = None
    """The sum of what the priced calls were charged; None when calls were made and
    none of them had a price. Partial when ``unpriced_models`` is not empty."""
    unpriced_models: list[str] = Field(default_factory=list)
    """Models whose calls were charged at no price: ``cost_usd`` leaves them out."""


def cost(lines: Iterable[LedgerLine]) -> Cost:
    """The lines' recorded costs summed, with the models left out for want of a price."""
    total, priced, unpriced = 0.0, False, []
    for x in lines:
        if x.cost_usd is None:
            if x.model not in unpriced:
                unpriced.append(x.model)
        else:
            total, priced = total + x.cost_usd, True
    return Cost(cost_usd=total if priced or not unpriced else None, unpriced_models=unpriced)
