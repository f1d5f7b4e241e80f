"""The mode's confirmation rules in a running turn (``domain.enforced.plan_rules.hold_plan``)."""

from __future__ import annotations

from domain.registry import SessionIdRegistry
from tests.kitchen_helper import Kitchen
from tests.workflows.conftest import Turns, keep_history, progress, send, wait_for
from tests.workflows.script import complete, plan, propose, reply, step, tool, understand
from workflows.interface import UserInput


async def test_in_plan_mode_a_plan_that_saves_what_it_generates_is_proposed_first(
    turns: Turns, executor
):
    script = turns.script(
        understand(),
        plan(
            "Dinners for the week",
            step("Choose the week's dinners", "generate", "meal_plans"),
            step("Save gen_meal_1", "write", "meal_plans", group=1),
        ),
    )
    async with turns.worker(script):
        handle = await turns.start("sort out my dinners this week")
        paused = await wait_for(handle, lambda p: p.pending is not None)
        await handle.cancel()  # and let it end while the worker runs: no task left open
        await wait_for(handle, lambda p: p.status == "cancelled")
        await keep_history(handle, "plan_saving_generated_proposed")
    assert paused.pending.kind == "proposal"
    assert paused.pending.message.startswith("This saves what I come up with")
    assert [c.node for c in script.calls] == ["understand", "think"]  # nothing generated yet
    assert await Kitchen(executor, turns.user_id, SessionIdRegistry()).names("meal_plans") == []


async def test_a_plan_adjusted_in_answer_to_the_proposal_runs_without_a_second_one(
    turns: Turns, executor
):
    """ "Yes, but just one": Think plans the adjusted steps, which run; no second proposal."""
    invent = step("Invent a soup", "generate", "recipes")
    save = step("Save gen_recipe_1", "write", "recipes", group=1)
    soup = {"type": "recipe", "content": {"name": "Leek Soup", "servings": 2}}
    script = turns.script(
        understand(),
        plan("Soups to keep", invent, save),
        understand(),
        plan("One soup to keep", invent, save),
        complete("Invented a soup", artifacts=[soup]),
        tool("db_create", at_step=1, table="recipes", data=[{"id": "gen_recipe_1"}]),
        complete("Saved it", at_step=1),
        reply("Saved Leek Soup."),
    )
    async with turns.worker(script):
        handle = await turns.start("invent a few soups and keep them")
        paused = await wait_for(handle, lambda p: p.pending is not None)
        assert paused.pending.kind == "proposal"
        await send(handle, UserInput(input_id="adjust-1", action="answer", text="yes, just one"))
        result = await handle.result()
    assert result.status == "completed" and result.response == "Saved Leek Soup."
    thinks = [c for c in script.calls if c.node == "think"]
    assert len(thinks) == 2 and "yes, just one" in thinks[1].user
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("recipes") == ["Leek Soup"]


async def test_in_plan_mode_writes_the_user_spelled_out_run_directly(turns: Turns, executor):
    script = turns.script(
        understand(),
        plan(
            "Milk and a task",
            step("Add milk", "write", "shopping"),
            step("Remind me to buy bread", "write", "tasks", group=1),
        ),
        tool("db_create", table="shopping_list", data={"name": "milk"}),
        complete("Added milk"),
        tool("db_create", at_step=1, table="tasks", data={"title": "Buy bread"}),
        complete("Added the task", at_step=1),
        reply("Added milk and a reminder about bread."),
    )
    async with turns.worker(script):
        handle = await turns.start("add milk and remind me about bread")
        result = await handle.result()
        shown = await progress(handle)
    assert result.response == "Added milk and a reminder about bread."
    assert shown.pending is None and [s.status for s in shown.steps] == ["completed"] * 2
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("shopping_list") == ["milk"]
    assert await kitchen.names("tasks") == ["Buy bread"]


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


async def test_in_plan_mode_a_proposal_that_writes_nothing_runs_at_once(turns: Turns):
    """Nothing to confirm: the plan only reads and generates (``domain.enforced``)."""
    script = turns.script(
        understand(),
        propose(
            "Dinner ideas",
            "Shall I look at your pantry and suggest a dinner?",
            step("Read the pantry", "read", "inventory"),
            step("Suggest a dinner", "generate", "recipes", group=1),
        ),
        complete("The pantry is empty", at_step=0),
        complete("Suggested nothing yet", at_step=1),
        reply("Here is an idea."),
    )
    async with turns.worker(script):
        handle = await turns.start("what could I cook tonight?", mode="plan")
        result = await handle.result()
        shown = await progress(handle)
    assert result.response.startswith("Here is an idea.")
    assert shown.pending is None and [s.status for s in shown.steps] == ["completed"] * 2


async def test_a_save_planned_beside_its_generate_runs_after_it(turns: Turns):
    """Seed 002's "generate then save" with both steps in group 0: the write waits."""
    script = turns.script(
        understand(),
        plan(
            "A soup to keep",
            step("Invent a soup", "generate", "recipes"),
            step("Save gen_recipe_1", "write", "recipes"),
        ),
        complete("Nothing to invent", at_step=0),
        complete("Nothing to save", at_step=1),
        reply("Done."),
    )
    async with turns.worker(script):
        handle = await turns.start("invent a soup and save it", mode="create")
        await handle.result()
        shown = await progress(handle)
    assert [(s.step_type, s.group) for s in shown.steps] == [("generate", 0), ("write", 1)]
    save = next(c for c in script.calls if c.node == "act" and c.step == 1)
    assert "Nothing to invent" in save.user  # the write is shown what the generate did
