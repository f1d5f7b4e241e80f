"""Worker restarts, cancellation, failures."""

from __future__ import annotations

import asyncio
import dataclasses
import typing
import uuid
from collections import Counter
from datetime import timedelta

import pytest
from temporalio import activity
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import CancelledError

from bench.turn_overhead import activity_kinds
from domain.crud.executor import CrudExecutor
from domain.registry import SessionIdRegistry
from domain.turn_store import create_conversation, get_turn, load_conversation
from tests.kitchen_helper import Kitchen
from tests.replay import replay_failures
from tests.workflows.conftest import Turns, keep_history, progress, send, wait_for
from tests.workflows.script import (
    clarify_first,
    complete,
    plan,
    propose,
    reply,
    step,
    tool,
    understand,
)
from workflows.interface import UserInput
from workflows.worker import turn_activities

SHOP = step("Add milk", "write", "shopping")
RUN_PLAN = [
    tool("db_create", table="shopping_list", data={"name": "milk"}),
    complete("Added milk"),
    reply("Added milk."),
]
ASK_THEN_PROPOSE = (
    clarify_first("Which list?"),
    understand(),
    propose("Add milk", "Add milk to the shopping list?", SHOP),
    *RUN_PLAN,
)
"""A question ("which list?"), then a proposal, then the plan: two pauses in one turn."""


def answer(action: str, text: str | None = None, input_id: str | None = None) -> UserInput:
    return UserInput(input_id=input_id or uuid.uuid4().hex, action=action, text=text)


async def awaiting(handle, count: int = 1):
    return await wait_for(
        handle,
        lambda p: (
            p.status == "awaiting_input"
            and sum(e.type == "awaiting_input" for e in p.events) >= count
        ),
    )


async def shopping_names(turns: Turns) -> list[str]:
    kitchen = Kitchen(CrudExecutor(turns.sessions), turns.user_id, SessionIdRegistry())
    return await kitchen.names("shopping_list")


async def scheduled_activities(handle) -> Counter:
    """Activities by type; the short database ones are local activities (history markers)."""
    return activity_kinds(await handle.fetch_history())


async def test_a_turn_finishes_on_a_new_worker_without_repeating_activities(turns: Turns):
    script = turns.script(understand(), propose("Add milk", "Add milk?", SHOP), *RUN_PLAN)
    # No workflow cache, so no sticky queue: the test server would hold the next task for
    # the stopped worker's sticky queue instead of handing it to the new worker.
    async with turns.worker(script, max_cached_workflows=0):
        handle = await turns.start("add milk")
        await awaiting(handle)
    # The first worker is gone; a new one picks up from the history.
    async with turns.worker(script):
        await send(handle, answer("confirm"))
        result = await handle.result()
        counts = await scheduled_activities(handle)
    assert result.status == "completed"
    # Local: open_turn, mark_turn (awaiting input), crud, mark_turn (replied), finish_turn.
    assert counts == Counter(
        {"understand": 1, "think": 1, "act": 2, "reply": 1, "summarize": 1, "(local activities)": 5}
    )
    assert script.unused() == []
    assert await shopping_names(turns) == ["milk"]


async def test_cancelling_a_paused_turn_leaves_the_conversation_consistent(turns: Turns):
    script = turns.script(understand(), propose("Add milk", "Add milk?", SHOP))
    async with turns.worker(script):
        handle = await turns.start("add milk")
        await awaiting(handle)
        await handle.cancel()
        with pytest.raises(WorkflowFailureError) as failure:
            await handle.result()
        await keep_history(handle, "cancelled")
    assert isinstance(failure.value.cause, CancelledError)
    row = await get_turn(turns.sessions, turns.user_id, turns.conversation_id, 1)
    assert row.status == "cancelled"
    state, version = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert version == 1 and any("cancelled" in note for note in state.notes)
    assert [r.user_message for r in state.recent_turns] == ["add milk"]
    assert "was cancelled" in (state.turn_summaries[0].blocked_reason or "")


async def test_think_output_invalid_three_times_gets_an_honest_reply_not_a_failed_turn(
    turns: Turns,
):
    broken = {"node": "think", "output": {"goal": "x", "decision": "propose"}}
    script = turns.script(understand(), broken, broken, broken)
    async with turns.worker(script):
        handle = await turns.start("plan something")
        result = await handle.result()
        state = await progress(handle)
        await keep_history(handle, "think_invalid_output")
    assert result.status == "completed"
    assert result.response.startswith("I couldn't plan this: the model's answer could not be used.")
    assert "proposal_message" not in result.response and "Nothing was changed" in result.response
    assert result.fallbacks == ["think: invalid_output"]
    assert state.usage.repairs == 2
    assert [e.data.model_dump() for e in state.events if e.type == "fallback"] == [
        {"where": "think", "kind": "invalid_output"}
    ]
    row = await get_turn(turns.sessions, turns.user_id, turns.conversation_id, 1)
    assert row.status == "completed" and row.response == result.response
    assert row.usage["repairs"] == 2
    conversation, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert "proposal_message" not in conversation.model_dump_json()
    assert [c.node for c in script.calls] == ["understand", "think", "think", "think"]


def slowed(activities: dict, names: tuple[str, ...], seconds: float) -> list:
    """The turn's activities, with ``names`` taking ``seconds`` longer (a busy worker)."""

    def slow(inner):
        async def wrapper(request):
            result = await inner(request)
            await asyncio.sleep(seconds)
            return result

        wrapper.__annotations__ = typing.get_type_hints(inner)
        return activity.defn(name=activity._Definition.must_from_callable(inner).name)(wrapper)

    return [slow(f) if name in names else f for name, f in activities.items()]


async def test_turns_on_a_slow_worker_write_histories_that_replay(turns: Turns):
    """Local activities slower than the workflow-task heartbeat (task timeout 1 s, so about
    0.8 s) put their results in later workflow tasks than the ones that asked for them;
    three turns pause on a proposal and finish once confirmed. Every history replays, in
    every busy shape (tests/replay.py). A worker restart is test_a_turn_finishes_on_a_new_
    worker_without_repeating_activities: the time-skipping server cannot move a task off a
    stopped worker's sticky queue, and a worker without a cache cannot hold a slow local
    activity across heartbeats."""
    count = 3
    script = turns.script(
        *[dict(e, repeat=True) for e in (understand(), propose("Add milk", "Add milk?", SHOP))],
        *[dict(e, repeat=True) for e in RUN_PLAN],
    )
    slow = slowed(
        turn_activities(turns.sessions, script),
        ("open_turn", "crud"),
        0.9,
    )
    async with turns.worker(script, activities=slow):
        handles = []
        for _ in range(count):  # one conversation each: they run side by side
            conversation = await create_conversation(turns.sessions, turns.user_id, "slow")
            other = dataclasses.replace(turns, conversation_id=conversation)
            handles.append(await other.start("add milk", task_timeout=timedelta(seconds=1)))
        for handle in handles:
            await awaiting(handle)
        for handle in handles:
            await send(handle, answer("confirm"))
        # Polled, not awaited: waiting on a result lets the test server skip time, past the
        # 1 s task timeout while a slow local activity is still running.
        for handle in handles:
            await wait_for(handle, lambda p: p.status == "completed")
        results = [await h.result() for h in handles]
    assert [r.status for r in results] == ["completed"] * count
    heartbeats = 0
    for handle in handles:
        history = await handle.fetch_history()
        assert await replay_failures(history) == []
        heartbeats += sum(
            e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED for e in history.events
        )
    assert heartbeats > count * 6  # the slow local activities did span workflow tasks


async def test_a_slow_model_asked_again_on_a_slow_worker_writes_a_history_that_replays(
    turns: Turns,
):
    """The act activity asks a slow model once more (a write step completed with no call is
    sent back) while slow local activities span workflow tasks: the milk is added once,
    and the history replays in every busy shape."""
    slow = 0.9
    script = turns.script(
        understand(),
        plan("Add milk", SHOP),
        dict(complete("Milk is on it"), delay_seconds=slow),
        dict(tool("db_create", table="shopping_list", data={"name": "milk"}), delay_seconds=slow),
        complete("Added milk"),
        reply("Added milk."),
    )
    activities = slowed(turn_activities(turns.sessions, script), ("open_turn", "crud"), slow)
    async with turns.worker(script, activities=activities):
        handle = await turns.start("add milk", task_timeout=timedelta(seconds=1))
        await wait_for(handle, lambda p: p.status == "completed")
        history = await handle.fetch_history()
    assert await shopping_names(turns) == ["milk"]
    acts = [c for c in script.calls if c.node == "act"]
    assert len(acts) == 3  # the completion with no call, asked again, then the step's end
    assert "this step has not called the database yet" in acts[1].user
    assert await replay_failures(history) == []


async def test_a_call_refused_twice_on_a_slow_worker_ends_with_a_reply_that_replays(
    turns: Turns,
):
    """The turn a refused call blocks, whose reply the model refuses, answers without the
    model (``_reply_without_model``) while slow local activities span workflow tasks: it
    says what was refused, and its history replays in every busy shape."""
    slow = 0.9
    bad = tool(
        "db_read", 0, table="preferences", filters=[{"field": "id", "op": "=", "value": "me"}]
    )
    script = turns.script(
        understand(),
        plan("The profile", step("Read the preferences", "read", "preferences")),
        dict(bad, delay_seconds=slow),
        bad,
        reply("I'm sorry, but I can't assist with that."),
    )
    activities = slowed(turn_activities(turns.sessions, script), ("open_turn", "crud"), slow)
    async with turns.worker(script, activities=activities):
        handle = await turns.start("what do you know about me", task_timeout=timedelta(seconds=1))
        await wait_for(handle, lambda p: p.status == "completed")
        result = await handle.result()
        history = await handle.fetch_history()
    assert "The lookup was refused twice. Ask again in other words." in result.response
    assert "not a ref" not in result.response
    assert await replay_failures(history) == []


async def test_this_sessions_new_paths_on_a_slow_worker_write_histories_that_replay(
    turns: Turns, executor
):
    """A read the system adds and runs without a model (``act_rules.system_read``), and a
    choice of a ref the same Understand answer dropped (``TurnWorkflow._chosen``), while
    slow local activities span workflow tasks: both turns complete, and their histories
    replay in every busy shape."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    ingredients = [{"name": "red lentils"}, {"name": "spinach"}]
    await kitchen.create(
        "recipes",
        [{"name": "Red Lentil Dal", "ingredients": ingredients}],
    )
    await kitchen.create("inventory", [{"name": "lentils"}])
    stock = plan("Besides lentils", step("Read the inventory", "read", "inventory"))
    options = [{"ref": "recipe_1", "label": "a"}, {"ref": "inv_1", "label": "b"}]
    dropped = {"retain_active": [], "demote": [], "drop": ["inv_1"], "clear_all": False}
    script = turns.script(
        understand(),
        stock,
        stock,
        tool("db_read", at_step=1, table="inventory"),
        complete("Read the inventory", at_step=1),
        reply("Onion and spinach."),
        understand(
            needs_disambiguation=True, disambiguation_options=options, entity_curation=dropped
        ),
        understand(),
        plan("Show it", step("Read the recipe", "read", "recipes")),
        tool("db_read", table="recipes"),
        complete("Read it"),
        reply("Here it is."),
    )
    slow = slowed(turn_activities(turns.sessions, script), ("open_turn", "crud"), 0.9)
    async with turns.worker(script, activities=slow):
        first = await turns.start(
            "what else is in the dal apart from lentils", task_timeout=timedelta(seconds=1)
        )
        await wait_for(first, lambda p: p.status == "completed")
        second = await turns.start("open the lentil one", task_timeout=timedelta(seconds=1))
        await awaiting(second)
        await send(second, answer("answer", "2"))
        await wait_for(second, lambda p: p.status == "completed")
        histories = [await h.fetch_history() for h in (first, second)]
    assert [c.step for c in script.calls if c.node == "act"][:2] == [1, 1]  # the dal's: no model
    for history in histories:
        assert await replay_failures(history) == []


async def test_a_refusal_after_writes_on_a_slow_worker_writes_a_history_that_replays(
    turns: Turns, executor
):
    """A turn that writes, has a read step stopped by its breaker, and whose Reply turns
    the request down (the answer made without Reply: ``refused_what_was_written``), while
    slow local activities span workflow tasks: it completes, and its history replays in
    every busy shape."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "inventory", [{"name": "milk", "location": "fridge"}]
    )
    fridge = [{"field": "location", "op": "=", "value": "fridge"}]
    script = turns.script(
        understand(),
        plan(
            "Spinach",
            step("Put spinach on the shopping list", "write", "shopping"),
            step("Read the fridge", "read", "inventory"),
        ),
        tool("db_create", at_step=0, table="shopping_list", data=[{"name": "spinach"}]),
        complete("Put spinach on the list", at_step=0),
        *[
            tool("db_read", at_step=1, table="inventory", filters=fridge, limit=n)
            for n in (10, 20, 30, 40)
        ],
        reply("I'm sorry, but I can't assist with that request."),
    )
    slow = slowed(turn_activities(turns.sessions, script), ("open_turn", "crud"), 0.9)
    async with turns.worker(script, activities=slow):
        handle = await turns.start(
            "put spinach on the list, and what's in the fridge", task_timeout=timedelta(seconds=1)
        )
        await wait_for(handle, lambda p: p.status == "completed")
        history = await handle.fetch_history()
        result = await handle.result()
    assert result.fallbacks == ["reply: refused_what_was_written"]
    assert await replay_failures(history) == []


async def test_a_step_ended_by_a_second_empty_read_on_a_slow_worker_replays(turns: Turns):
    """Seed 000's duplicate empty query completes the step, nothing found (it was a
    breaker): the same commands either way, so ``empty_read_twice.json``, recorded on the
    breaker's code, replays beside this run. Slow local activities span workflow tasks
    between the two reads; the history replays in every busy shape."""
    slow = 0.9
    where = [{"field": "name", "op": "=", "value": "milk"}]
    script = turns.script(
        understand(),
        plan("Look", step("Read the list", "read", "shopping")),
        dict(tool("db_read", table="shopping_list", filters=where), delay_seconds=slow),
        tool("db_read", table="shopping_list", filters=[{**where[0], "value": "eggs"}]),
        reply("Neither is on your list."),
    )
    activities = slowed(turn_activities(turns.sessions, script), ("open_turn", "crud"), slow)
    async with turns.worker(script, activities=activities):
        handle = await turns.start(
            "any milk or eggs on my list?", task_timeout=timedelta(seconds=1)
        )
        await wait_for(handle, lambda p: p.status == "completed")
        result = await handle.result()
        state = await progress(handle)
        history = await handle.fetch_history()
        await keep_history(handle, "empty_read_twice")
    assert state.breakers == [] and state.steps[0].status == "completed"
    assert result.response.startswith("Neither is on your list.")
    assert "I stopped" not in result.response
    assert await replay_failures(history) == []
