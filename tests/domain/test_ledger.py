"""A turn's ledger: a line per node and model, summed, priced from the price table."""

from __future__ import annotations

import pytest

from domain.ledger import LedgerLine, add_call, merged, priced, total_cost

PRICES = {"gpt-4.1": (2.0, 8.0), "gpt-4.1-mini": (0.4, 1.6)}


def test_calls_of_one_node_and_model_share_a_line():
    ledger: list[LedgerLine] = []
    add_call(ledger, "act", "gpt-4.1", calls=1, prompt_tokens=1000, completion_tokens=100)
    add_call(ledger, "act", "gpt-4.1", calls=2, prompt_tokens=500, completion_tokens=50, repairs=1)
    add_call(ledger, "reply", "gpt-4.1-mini", calls=1, prompt_tokens=800, completion_tokens=80)
    assert [(x.node, x.model, x.calls, x.prompt_tokens, x.repairs) for x in ledger] == [
        ("act", "gpt-4.1", 3, 1500, 1),
        ("reply", "gpt-4.1-mini", 1, 800, 0),
    ]


def test_lines_are_priced_per_million_tokens_and_an_unknown_model_has_no_price():
    lines = priced(
        [
            LedgerLine(node="act", model="gpt-4.1", prompt_tokens=1_000_000, completion_tokens=0),
            LedgerLine(node="reply", model="gpt-4.1-mini", completion_tokens=500_000),
            LedgerLine(node="think", model="local", prompt_tokens=10, completion_tokens=10),
        ],
        PRICES,
    )
    assert [x.cost_usd for x in lines] == [pytest.approx(2.0), pytest.approx(0.8), None]
    assert total_cost(lines) == pytest.approx(2.8)
    assert total_cost(priced([LedgerLine(node="a", model="local")], PRICES)) is None


def test_merging_turns_sums_their_lines():
    one = [LedgerLine(node="act", model="m", calls=1, prompt_tokens=10, completion_tokens=1)]
    two = [
        LedgerLine(node="act", model="m", calls=2, prompt_tokens=20, completion_tokens=2),
        LedgerLine(node="reply", model="m", calls=1, prompt_tokens=5, completion_tokens=5),
    ]
    assert [(x.node, x.calls, x.prompt_tokens) for x in merged([*one, *two])] == [
        ("act", 3, 30),
        ("reply", 1, 5),
    ]
