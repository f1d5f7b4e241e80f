"""What turns cost: the turn view's ledger by node and model, priced from the price table,
and GET /v1/usage, the caller's turns summed per conversation and in all."""

from __future__ import annotations

import pytest

from activities.llm.script_provider import ScriptProvider
from tests.api.conftest import Api
from tests.api.test_turns import add_milk, settled
from tests.workflows.conftest import COMPRESS, SUMMARIZE
from tests.workflows.script import plan, propose, quick, step, understand

MILK = step("Add milk", "write", "shopping")
PRICE = (2.0, 8.0)  # USD per million prompt / completion tokens


def spoken(entry: dict, prompt: int, completion: int) -> dict:
    """A scripted answer that reports the tokens a hosted model would."""
    return {**entry, "usage": {"prompt_tokens": prompt, "completion_tokens": completion}}


async def say(api: Api, conversation: str, text: str, until: str) -> dict:
    """Send ``text`` and return the turn once it is ``until``."""
    path = f"/v1/conversations/{conversation}/messages"
    sent = (await api.post(path, json={"text": text})).json()
    return await settled(api, sent["id"], until)


@pytest.fixture
def priced_script(api: Api):
    """The price table knows the script model (for this test only)."""
    services = api.services
    before = services.settings
    services.settings = before.model_copy(update={"eval_prices": {"script": PRICE}})
    yield
    services.settings = before


async def test_a_turn_and_the_callers_usage_are_priced_by_node_and_model(
    api: Api, other_api: Api, priced_script
):
    plan_turn = [
        spoken(understand(), 1000, 100),
        spoken(plan("Add milk", step("Add milk", "write", "shopping")), 2000, 200),
        *[spoken(e, 3000, 50) for e in add_milk()[:2]],
        spoken(add_milk()[2], 500, 20),
    ]
    quick_turn = [
        spoken(quick("Show the shopping list", "shopping"), 1000, 100),
        {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "shopping_list"}}},
    ]
    script = ScriptProvider.from_responses([*plan_turn, *quick_turn, SUMMARIZE, COMPRESS])
    conversation = await api.conversation()
    async with api.worker(script):
        done = await say(api, conversation, "milk", "completed")
        await say(api, conversation, "list?", "completed")

    lines = {(x["node"], x["model"]): x for x in done["usage"]["by_node"]}
    assert lines[("act", "script")]["calls"] == 2
    assert lines[("act", "script")]["prompt_tokens"] == 6000
    assert lines[("act", "script")]["cost_usd"] == pytest.approx((6000 * 2 + 100 * 8) / 1e6)
    assert {"understand", "think", "act", "reply", "summarize"} <= {n for n, _ in lines}
    prompt, completion = 1000 + 2000 + 6000 + 500, 100 + 200 + 100 + 20  # summarize: none
    plan_cost = (prompt * 2 + completion * 8) / 1e6
    assert done["usage"]["cost_usd"] == pytest.approx(plan_cost)

    report = (await api.get("/v1/usage")).json()
    assert [c["conversation_id"] for c in report["conversations"]] == [conversation]
    only = report["conversations"][0]
    assert only["turns"] == 2
    assert only["prompt_tokens"] == report["prompt_tokens"] == prompt + 1000
    assert report["cost_usd"] == pytest.approx(plan_cost + (1000 * 2 + 100 * 8) / 1e6)
    by_node = {x["node"]: x for x in report["by_node"]}
    assert by_node["understand"]["calls"] == 2

    theirs = (await other_api.get("/v1/usage")).json()
    assert theirs["conversations"] == [] and theirs["calls"] == 0
    assert theirs["cost_usd"] is None


async def test_a_paused_turn_shows_what_it_has_cost_so_far(api: Api, priced_script):
    script = ScriptProvider.from_responses(
        [
            spoken(understand(), 1000, 100),
            spoken(propose("Add milk", "Shall I add milk?", MILK), 2000, 200),
        ]
    )
    conversation = await api.conversation()
    async with api.worker(script):
        paused = await say(api, conversation, "milk", "awaiting_input")
    assert [(x["node"], x["calls"]) for x in paused["usage"]["by_node"]] == [
        ("understand", 1),
        ("think", 1),
    ]
    assert paused["usage"]["cost_usd"] == pytest.approx((3000 * 2 + 300 * 8) / 1e6)
