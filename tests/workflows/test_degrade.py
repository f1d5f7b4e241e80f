"""A model that fails (unusable output after two repairs, or no answer at all) degrades the
turn, never kills it: a blocked step, an honest reply, a plan instead of a quick read, a
summary without the model. What was saved is said, from the writes' own results."""

from __future__ import annotations

from domain.registry import SessionIdRegistry
from domain.turn_store import get_turn, load_conversation
from tests.kitchen_helper import Kitchen
from tests.workflows.conftest import Turns, keep_history, progress
from tests.workflows.script import act, complete, plan, quick, reply, step, tool, understand
from tests.workflows.wire import http_error

ADD = step("Add milk to the shopping list", "write", "shopping")
TASK = step("Add a task to buy bread", "write", "tasks")
EGGS = step("Add eggs to the shopping list", "write", "shopping")
BAD_QUICK_READ = {
    "node": "act_quick",
    "output": {
        "tool": "db_read",
        "params": {
            "table": "shopping_list",
            "filters": [{"field": "colour", "op": "=", "value": "red"}],
        },
    },
}
"""A read the schema allows and the executor refuses: no column ``colour``."""
BROKEN_ACT = {"node": "act", "output": {"decision": {"action": "tool_call"}}}
"""Valid JSON, but a tool_call without its tool: fails validation every time."""


def milk(at_step: int | None = None) -> dict:
    return tool("db_create", at_step, table="shopping_list", data={"name": "milk"})


async def test_an_act_step_without_a_usable_decision_is_blocked_and_the_reply_says_so(
    turns: Turns,
):
    script = turns.script(
        understand(),
        plan("Shopping and a task", ADD, {**TASK, "group": 1}),
        milk(at_step=0),
        complete("Added milk", at_step=0),
        *[{**BROKEN_ACT, "step": 1}] * 3,
        reply("I added milk; I couldn't add the task."),
    )
    async with turns.worker(script):
        # create mode: a plan that writes twice runs without a proposal
        handle = await turns.start("add milk to my list and remind me to buy bread", mode="create")
        result = await handle.result()
        state = await progress(handle)
        await keep_history(handle, "act_step_blocked")
    assert result.status == "completed"
    assert result.response == (  # what was written, from the write's own result
        "I added milk; I couldn't add the task.\n\n"
        "Changes made: Added 1 item to your shopping list: milk."
    )
    assert result.fallbacks == ["act step 2: invalid_output"]
    assert [s.status for s in state.steps] == ["completed", "blocked"]
    reply_request = next(c for c in script.calls if c.node == "reply").user
    assert "invalid_model_output" in reply_request
    assert "Step 2 stopped: the model's answer could not be used" in reply_request
    assert state.usage.repairs == 2 and state.llm_calls == 9  # 3 act calls for step 2


async def test_a_call_refused_twice_is_told_without_the_executors_words_when_reply_refuses(
    turns: Turns,
):
    """For "what kind of cuisine is the dal" the 1.5B local model read the preferences by
    ``id = user_id`` twice; Reply refused, and the user was told "filters[0].value:
    'user_id' is not a ref: this column takes the ref of a row of preferences …"."""
    bad = tool(
        "db_read", 0, table="preferences", filters=[{"field": "id", "op": "=", "value": "me"}]
    )
    script = turns.script(
        understand(),
        plan("The profile", step("Read the preferences", "read", "preferences")),
        bad,
        bad,
        reply("I'm sorry, but I can't assist with that."),
    )
    async with turns.worker(script):
        handle = await turns.start("what do you know about me")
        result = await handle.result()
    assert "reply: refused_what_was_blocked" in result.fallbacks
    assert "The lookup was refused twice. Ask again in other words." in result.response
    assert "not a ref" not in result.response and "filters[0]" not in result.response


async def test_a_read_step_that_has_read_ends_with_its_rows_when_its_answer_is_unusable(
    turns: Turns, executor
):
    """``domain.enforced.act_rules.read_made``: for "plan the dal for the day after
    tomorrow" the 1.5B local model read the dal, then wrote a summary past the read
    step's output cap three times; the step was blocked and the meal plan never written."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("shopping_list", [{"name": "milk"}])
    script = turns.script(
        understand(),
        plan("Eggs too", step("Read the shopping list", "read", "shopping"), {**EGGS, "group": 1}),
        tool("db_read", at_step=0, table="shopping_list"),
        *[{**BROKEN_ACT, "step": 0}] * 3,
        tool("db_create", 1, table="shopping_list", data={"name": "eggs"}),
        complete("Added eggs", at_step=1),
        reply("Eggs are on your list with the milk."),
    )
    async with turns.worker(script):
        handle = await turns.start("put eggs on my list too")
        result = await handle.result()
        state = await progress(handle)
        await keep_history(handle, "read_made")
    assert [s.status for s in state.steps] == ["completed", "completed"]
    assert state.steps[0].summary == "Read 1 row(s) from shopping_list."
    assert result.fallbacks == []
    assert await kitchen.names("shopping_list") == ["eggs", "milk"]
    assert state.usage.repairs == 2  # the unusable answers still count


async def test_a_model_that_stops_answering_after_a_write_ends_with_what_was_saved(
    turns: Turns,
):
    script = turns.script(
        understand(),
        plan("Shopping and a task", ADD, {**TASK, "group": 1}),
        milk(at_step=0),
        complete("Added milk", at_step=0),
        http_error("act", 503),
        http_error("reply", 503),
    )
    async with turns.worker(script):
        # create mode: a plan that writes twice runs without a proposal
        handle = await turns.start("add milk to my list and remind me to buy bread", mode="create")
        result = await handle.result()
        await keep_history(handle, "model_unavailable_after_write")
    assert result.status == "completed"
    assert result.fallbacks == ["act step 2: http_503", "reply: http_503"]
    assert result.response == (
        "Here is what I got done: Added milk. Step 2 stopped: the model service did not "
        "answer. Try again in a moment.\n\nChanges made: Added 1 item to your shopping "
        "list: milk."
    )
    assert "503" not in result.response
    row = await get_turn(turns.sessions, turns.user_id, turns.conversation_id, 1)
    assert row.response == result.response


async def test_a_quick_read_that_fails_is_asked_again_with_the_error(turns: Turns, executor):
    script = turns.script(
        quick("Show the shopping list", "shopping"),
        BAD_QUICK_READ,
        {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "shopping_list"}}},
    )
    async with turns.worker(script):
        result = await (await turns.start("what's on my list?")).result()
    assert result.status == "completed" and "empty" in result.response.lower()
    retry = [c for c in script.calls if c.node == "act_quick"][1].user
    assert "## Your previous read failed" in retry and "colour" in retry
    assert result.fallbacks == []


async def test_a_quick_read_that_fails_twice_is_planned_instead(turns: Turns, executor):
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "shopping_list", [{"name": "eggs"}]
    )
    bad = BAD_QUICK_READ
    script = turns.script(
        quick("Show the shopping list", "shopping"),
        bad,
        bad,
        plan("Show the list", step("Read the shopping list", "read", "shopping")),
        tool("db_read", table="shopping_list"),
        complete("One item: eggs"),
        reply("You have eggs on your list."),
    )
    async with turns.worker(script):
        handle = await turns.start("what's on my list?")
        result = await handle.result()
        await keep_history(handle, "quick_read_planned_instead")
    assert result.response == "You have eggs on your list."
    assert result.fallbacks == ["act quick: read_failed"]
    assert [c.node for c in script.calls][:5] == [
        "understand",
        "act_quick",
        "act_quick",
        "think",
        "act",
    ]
    assert script.unused() == []


async def test_understand_failing_for_good_gets_an_honest_reply(turns: Turns):
    script = turns.script(http_error("understand", 400))
    async with turns.worker(script):
        result = await (await turns.start("hello")).result()
    assert result.status == "completed"
    assert result.response.startswith(
        "I couldn't work out what you meant: the model service refused the request."
    )
    assert result.fallbacks == ["understand: http_400"]


async def test_a_summary_the_model_cannot_give_is_made_without_it_and_the_reply_stays(
    turns: Turns,
):
    script = turns.script(
        understand(),
        plan("Add milk", ADD),
        milk(),
        complete("Added milk"),
        reply("Milk is on your list."),
        http_error("summarize", 400),
        summarize=False,
    )
    async with turns.worker(script):
        result = await (await turns.start("add milk")).result()
    assert result.status == "completed" and result.response == "Milk is on your list."
    assert result.fallbacks == ["summarize: http_400"]
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert state.recent_turns[-1].assistant_response == "Milk is on your list."


async def test_reply_is_shown_what_a_blocked_step_did_find(turns: Turns, executor):
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "shopping_list", [{"name": "eggs"}]
    )
    blocked = {
        "action": "blocked",
        "reason_code": "ambiguous",
        "details": "Two lists could match.",
    }
    script = turns.script(
        understand(),
        plan("Tidy the list", step("Tidy the shopping list", "write", "shopping")),
        tool("db_read", table="shopping_list"),
        act(blocked),
        reply("I found eggs but stopped."),
    )
    async with turns.worker(script):
        await (await turns.start("tidy my list")).result()
    reply_request = next(c for c in script.calls if c.node == "reply").user
    assert "Two lists could match." in reply_request and '"eggs"' in reply_request
