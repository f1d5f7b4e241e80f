"""Every circuit breaker trips, ends the turn honestly in the reply, and is recorded."""

from __future__ import annotations

import uuid

from domain import formatters
from domain.registry import SessionIdRegistry
from tests.kitchen_helper import PANTRY, Kitchen
from tests.workflows.conftest import Turns, keep_history, progress, send, wait_for
from tests.workflows.script import (
    act,
    clarify_first,
    complete,
    plan,
    reply,
    step,
    tool,
    understand,
)
from workflows.interface import TurnLimits, UserInput

READ_INVENTORY = step("Read the inventory", "read", "inventory")


async def stock(turns: Turns, executor) -> None:
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create("inventory", PANTRY)


async def test_a_fourth_tool_call_in_one_step_is_refused(turns: Turns, executor):
    await stock(turns, executor)
    # four different reads that find rows (the same read again would end the step:
    # test_act_actions; so would any read after one of the whole table: read_within)
    fridge = [{"field": "location", "op": "=", "value": "fridge"}]
    reads = [tool("db_read", table="inventory", filters=fridge, limit=n) for n in (10, 20, 30, 40)]
    script = turns.script(
        understand(),
        plan("Look", READ_INVENTORY),
        *reads,
        reply("Your inventory is empty."),
    )
    async with turns.worker(script):
        handle = await turns.start("look around the fridge")
        result = await handle.result()
        state = await progress(handle)
    assert state.steps[0].tool_calls == 3
    assert [c.node for c in script.calls].count("act") == 4
    assert state.breakers[0].startswith("max_tool_calls")
    (breaker,) = [e for e in state.events if e.type == "breaker"]
    assert breaker.data.kind == "max_tool_calls"
    assert state.steps[0].status == "breaker"
    assert result.response.startswith("Your inventory is empty.")
    assert state.breakers == ["max_tool_calls: Read the inventory"]  # the step, by its words
    assert formatters.format_breaker("max_tool_calls", "Read the inventory") in result.response
    assert 'I stopped the step "Read the inventory" because it needed more database' in (
        result.response
    )
    assert "step 0" not in result.response and "tool calls" not in result.response


async def test_a_second_empty_read_of_one_table_completes_the_step_with_nothing_found(
    turns: Turns,
):
    """Seed 000: a duplicate empty query "forces completion". Nothing found is the step's
    answer, not a stop: said as a breaker ("I stopped the step … kept coming back empty"),
    it left the 1.5B local model's Reply answering "I can't help with that"."""

    def read(name: str) -> dict:
        where = [{"field": "name", "op": "=", "value": name}]
        return tool("db_read", table="shopping_list", filters=where)

    script = turns.script(
        understand(),
        plan("Look", step("Read list", "read", "shopping")),
        read("milk"),
        read("eggs"),
        reply("Your list is empty."),
    )
    async with turns.worker(script):
        handle = await turns.start("any milk or eggs on my list?")
        result = await handle.result()
        state = await progress(handle)
    assert state.breakers == []
    assert state.steps[0].status == "completed"
    assert (
        state.steps[0].summary == "Nothing found: the reads of shopping_list came back empty twice."
    )
    assert result.response.startswith("Your list is empty.")
    assert "I stopped" not in result.response
    reply_request = next(c for c in script.calls if c.node == "reply").user
    assert "kept coming back empty" not in reply_request
    assert script.unused() == []  # no third read: the step ended


async def test_a_plan_longer_than_the_modes_max_steps_is_repaired_before_it_runs(turns: Turns):
    """Think's schema holds the mode's step limit (quick: 2): a longer plan is not an
    answer the turn takes, and the repair is told the limit."""
    three = [step(f"Read {n}", "read", "inventory", group=g) for g, n in enumerate("abc")]
    script = turns.script(
        understand(),
        plan("Read thrice", *three),
        plan("Read twice", *three[:2]),
        tool("db_read", table="inventory"),
        complete("a", at_step=0),
        tool("db_read", table="inventory", filters=[{"field": "name", "op": "=", "value": "b"}]),
        complete("b", at_step=1),
        reply("Read a and b."),
    )
    async with turns.worker(script):
        handle = await turns.start("read everything", mode="quick")
        await handle.result()
        state = await progress(handle)
    assert len(state.plan) == 2 and state.breakers == []
    repair = [c for c in script.calls if c.node == "think"][1].repair_error or ""
    assert "outcome.plan_direct.steps: List should have at most 2 items" in repair
    assert [c.step for c in script.calls if c.node == "act"] == [0, 0, 1, 1]


async def test_the_per_turn_llm_call_cap_stops_the_act_loop(turns: Turns, executor):
    await stock(turns, executor)
    read = tool(
        "db_read", table="inventory", filters=[{"field": "location", "op": "=", "value": "fridge"}]
    )
    script = turns.script(understand(), plan("Look", READ_INVENTORY), read, read)
    async with turns.worker(script):
        handle = await turns.start("look", limits=TurnLimits(max_llm_calls=4))
        result = await handle.result()
        state = await progress(handle)
        await keep_history(handle, "llm_call_cap")
    assert state.llm_calls == 4
    assert "llm_call_cap" in state.breakers[0]
    assert [c.node for c in script.calls] == ["understand", "think", "act", "act"]
    assert result.status == "completed"


async def test_a_third_schema_request_blocks_the_step(turns: Turns):
    schema = act({"action": "request_schema", "subdomain": "recipes"})
    script = turns.script(
        understand(),
        plan("Look", READ_INVENTORY),
        schema,
        schema,
        schema,
        reply("I couldn't work out the recipes table."),
    )
    async with turns.worker(script):
        handle = await turns.start("look")
        await handle.result()
        state = await progress(handle)
    assert state.breakers[0].startswith("schema_requests")
    second_act = [c for c in script.calls if c.node == "act"][1]
    assert "### recipes" in second_act.user  # the schema really came back
    assert "schema_requests" in [c for c in script.calls if c.node == "reply"][0].user


async def test_the_pause_cap_ends_the_turn_with_the_open_question(turns: Turns):
    script = turns.script(clarify_first("Which one?"), clarify_first("Which one, really?"))
    async with turns.worker(script):
        handle = await turns.start("that one", limits=TurnLimits(max_pauses=1))
        await wait_for(handle, lambda p: p.status == "awaiting_input")
        await send(handle, UserInput(input_id=uuid.uuid4().hex, action="answer", text="hmm"))
        result = await handle.result()
        state = await progress(handle)
    assert result.status == "completed"
    assert result.response.startswith("Which one, really?")
    assert state.breakers[0].startswith("pause_cap")
