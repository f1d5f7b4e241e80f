"""What a turn's model calls cost: tokens by node and model, priced by a table in settings
(``ALFRED_EVAL_PRICES``: USD per million prompt and completion tokens, by model)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pydantic import BaseModel

Prices = Mapping[str, tuple[float, float]]


class LedgerLine(BaseModel):
    node: str
    model: str
    calls: int = 0
    """Requests the model answered (repairs included)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    repairs: int = 0
    cost_usd: float | None = None
    """Filled by ``priced``; None for a model the price table does not list."""


def add_call(
    ledger: list[LedgerLine],
    node: str,
    model: str,
    *,
    calls: int,
    prompt_tokens: int,
    completion_tokens: int,
    repairs: int = 0,
) -> None:
    """Count a call on the ledger's line for ``node`` and ``model`` (in place)."""
    line = next((x for x in ledger if x.node == node and x.model == model), None)
    if line is None:
        line = LedgerLine(node=node, model=model)
        ledger.append(line)
    line.calls += calls
    line.prompt_tokens += prompt_tokens
    line.completion_tokens += completion_tokens
    line.repairs += repairs


def merged(lines: Iterable[LedgerLine]) -> list[LedgerLine]:
    """One line per node and model, summed, in first-seen order."""
    ledger: list[LedgerLine] = []
    for x in lines:
        add_call(
            ledger,
            x.node,
            x.model,
            calls=x.calls,
            prompt_tokens=x.prompt_tokens,
            completion_tokens=x.completion_tokens,
            repairs=x.repairs,
        )
    return ledger


def priced(lines: Iterable[LedgerLine], prices: Prices) -> list[LedgerLine]:
    """Copies of ``lines`` with their cost."""
    out = []
    for x in lines:
        price = prices.get(x.model)
        cost = None
        if price is not None:
            cost = (x.prompt_tokens * price[0] + x.completion_tokens * price[1]) / 1_000_000
        out.append(x.model_copy(update={"cost_usd": cost}))
    return out


def total_cost(lines: Iterable[LedgerLine]) -> float | None:
    """The priced lines' sum; None when no line has a price."""
    costs = [x.cost_usd for x in lines if x.cost_usd is not None]
    return sum(costs) if costs else None
