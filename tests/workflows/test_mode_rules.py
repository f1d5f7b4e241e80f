"""The mode's flags in a running turn (``domain.modes.apply_mode``)."""

from __future__ import annotations

from domain.registry import SessionIdRegistry
from tests.kitchen_helper import Kitchen
from tests.workflows.conftest import Turns, wait_for
from tests.workflows.script import complete, plan, propose, reply, step, tool, understand


async def test_in_plan_mode_a_plan_that_writes_twice_is_proposed_first(turns: Turns, executor):
    script = turns.script(
        understand(),
        plan(
            "Milk and a task",
            step("Add milk", "write", "shopping"),
            step("Remind me to buy bread", "write", "tasks", group=1),
        ),
    )
    async with turns.worker(script):
        handle = await turns.start("add milk and remind me about bread")
        paused = await wait_for(handle, lambda p: p.pending is not None)
        await handle.cancel()  # and let it end while the worker runs: no task left open
        await wait_for(handle, lambda p: p.status == "cancelled")
    assert paused.pending.kind == "proposal"
    assert paused.pending.message.startswith("This changes your kitchen in 2 steps")
    assert await Kitchen(executor, turns.user_id, SessionIdRegistry()).names("shopping_list") == []


async def test_in_quick_mode_a_proposal_runs_at_once(turns: Turns, executor):
    script = turns.script(
        understand(),
        propose("Add milk", "Shall I?", step("Add milk", "write", "shopping")),
        tool("db_create", table="shopping_list", data={"name": "milk"}),
        complete("Added milk"),
        reply("Added milk."),
    )
    async with turns.worker(script):
        result = await (await turns.start("add milk", mode="quick")).result()
    assert result.response == "Added milk."
    assert await Kitchen(executor, turns.user_id, SessionIdRegistry()).names("shopping_list") == [
        "milk"
    ]
