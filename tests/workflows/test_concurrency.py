"""Steps of one group run concurrently in the turn's one registry: their database calls
take turns, refs are numbered in the order the calls ran, and a ref a model saw is the ref
the row keeps."""

from __future__ import annotations

import asyncio

from temporalio import activity

from activities.payloads import ActRequest, ActResult, CrudCallRequest, CrudCallResult
from domain.nodes import ActDecision
from domain.registry import SessionIdRegistry
from domain.turn_store import load_conversation
from tests.kitchen_helper import Kitchen
from tests.workflows.conftest import Turns, keep_history, progress
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


async def read_both(turns: Turns, executor, swap, summaries: tuple[str, str]):
    """Two concurrent reads (Dal at step 0, Chili at step 1), with ``swap(real activities)``'s
    activities in place of the real ones; what the saved state says afterwards."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "recipes", [{"name": "Dal"}, {"name": "Chili"}]
    )
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
        complete(summaries[0], at_step=0),
        complete(summaries[1], at_step=1),
        reply("Read both."),
    )
    activities = turn_activities(turns.sessions, script)
    activities.update(swap(dict(activities)))
    async with turns.worker(script, list(activities.values())):
        await (await turns.start("compare")).result()
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    registry = state.registry
    results = state.turn_step_results["1"]
    return {
        "labels": {ref: registry.label(ref) for ref in registry.known_refs()},
        "step_rows": [r.tool_results[0].rows[0]["id"] for r in results],
        "summaries": [r.summary for r in results],
    }


def later_step_reads_first(real: dict) -> dict:
    """Step 0's first Act decision waits until step 1's read has returned."""
    step_1_read = asyncio.Event()

    @activity.defn(name="act")
    async def act(request: ActRequest) -> ActResult:
        if request.step_index == 0 and not request.tool_results:
            await asyncio.wait_for(step_1_read.wait(), timeout=15)
        return await real["act"](request)

    @activity.defn(name="crud")
    async def crud(request: CrudCallRequest) -> CrudCallResult:
        result = await real["crud"](request)
        if request.step == 1:
            step_1_read.set()
        return result

    return {"act": act, "crud": crud}


async def test_refs_are_numbered_in_the_order_the_reads_ran_and_never_renamed(
    turns: Turns, executor
):
    outcome = await read_both(
        turns, executor, later_step_reads_first, ("Dal is recipe_2", "Chili is recipe_1")
    )
    assert outcome["labels"] == {"recipe_1": "Chili", "recipe_2": "Dal"}
    assert outcome["step_rows"] == ["recipe_2", "recipe_1"]
    # Each model named the ref it was shown, and that ref is the row's for good.
    assert outcome["summaries"] == ["Dal is recipe_2", "Chili is recipe_1"]


THREE_READS = plan(
    "Compare three recipes",
    step("Read Dal", "read", "recipes", group=0),
    step("Read Chili", "read", "recipes", group=0),
    step("Read Soup", "read", "recipes", group=0),
)


def read_of(name: str, at_step: int) -> dict:
    filters = [{"field": "name", "op": "=", "value": name}]
    return tool("db_read", at_step=at_step, table="recipes", filters=filters)


async def test_database_calls_of_concurrent_steps_take_turns(turns: Turns, executor):
    """Steps 0 and 1 decide to read while step 2's read holds the workflow task: both
    decisions reach the workflow in one activation, and both calls are ready at once."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "recipes", [{"name": "Dal"}, {"name": "Chili"}, {"name": "Soup"}]
    )
    script = turns.script(
        understand(),
        THREE_READS,
        read_of("Dal", 0),
        read_of("Chili", 1),
        read_of("Soup", 2),
        complete("Dal read", at_step=0),
        complete("Chili read", at_step=1),
        complete("Soup read", at_step=2),
        reply("Read all three."),
    )
    activities = turn_activities(turns.sessions, script)
    real = dict(activities)
    soup_reading = asyncio.Event()
    decided: list[int] = []
    both_decided = asyncio.Event()
    running: list[int] = []
    overlapped: list[list[int]] = []
    requests: list[CrudCallRequest] = []

    @activity.defn(name="act")
    async def act(request: ActRequest) -> ActResult:
        first = not request.tool_results
        if first and request.step_index < 2:
            await asyncio.wait_for(soup_reading.wait(), timeout=15)
        result = await real["act"](request)
        if first and request.step_index < 2:
            decided.append(request.step_index)
            if len(decided) == 2:
                both_decided.set()
        return result

    @activity.defn(name="crud")
    async def crud(request: CrudCallRequest) -> CrudCallResult:
        running.append(request.step or 0)
        if len(running) > 1:
            overlapped.append(list(running))
        requests.append(request)
        try:
            if request.step == 2:
                soup_reading.set()
                await asyncio.wait_for(both_decided.wait(), timeout=15)
                await asyncio.sleep(1)  # the server records both decisions meanwhile
            else:
                await asyncio.sleep(0.2)  # long enough for a second call to start
            return await real["crud"](request)
        finally:
            running.remove(request.step or 0)

    activities.update(act=act, crud=crud)
    async with turns.worker(script, list(activities.values())):
        handle = await turns.start("compare")
        await handle.result()
        await keep_history(handle, "reads_taking_turns")
    assert [r.step for r in requests][0] == 2
    assert overlapped == []
    # Each call reads the registry with every earlier call's ref in it.
    seen = [set(r.state_ref.registry.entries) for r in requests]
    assert seen == [set(), {"recipe_1"}, {"recipe_1", "recipe_2"}]
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    registry = state.registry
    assert sorted(registry.label(r) for r in registry.known_refs()) == ["Chili", "Dal", "Soup"]
