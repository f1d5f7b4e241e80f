"""The script provider: first unused matching entry, steps, repeats, clear exhaustion."""

from __future__ import annotations

import pytest

from activities.llm.gateway import LlmGateway
from activities.llm.provider import LlmError, LlmRequest
from activities.llm.script_provider import ScriptProvider
from domain.answers import answer_model


def request(node: str, step: int | None = None) -> LlmRequest:
    model = answer_model(node, step_type="read", subdomain="inventory")
    return LlmRequest(node=node, system="s", user="u", answer=model, step=step)


def done(summary: str) -> dict:
    return {"decision": {"action": "step_complete", "result_summary": summary}}


async def test_calls_take_the_first_unused_matching_entry_in_order():
    provider = ScriptProvider.from_responses(
        [
            {"node": "reply", "output": {"response": "one"}},
            {"node": "reply", "output": {"response": "two"}},
        ]
    )
    gateway = LlmGateway(provider)
    assert (await gateway.call(request("reply"))).output == {"response": "one"}
    assert (await gateway.call(request("reply"))).output == {"response": "two"}
    assert provider.unused() == []


async def test_an_entry_with_a_step_only_answers_that_step():
    provider = ScriptProvider.from_responses(
        [
            {"node": "act", "step": 1, "output": done("step one")},
            {"node": "act", "output": done("any step")},
        ]
    )
    gateway = LlmGateway(provider)
    assert (await gateway.call(request("act", step=0))).output["result_summary"] == "any step"
    assert (await gateway.call(request("act", step=1))).output["result_summary"] == "step one"


async def test_repeat_entries_are_never_used_up():
    provider = ScriptProvider.from_responses(
        [{"node": "reply", "repeat": True, "output": {"response": "again"}}]
    )
    gateway = LlmGateway(provider)
    for _ in range(3):
        assert (await gateway.call(request("reply"))).output == {"response": "again"}


async def test_no_matching_entry_is_a_final_error_naming_node_and_step():
    provider = ScriptProvider.from_responses([])
    with pytest.raises(LlmError, match="node 'act' step 2") as error:
        await provider.complete(request("act", step=2))
    assert not error.value.retryable and error.value.kind == "script_exhausted"


async def test_an_invalid_entry_goes_through_the_repair_attempt():
    provider = ScriptProvider.from_responses(
        [
            {"node": "reply", "output": {"response": ""}},
            {"node": "reply", "output": {"response": "fixed"}},
        ]
    )
    result = await LlmGateway(provider).call(request("reply"))
    assert result.output == {"response": "fixed"} and result.attempts == 2


def test_unknown_node_names_are_rejected_when_loading():
    with pytest.raises(ValueError, match="unknown node"):
        ScriptProvider.from_responses([{"node": "planner", "output": {}}])


def test_a_script_file_loads(tmp_path):
    path = tmp_path / "script.json"
    path.write_text('{"responses": [{"node": "reply", "output": {"response": "hi"}}]}')
    assert len(ScriptProvider.from_file(path).unused()) == 1
