"""A turn's ledger as a real endpoint answers it: OpenAI names the model that answered with
its snapshot date (the fake server does too), and every call, a failed one included, is
charged when it is made at the price of that model, and kept with the turn."""

from __future__ import annotations

import pytest

from domain.ledger import LedgerLine, cost
from domain.settings import Settings
from domain.turn_store import get_turn
from tests.activities.llm.fake_openai import SNAPSHOT
from tests.workflows.conftest import Turns, progress
from tests.workflows.script import complete, plan, reply, step, tool, understand

PRICES = {"full": (2.0, 8.0), "mini": (0.4, 1.6)}
"""The wire's two models (``tests.workflows.conftest.wire``), by the names they were asked by."""
ADD = step("Add milk to the shopping list", "write", "shopping")
TASK = step("Add a task to buy bread", "write", "tasks")
BROKEN_ACT = {"node": "act", "output": {"decision": {"action": "tool_call"}}, "step": 1}
"""A tool_call without its tool: refused every time, so step 2's act call fails for good."""


def spoken(entry: dict, prompt: int = 1000, completion: int = 100) -> dict:
    """A scripted answer that reports the tokens a hosted model would."""
    return {**entry, "usage": {"prompt_tokens": prompt, "completion_tokens": completion}}


async def test_every_call_is_charged_at_its_dated_models_price_failed_calls_included(
    turns: Turns,
):
    script = turns.script(
        spoken(understand()),
        spoken(plan("Shopping and a task", ADD, {**TASK, "group": 1})),
        spoken(tool("db_create", 0, table="shopping_list", data={"name": "milk"})),
        spoken(complete("Added milk", at_step=0)),
        *[spoken(BROKEN_ACT, 3000, 300)] * 3,
        spoken(reply("I added milk; I couldn't add the task.")),
    )
    settings = Settings(_env_file=None, eval_prices=PRICES)
    async with turns.worker(script, settings=settings):
        handle = await turns.start("add milk and remind me to buy bread", mode="create")
        result = await handle.result()
        ledger = (await progress(handle)).ledger
    assert result.fallbacks == ["act step 2: invalid_output"]

    assert {x.node for x in ledger} == {"understand", "think", "act", "reply", "summarize"}
    for line in ledger:
        asked = line.model.removesuffix(SNAPSHOT)
        assert line.model == asked + SNAPSHOT
        assert line.price is not None and line.price.listed_as == asked
        prompt_usd, completion_usd = PRICES[asked]
        expected = (line.prompt_tokens * prompt_usd + line.completion_tokens * completion_usd) / 1e6
        assert line.cost_usd == pytest.approx(expected)
    (act,) = [x for x in ledger if x.node == "act"]
    assert (act.calls, act.failed_calls, act.repairs) == (5, 3, 2)
    assert (act.prompt_tokens, act.completion_tokens) == (2000 + 9000, 200 + 900)
    total = cost(ledger)
    assert total.unpriced_models == []
    assert total.cost_usd == pytest.approx(sum(x.cost_usd or 0 for x in ledger))

    row = await get_turn(turns.sessions, turns.user_id, turns.conversation_id, 1)
    stored = [LedgerLine.model_validate(x) for x in row.usage["by_node"]]
    assert stored == ledger
