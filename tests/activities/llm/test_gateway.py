"""The gateway: a model output with NaN or an infinity is invalid (repaired, never saved
as null)."""

from __future__ import annotations

import pytest

from activities.llm.gateway import LlmGateway
from activities.llm.provider import LlmError, LlmRequest
from activities.llm.script_provider import ScriptProvider
from domain.answers import answer_model
from tests.workflows.script import tool

WRITE = answer_model("act", step_type="write", subdomain="inventory")
ACT = LlmRequest(node="act", system="s", user="u", answer=WRITE, step=0)


def create_milk(quantity: float) -> dict:
    return tool("db_create", table="inventory", data={"name": "milk", "quantity": quantity})


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
async def test_a_non_finite_number_in_a_tool_call_is_repaired_with_its_path(bad: float):
    provider = ScriptProvider.from_responses([create_milk(bad), create_milk(2)])
    result = await LlmGateway(provider).call(ACT)
    assert result.attempts == 2
    assert result.output["tool_call"]["params"]["data"][0]["quantity"] == 2
    repair = provider.calls[1]
    assert "decision.rows[0].quantity" in repair.repair_error
    assert "not a number" in repair.repair_error


async def test_a_non_finite_number_three_times_is_an_invalid_output_never_a_null():
    provider = ScriptProvider.from_responses([create_milk(float("nan"))] * 3)
    with pytest.raises(LlmError) as error:
        await LlmGateway(provider).call(ACT)
    assert error.value.kind == "invalid_output" and not error.value.retryable
