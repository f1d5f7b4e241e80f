"""A plan that copies the example Think was shown (``domain.enforced.copied``), held to
this user's words in the think activity: the turn runs the plan that stands."""

from __future__ import annotations

from domain.crud.calls import DbRead
from domain.registry import SessionIdRegistry
from tests.kitchen_helper import Kitchen
from tests.workflows.conftest import Turns, send, wait_for
from tests.workflows.script import (
    complete,
    plan,
    reply,
    step,
    think_clarify,
    tool,
    understand,
)
from workflows.interface import UserInput


async def test_a_read_of_the_examples_place_is_dropped_and_the_users_is_read(
    turns: Turns, executor
):
    """For "what have i got in the fridge", shown "what's sitting on the top shelf of the
    pantry?", the 1.5B local model planned the fridge's read and the pantry's."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "inventory",
        [{"name": "milk", "location": "fridge"}, {"name": "rice", "location": "pantry"}],
    )
    by = {"field": "location", "op": "="}
    script = turns.script(
        understand(),
        plan(
            "What is in the fridge",
            step("Read the inventory rows whose location is fridge", "read", "inventory"),
            step("Read the inventory rows whose name contains peas", "read", "inventory"),
        ),
        tool("db_read", table="inventory", filters=[{**by, "value": "fridge"}]),
        complete("Read the fridge"),
        reply("Milk."),
    )
    async with turns.worker(script):
        result = await (await turns.start("what's in my fridge?")).result()
    assert [c.node for c in script.calls].count("think") == 1  # dropped, not asked again
    assert [c.step for c in script.calls if c.node == "act"] == [0, 0]
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert "milk" in reply_call.user and "peas" not in reply_call.user
    assert result.response.startswith("Milk.")


async def test_a_plan_that_copies_the_examples_dish_is_asked_for_again(turns: Turns, executor):
    """For "chili tonight", shown "we'll have the shakshuka for brunch on sunday", the
    1.5B local model planned the Shakshuka."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "recipes", [{"name": "Weeknight Chili", "instructions": ["Simmer."]}]
    )
    script = turns.script(
        understand(),
        plan("Tonight", step("Add Shakshuka to the meal plan for tonight", "write", "meal_plans")),
        plan("Tonight", step("Read the Weeknight Chili recipe", "read", "recipes")),
        tool("db_read", table="recipes"),
        complete("Read the chili"),
        reply("The chili it is."),
    )
    async with turns.worker(script):
        await (await turns.start("chili tonight")).result()
    first, again = [c.user for c in script.calls if c.node == "think"]
    assert "another user's request" not in first
    assert "Your plan names what this user never said" in again
    assert '- step 1 ("Add Shakshuka to the meal plan for tonight"): shakshuka' in again


async def test_a_read_of_another_place_than_the_one_asked_about_is_dropped(turns: Turns, executor):
    """For "what have i got in the fridge", shown "what's sitting on the top shelf of the
    pantry?", the 1.5B local model read the fridge and the pantry, and the user was told
    of the rice in the pantry."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "inventory",
        [{"name": "milk", "location": "fridge"}, {"name": "rice", "location": "pantry"}],
    )
    script = turns.script(
        understand(),
        plan(
            "What is in the fridge",
            step("Read the inventory rows whose location is fridge", "read", "inventory"),
            step("Read the inventory rows whose location is pantry", "read", "inventory"),
        ),
        tool(
            "db_read",
            table="inventory",
            filters=[{"field": "location", "op": "=", "value": "fridge"}],
        ),
        complete("Read the fridge"),
        reply("Milk."),
    )
    async with turns.worker(script):
        await (await turns.start("what have i got in the fridge")).result()
    assert [c.step for c in script.calls if c.node == "act"] == [0, 0]
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert "milk" in reply_call.user and "rice" not in reply_call.user


async def test_a_thing_put_in_another_place_than_the_one_named_is_asked_for_again(
    turns: Turns, executor
):
    """For "the rice lives in the cupboard now", shown "move the chicken breasts from the
    fridge to the freezer", the 1.5B local model set the rice's location to the fridge."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "inventory",
        [{"name": "rice", "location": "pantry"}, {"name": "milk", "location": "fridge"}],
    )
    to = "Set the location of the rice row in the inventory to {}"
    script = turns.script(
        understand(),
        plan("Rice", step(to.format("fridge"), "write", "inventory")),
        plan("Rice", step(to.format("cupboard"), "write", "inventory")),
        tool(
            "db_update",
            table="inventory",
            filters=[{"field": "name", "op": "=", "value": "rice"}],
            data={"location": "cupboard"},
        ),
        complete("Moved the rice"),
        reply("The rice is in the cupboard."),
    )
    async with turns.worker(script):
        await (await turns.start("the rice lives in the cupboard now")).result()
    again = [c.user for c in script.calls if c.node == "think"][1]
    assert "The request names the cupboard, and your plan puts things elsewhere:" in again
    rows = await Kitchen(executor, turns.user_id, SessionIdRegistry()).run(
        DbRead(table="inventory", filters=[{"field": "name", "op": "=", "value": "rice"}])
    )
    assert [r["location"] for r in rows.rows] == ["cupboard"]


async def test_a_plan_made_after_the_user_answered_a_pause_stands_as_it_is(turns: Turns):
    """After a pause the user answered, Think's plan is not held to the examples: the user
    answered the question its words came from (here "peas" in the answer's plan stands)."""
    script = turns.script(
        understand(),
        think_clarify("What to check", "Which shelf?"),
        understand(),
        plan(
            "Check", step("Read the inventory rows whose name contains peas", "read", "inventory")
        ),
        tool("db_read", table="inventory"),
        complete("Read it"),
        reply("No peas."),
    )
    async with turns.worker(script):
        handle = await turns.start("what's in my fridge?")
        await wait_for(handle, lambda p: p.status == "awaiting_input")
        await send(handle, UserInput(input_id="a1", action="answer", text="the freezer one"))
        await handle.result()
    assert [c.node for c in script.calls].count("think") == 2  # not asked a third time
    assert [c.step for c in script.calls if c.node == "act"] == [0, 0]
