"""A turn's ledger: a line per node, model and price, each call charged when it is made at
the price table's entry for the model that answered; totals say what they leave out."""

from __future__ import annotations

import pytest

from domain.ledger import LedgerLine, Price, add_call, cost, merged, price_of

PRICES = {"gpt-4.1": (2.0, 8.0), "gpt-4.1-mini": (0.4, 1.6)}
FULL = Price(listed_as="gpt-4.1", prompt_usd=2.0, completion_usd=8.0)
MINI = Price(listed_as="gpt-4.1-mini", prompt_usd=0.4, completion_usd=1.6)


def test_a_dated_model_name_is_priced_as_its_model():
    assert price_of("gpt-4.1-2025-04-14", PRICES) == FULL
    assert price_of("gpt-4.1-mini-2025-04-14", PRICES) == MINI
    assert price_of("gpt-4.1", PRICES) == FULL
    assert price_of("gpt-4o-mini-2024-07-18", {"gpt-4o-mini": (0.15, 0.6)}) is not None
    assert price_of("gpt-3.5-turbo-0125", {"gpt-3.5-turbo": (0.5, 1.5)}) is not None


def test_a_model_is_never_priced_as_a_shorter_name():
    only_full = {"gpt-4.1": (2.0, 8.0)}
    assert price_of("gpt-4.1-mini-2025-04-14", only_full) is None
    assert price_of("gpt-4.1-mini", only_full) is None
    assert price_of("gpt-4.1-preview", only_full) is None


def test_a_dated_name_listed_in_the_table_has_its_own_price():
    table = {**PRICES, "gpt-4.1-2025-04-14": (1.0, 4.0)}
    assert price_of("gpt-4.1-2025-04-14", table) == Price(
        listed_as="gpt-4.1-2025-04-14", prompt_usd=1.0, completion_usd=4.0
    )


def test_calls_of_one_node_model_and_price_share_a_line_with_what_they_cost():
    ledger: list[LedgerLine] = []
    add_call(
        ledger, "act", "gpt-4.1-x", price=FULL, calls=1, prompt_tokens=1000, completion_tokens=100
    )
    add_call(
        ledger,
        "act",
        "gpt-4.1-x",
        price=FULL,
        calls=2,
        prompt_tokens=500,
        completion_tokens=50,
        repairs=1,
    )
    add_call(ledger, "reply", "m", price=MINI, calls=1, prompt_tokens=800, completion_tokens=80)
    assert [(x.node, x.model, x.calls, x.prompt_tokens, x.repairs) for x in ledger] == [
        ("act", "gpt-4.1-x", 3, 1500, 1),
        ("reply", "m", 1, 800, 0),
    ]
    assert ledger[0].price == FULL
    assert ledger[0].cost_usd == pytest.approx((1500 * 2 + 150 * 8) / 1e6)


def test_calls_charged_at_another_price_get_a_line_of_their_own():
    cheaper = FULL.model_copy(update={"prompt_usd": 1.0})
    ledger: list[LedgerLine] = []
    add_call(ledger, "act", "gpt-4.1", price=FULL, calls=1, prompt_tokens=1000, completion_tokens=0)
    add_call(
        ledger, "act", "gpt-4.1", price=cheaper, calls=1, prompt_tokens=1000, completion_tokens=0
    )
    assert [x.cost_usd for x in ledger] == [pytest.approx(0.002), pytest.approx(0.001)]


def test_a_failed_calls_tokens_are_on_the_ledger_and_in_the_total():
    ledger: list[LedgerLine] = []
    add_call(ledger, "act", "m", price=FULL, calls=1, prompt_tokens=1000, completion_tokens=0)
    add_call(
        ledger,
        "act",
        "m",
        price=FULL,
        calls=3,
        prompt_tokens=3000,
        completion_tokens=0,
        failed=True,
    )
    assert (ledger[0].calls, ledger[0].failed_calls, ledger[0].prompt_tokens) == (4, 3, 4000)
    assert cost(ledger).cost_usd == pytest.approx(4000 * 2 / 1e6)


def test_a_total_over_unpriced_calls_says_it_is_partial():
    ledger: list[LedgerLine] = []
    add_call(
        ledger, "act", "gpt-4.1", price=FULL, calls=1, prompt_tokens=1_000_000, completion_tokens=0
    )
    add_call(
        ledger, "reply", "mystery", price=None, calls=1, prompt_tokens=10, completion_tokens=10
    )
    total = cost(ledger)
    assert total.cost_usd == pytest.approx(2.0)
    assert total.unpriced_models == ["mystery"]


def test_a_total_with_no_price_at_all_has_no_cost_and_an_empty_one_costs_nothing():
    ledger: list[LedgerLine] = []
    add_call(
        ledger, "reply", "mystery", price=None, calls=1, prompt_tokens=10, completion_tokens=10
    )
    assert cost(ledger).model_dump() == {"cost_usd": None, "unpriced_models": ["mystery"]}
    assert cost([]).model_dump() == {"cost_usd": 0.0, "unpriced_models": []}


def test_a_line_stored_before_calls_were_charged_reads_as_unpriced():
    stored = {
        "node": "act",
        "model": "gpt-4.1",
        "calls": 1,
        "prompt_tokens": 10,
        "completion_tokens": 1,
        "repairs": 0,
    }
    line = LedgerLine.model_validate(stored)
    assert (line.price, line.cost_usd) == (None, None)
    assert cost([line]).unpriced_models == ["gpt-4.1"]


def test_merging_turns_sums_their_lines_and_recorded_costs_without_pricing_again():
    one = [LedgerLine(node="act", model="m", price=FULL, calls=1, prompt_tokens=10, cost_usd=0.5)]
    two = [
        LedgerLine(node="act", model="m", price=FULL, calls=2, prompt_tokens=20, cost_usd=0.25),
        LedgerLine(node="reply", model="m", calls=1, prompt_tokens=5, completion_tokens=5),
    ]
    lines = merged([*one, *two])
    assert [(x.node, x.calls, x.prompt_tokens, x.cost_usd) for x in lines] == [
        ("act", 3, 30, 0.75),
        ("reply", 1, 5, None),
    ]
