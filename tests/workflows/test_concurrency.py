"""Steps of one group run concurrently; refs they assign are numbered by step order."""

from __future__ import annotations

import asyncio

from temporalio import activity

from activities.llm.script_provider import ScriptProvider
from activities.payloads import ActRequest, ActResult, CrudCallRequest, CrudCallResult
from domain.nodes import ActDecision
from domain.registry import SessionIdRegistry
from domain.turn_store import load_conversation
from tests.kitchen_helper import Kitchen
from tests.workflows.conftest import Turns, progress
from tests.workflows.script import complete, plan, reply, step, tool, understand
from workflows.worker import turn_activities

TWO_READS = plan(
    "Compare two recipes",
    step("Read Dal", "read", "recipes", group=0),
    step("Read Chili", "read", "recipes", group=0),
)


async def test_steps_of_one_group_run_concurrently(turns: Turns):
    started: list[int] = []
    both_started = asyncio.Event()

    @activity.defn(name="act")
    async def act_that_waits_for_its_sibling(request: ActRequest) -> ActResult:
        started.append(request.step_index)
        if len(started) == 2:
            both_started.set()
        # Run one step after the other and this waits forever: the test times out.
        await asyncio.wait_for(both_started.wait(), timeout=15)
        return ActResult(
            output=ActDecision(action="step_complete", result_summary=f"read {request.step_index}")
        )

    script = turns.script(understand(), TWO_READS, reply("Both read."))
    activities = turn_activities(turns.sessions, script)
    activities["act"] = act_that_waits_for_its_sibling
    async with turns.worker(script, list(activities.values())):
        handle = await turns.start("compare dal and chili")
        result = await handle.result()
        state = await progress(handle)
    assert sorted(started) == [0, 1]
    assert result.response == "Both read."
    assert [s.status for s in state.steps] == ["completed", "completed"]


async def run_with_crud_finishing_first(turns: Turns, executor, first: int) -> dict:
    """Two concurrent reads; step ``first``'s database call is made to finish first."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "recipes", [{"name": "Dal"}, {"name": "Chili"}]
    )
    real_crud = turn_activities(turns.sessions, ScriptProvider.from_responses([]))["crud"]
    done_first = asyncio.Event()

    @activity.defn(name="crud")
    async def crud_in_a_forced_order(request: CrudCallRequest) -> CrudCallResult:
        if request.step != first:
            await asyncio.wait_for(done_first.wait(), timeout=15)
        result = await real_crud(request)
        if request.step == first:
            done_first.set()
        return result

    script = turns.script(
        understand(),
        TWO_READS,
        tool(
            "db_read",
            at_step=0,
            table="recipes",
            filters=[{"field": "name", "op": "=", "value": "Dal"}],
        ),
        tool(
            "db_read",
            at_step=1,
            table="recipes",
            filters=[{"field": "name", "op": "=", "value": "Chili"}],
        ),
        complete("Dal is recipe_1", at_step=0),
        complete("Chili is recipe_1", at_step=1),
        reply("Read both."),
    )
    activities = turn_activities(turns.sessions, script)
    activities["crud"] = crud_in_a_forced_order
    async with turns.worker(script, list(activities.values())):
        await (await turns.start("compare")).result()
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    registry = SessionIdRegistry.from_dict(state.registry)
    results = state.turn_step_results["1"]
    return {
        "labels": {ref: registry.label(ref) for ref in registry.known_refs()},
        "step_rows": [r.tool_results[0].rows[0]["id"] for r in results],
        "summaries": [r.summary for r in results],
    }


async def test_refs_are_numbered_by_step_order_when_the_later_step_finishes_first(
    turns: Turns, executor
):
    outcome = await run_with_crud_finishing_first(turns, executor, first=1)
    assert outcome["labels"] == {"recipe_1": "Dal", "recipe_2": "Chili"}
    assert outcome["step_rows"] == ["recipe_1", "recipe_2"]
    # The model saw its provisional ref; its own prose is renamed with the rows.
    assert outcome["summaries"] == ["Dal is recipe_1", "Chili is recipe_2"]


async def test_refs_are_numbered_by_step_order_when_the_earlier_step_finishes_first(
    turns: Turns, executor
):
    outcome = await run_with_crud_finishing_first(turns, executor, first=0)
    assert outcome["labels"] == {"recipe_1": "Dal", "recipe_2": "Chili"}
    assert outcome["step_rows"] == ["recipe_1", "recipe_2"]
