"""What turns cost: the turn view's ledger by node, model and price, each call charged by
the worker when it was made, and GET /v1/usage, the caller's turns summed per conversation
and in all. Totals say which models they leave out for want of a price."""

from __future__ import annotations

import pytest

from activities.llm.script_provider import ScriptProvider
from domain import turn_store
from domain.settings import Settings
from tests.api.conftest import Api
from tests.api.test_turns import add_milk, settled
from tests.workflows.conftest import COMPRESS, SUMMARIZE
from tests.workflows.script import plan, propose, quick, step, understand

MILK = step("Add milk", "write", "shopping")
PRICE = (2.0, 8.0)  # USD per million prompt / completion tokens


def charging(price: tuple[float, float] | None) -> Settings:
    """A worker's settings whose price table has ``price`` for the script model (or none)."""
    return Settings(_env_file=None, eval_prices={"script": price} if price else {})


def spoken(entry: dict, prompt: int, completion: int) -> dict:
    """A scripted answer that reports the tokens a hosted model would."""
    return {**entry, "usage": {"prompt_tokens": prompt, "completion_tokens": completion}}


async def say(api: Api, conversation: str, text: str, until: str) -> dict:
    """Send ``text`` and return the turn once it is ``until``."""
    path = f"/v1/conversations/{conversation}/messages"
    sent = (await api.post(path, json={"text": text})).json()
    return await settled(api, sent["id"], until)


def quick_turn(prompt: int = 1000, completion: int = 100) -> list[dict]:
    return [
        spoken(quick("Show the shopping list", "shopping"), prompt, completion),
        {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "shopping_list"}}},
    ]


async def test_a_turn_and_the_callers_usage_are_charged_by_node_and_model(api: Api, other_api: Api):
    plan_turn = [
        spoken(understand(), 1000, 100),
        spoken(plan("Add milk", step("Add milk", "write", "shopping")), 2000, 200),
        *[spoken(e, 3000, 50) for e in add_milk()[:2]],
        spoken(add_milk()[2], 500, 20),
    ]
    script = ScriptProvider.from_responses([*plan_turn, *quick_turn(), SUMMARIZE, COMPRESS])
    conversation = await api.conversation()
    async with api.worker(script, settings=charging(PRICE)):
        done = await say(api, conversation, "milk", "completed")
        await say(api, conversation, "list?", "completed")

    lines = {(x["node"], x["model"]): x for x in done["usage"]["by_node"]}
    assert lines[("act", "script")]["calls"] == 2
    assert lines[("act", "script")]["prompt_tokens"] == 6000
    assert lines[("act", "script")]["price"] == {
        "listed_as": "script",
        "prompt_usd": 2.0,
        "completion_usd": 8.0,
    }
    assert lines[("act", "script")]["cost_usd"] == pytest.approx((6000 * 2 + 100 * 8) / 1e6)
    assert {"understand", "think", "act", "reply", "summarize"} <= {n for n, _ in lines}
    prompt, completion = 1000 + 2000 + 6000 + 500, 100 + 200 + 100 + 20  # summarize: none
    plan_cost = (prompt * 2 + completion * 8) / 1e6
    assert done["usage"]["cost_usd"] == pytest.approx(plan_cost)
    assert done["usage"]["unpriced_models"] == []

    report = (await api.get("/v1/usage")).json()
    assert [c["conversation_id"] for c in report["conversations"]] == [conversation]
    only = report["conversations"][0]
    assert only["turns"] == 2
    assert only["prompt_tokens"] == report["prompt_tokens"] == prompt + 1000
    assert report["cost_usd"] == pytest.approx(plan_cost + (1000 * 2 + 100 * 8) / 1e6)
    assert report["unpriced_models"] == []
    by_node = {x["node"]: x for x in report["by_node"]}
    assert by_node["understand"]["calls"] == 2

    theirs = (await other_api.get("/v1/usage")).json()
    assert theirs["conversations"] == [] and theirs["calls"] == 0
    assert (theirs["cost_usd"], theirs["unpriced_models"]) == (0.0, [])


async def test_a_paused_turn_shows_what_it_has_cost_so_far(api: Api):
    script = ScriptProvider.from_responses(
        [
            spoken(understand(), 1000, 100),
            spoken(propose("Add milk", "Shall I add milk?", MILK), 2000, 200),
        ]
    )
    conversation = await api.conversation()
    async with api.worker(script, settings=charging(PRICE)):
        paused = await say(api, conversation, "milk", "awaiting_input")
    assert [(x["node"], x["calls"]) for x in paused["usage"]["by_node"]] == [
        ("understand", 1),
        ("think", 1),
    ]
    assert paused["usage"]["cost_usd"] == pytest.approx((3000 * 2 + 300 * 8) / 1e6)


async def test_a_new_price_table_prices_later_calls_and_leaves_earlier_ones_as_charged(api: Api):
    conversation = await api.conversation()
    script = ScriptProvider.from_responses([*quick_turn(), SUMMARIZE])
    async with api.worker(script, settings=charging(PRICE)):
        first = await say(api, conversation, "list?", "completed")
    script = ScriptProvider.from_responses([*quick_turn(), SUMMARIZE, COMPRESS])
    async with api.worker(script, settings=charging((4.0, 16.0))):
        await say(api, conversation, "list?", "completed")

    again = (await api.get(f"/v1/turns/{first['id']}")).json()
    assert again["usage"]["cost_usd"] == pytest.approx((1000 * 2 + 100 * 8) / 1e6)
    report = (await api.get("/v1/usage")).json()
    assert report["cost_usd"] == pytest.approx((1000 * 6 + 100 * 24) / 1e6)
    understand_lines = [x for x in report["by_node"] if x["node"] == "understand"]
    assert [x["price"]["prompt_usd"] for x in understand_lines] == [2.0, 4.0]


async def test_a_total_over_unpriced_calls_says_which_models_it_leaves_out(api: Api):
    conversation = await api.conversation()
    script = ScriptProvider.from_responses([*quick_turn(), SUMMARIZE])
    async with api.worker(script, settings=charging(PRICE)):
        await say(api, conversation, "list?", "completed")
    script = ScriptProvider.from_responses([*quick_turn(), SUMMARIZE, COMPRESS])
    async with api.worker(script, settings=charging(None)):
        unpriced = await say(api, conversation, "list?", "completed")

    assert unpriced["usage"]["cost_usd"] is None
    assert unpriced["usage"]["unpriced_models"] == ["script"]
    report = (await api.get("/v1/usage")).json()
    assert report["cost_usd"] == pytest.approx((1000 * 2 + 100 * 8) / 1e6)
    assert report["unpriced_models"] == ["script"]
    assert report["conversations"][0]["unpriced_models"] == ["script"]


async def test_a_turn_stored_before_calls_were_charged_reads_as_unpriced(api: Api):
    conversation = await api.conversation()
    script = ScriptProvider.from_responses([*quick_turn(), SUMMARIZE])
    async with api.worker(script, settings=charging(PRICE)):
        done = await say(api, conversation, "list?", "completed")
    line = {"node": "understand", "model": "gpt-4.1", "calls": 1, "prompt_tokens": 1000}
    await turn_store.set_turn_status(  # the usage as rows kept it before: no price, no cost
        api.services.sessions,
        user_id=str(api.user_id),
        conversation_id=conversation,
        turn_number=1,
        status="completed",
        usage={"prompt_tokens": 1000, "completion_tokens": 0, "repairs": 0, "by_node": [line]},
    )
    old = (await api.get(f"/v1/turns/{done['id']}")).json()
    assert (old["usage"]["cost_usd"], old["usage"]["unpriced_models"]) == (None, ["gpt-4.1"])
    assert old["usage"]["by_node"][0]["price"] is None
