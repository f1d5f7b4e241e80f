"""A model call that fails for good still cost what the model answered: its
ApplicationError carries the tokens, the model that answered and the price they were
charged at, for the turn's ledger; what runs recorded before carried (tokens) still reads."""

from __future__ import annotations

from activities.failures import to_application_error
from activities.llm.provider import LlmError, Usage
from activities.payloads import FailedCallCost
from domain.ledger import Price

PRICE = Price(listed_as="gpt-4.1", prompt_usd=2.0, completion_usd=8.0)


def test_a_failed_calls_error_carries_its_tokens_model_and_price():
    error = LlmError("act: refused", kind="refusal", retryable=False, model="gpt-4.1-2025-04-14")
    error.usage, error.price = Usage(prompt_tokens=30, completion_tokens=4, repairs=1), PRICE
    failure = to_application_error(error)
    cost = FailedCallCost.model_validate(failure.details[0])
    assert cost == FailedCallCost(
        prompt_tokens=30, completion_tokens=4, repairs=1, model="gpt-4.1-2025-04-14", price=PRICE
    )
    assert failure.type == "refusal" and failure.non_retryable


def test_a_call_that_cost_nothing_carries_no_details():
    failure = to_application_error(LlmError("timed out", kind="timeout", retryable=True))
    assert failure.details == ()


def test_what_runs_recorded_before_carried_reads_as_tokens_without_a_price():
    cost = FailedCallCost.model_validate({"prompt_tokens": 5, "completion_tokens": 1, "repairs": 2})
    assert (cost.prompt_tokens, cost.repairs, cost.model, cost.price) == (5, 2, "", None)
