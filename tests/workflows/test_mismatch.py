"""Action mismatch (seed 000): the user asked for a change and the turn only looked data
up; the reply says so, on the quick path and the planned one, with or without a model."""

from __future__ import annotations

import datetime as dt

from domain.crud.calls import DbRead
from domain.registry import SessionIdRegistry
from tests.kitchen_helper import PANTRY, Kitchen, f
from tests.workflows.conftest import Turns, keep_history, progress, the_turns_day
from tests.workflows.script import complete, plan, quick, reply, step, tool, understand
from workflows.interface import TurnLimits

NOTHING_CHANGED = 'You asked me to change something ("add"), but I only looked it up'


async def quick_pantry_answer(turns: Turns, executor, message: str) -> str:
    """The quick path's answer to ``message``: Understand takes it for an inventory read."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create("inventory", PANTRY)
    script = turns.script(
        quick("Show the inventory", "inventory"),
        {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "inventory"}}},
    )
    async with turns.worker(script):
        return (await (await turns.start(message)).result()).response


async def test_a_write_request_never_takes_the_quick_path(turns: Turns):
    """Quick mode is read-only (seed 004): Understand's quick path is held off for a
    message that asks for a change, and Think plans the turn."""
    script = turns.script(
        quick("Show the list", "shopping"),
        plan("Add eggs", step("Add eggs", "write", "shopping")),
        tool("db_create", table="shopping_list", data={"name": "eggs"}),
        complete("Added eggs"),
        reply("Added eggs to your list."),
    )
    async with turns.worker(script):
        result = await (await turns.start("add eggs to my shopping list", mode="quick")).result()
    assert [c.node for c in script.calls][:2] == ["understand", "think"]
    assert "act_quick" not in [c.node for c in script.calls]
    assert result.response.startswith("Added eggs to your list.")


async def test_a_lookup_on_the_quick_path_has_no_such_note(turns: Turns, executor):
    shown = await quick_pantry_answer(turns, executor, "what's in my pantry?")
    assert "milk" in shown and "only looked it up" not in shown


async def test_a_plan_that_only_reads_for_a_change_is_asked_for_again(turns: Turns, executor):
    """``domain.enforced.plan_rules.changes_nothing``: Think, shown its plan, plans the write."""
    script = turns.script(
        understand(),
        plan("Tasks", step("Read my tasks", "read", "tasks")),
        plan("A task", step("Add the task 'Defrost the chicken'", "write", "tasks")),
        tool("db_create", table="tasks", data={"title": "Defrost the chicken"}),
        complete("Added the task"),
        reply("Added: defrost the chicken."),
    )
    async with turns.worker(script):
        handle = await turns.start("remind me to defrost the chicken")
        result = await handle.result()
        state = await progress(handle)
    first, again = [c.user for c in script.calls if c.node == "think"]
    assert "## Your plan, asked again" not in first
    assert 'asks for a change ("remind"), and your plan only reads:' in again
    assert "- group 0, read (tasks): Read my tasks" in again
    assert result.response.startswith("Added: defrost the chicken.")
    assert state.llm_calls == len(script.calls)  # both of Think's calls are counted
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("tasks") == ["Defrost the chicken"]


async def test_when_think_asked_again_does_not_answer_its_first_plan_runs(turns: Turns):
    script = turns.script(
        understand(),
        plan("Shop", step("Read the list", "read", "shopping")),  # and no second answer
        tool("db_read", table="shopping_list"),
        complete("The list is empty"),
        reply("I only checked your list."),
    )
    async with turns.worker(script):
        result = await (await turns.start("add eggs to the shopping list")).result()
    assert [c.node for c in script.calls][:3] == ["understand", "think", "think"]
    assert result.status == "completed" and result.fallbacks == []
    assert result.response.startswith("I only checked your list.")


def only_a_read() -> list[dict]:
    """The model, asked again, keeps its plan that only reads."""
    read = plan("Shop", step("Read the list", "read", "shopping"))
    return [
        understand(),
        read,
        read,
        tool("db_read", table="shopping_list"),
        complete("The list is empty"),
    ]


async def test_reply_is_warned_when_a_planned_turn_only_read(turns: Turns):
    script = turns.script(*only_a_read(), reply("I only checked your list."))
    async with turns.worker(script):
        await (await turns.start("add eggs to the shopping list")).result()
    reply_prompt = [c.user for c in script.calls if c.node == "reply"][0]
    assert '## Warnings\nACTION MISMATCH: the user asked for a change ("add")' in reply_prompt


async def test_the_reply_without_a_model_says_nothing_changed(turns: Turns):
    script = turns.script(*only_a_read())  # no reply answer: the model call fails
    async with turns.worker(script):
        result = await (await turns.start("add eggs to the shopping list")).result()
    assert result.status == "completed"
    assert result.response.startswith(NOTHING_CHANGED)
    assert result.response.endswith("Your shopping list is empty.")  # what the read found


async def test_a_write_made_before_a_limit_stopped_the_step_is_no_mismatch(turns: Turns, executor):
    script = turns.script(
        understand(),
        plan("Shop", step("Add eggs", "write", "shopping")),
        tool("db_create", table="shopping_list", data=[{"name": "eggs"}]),
    )
    async with turns.worker(script):
        handle = await turns.start(
            "add eggs to the shopping list", limits=TurnLimits(max_llm_calls=3)
        )
        result = await handle.result()
    assert result.status == "completed"
    assert "only looked it up" not in result.response
    assert "eggs" in result.response
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("shopping_list") == ["eggs"]


async def asked_again(turns: Turns, message: str, *answers: dict, **start):
    """Run ``message`` with the model's ``answers``: Think's second request (the one that
    asks again), the turn's reply and the script (its calls)."""
    script = turns.script(*answers)
    async with turns.worker(script):
        result = await (await turns.start(message, **start)).result()
    return [c.user for c in script.calls if c.node == "think"][1], result.response, script


async def test_a_meal_on_a_day_planned_as_a_new_recipe_is_asked_for_again(turns, executor):
    """``domain.enforced.plan_rules.unplanned_meal``: "i'd like the dal on tuesday" planned as a
    recipe is shown to Think with the day; its second plan puts the saved dal on the
    meal plan, and no recipe is created."""
    first = plan("Dal", step("Create the recipe 'Dal on Tuesday'", "write", "recipes"))
    again = await dal_asked_again(turns, executor, first)
    assert "## Your plan, asked again\nThe request names a day" in again
    assert "- group 0, write (recipes): Create the recipe 'Dal on Tuesday'" in again


async def test_a_meal_planned_with_another_saved_recipe_than_named_is_asked_again(turns, executor):
    """``domain.enforced.copied.other_recipe_note``: for "chili for dinner friday and
    saturday" the 1.5B local model planned the Red Lentil Dal, on the meal plan already,
    for the Friday; asked again, the chili goes on both days."""
    today = await the_turns_day(turns)
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    dal, chili = (
        await kitchen.create("recipes", [{"name": "Red Lentil Dal"}, {"name": "Weeknight Chili"}])
    ).rows
    day = (today + dt.timedelta(days=1)).isoformat()
    await kitchen.create(
        "meal_plans", [{"date": day, "meal_type": "dinner", "recipe_id": dal["id"]}]
    )
    again, _, script = await asked_again(
        turns,
        "the chili for dinner tomorrow",
        understand(),
        plan(
            "Dinner",
            step("Add Red Lentil Dal to the meal plan for tomorrow", "write", "meal_plans"),
        ),
        plan(
            "Dinner",
            step("Add Weeknight Chili to the meal plan for tomorrow", "write", "meal_plans"),
        ),
        complete("Planned", at_step=1),
        reply("The chili is on tomorrow's dinner."),
    )
    assert "The request names Weeknight Chili, and your plan puts another recipe" in again
    acts = [c.user for c in script.calls if c.node == "act"]
    assert "Add Weeknight Chili to the meal plan for tomorrow" in acts[0]


async def dal_asked_again(turns: Turns, executor, first: dict) -> str:
    """ "i'd like the dal on tuesday" with a Red Lentil Dal saved, Think's ``first`` plan,
    and a second that reads the dal and plans it: the second plan runs, the saved dal is
    on Tuesday's dinner and no recipe is created. Think's second request."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("recipes", [{"name": "Red Lentil Dal"}])
    again, response, _ = await asked_again(
        turns,
        "i'd like the dal on tuesday",
        understand(),
        first,
        plan(
            "Dal on Tuesday",
            step("Read the dal recipe by its name", "read", "recipes"),
            step("Put it on Tuesday's dinner", "write", "meal_plans", group=1),
        ),
        tool(
            "db_read", table="recipes", filters=[{"field": "name", "op": "ilike", "value": "%dal%"}]
        ),
        complete("Found Red Lentil Dal"),
        tool(
            "db_create",
            table="meal_plans",
            data={"date": "2026-12-01", "meal_type": "dinner", "recipe_id": "recipe_1"},
        ),
        complete("Planned"),
        reply("Red Lentil Dal is on Tuesday's dinner."),
    )
    assert response.startswith("Red Lentil Dal is on Tuesday's dinner.")
    assert await kitchen.names("recipes") == ["Red Lentil Dal"]
    planned = (await kitchen.run(DbRead(table="meal_plans"))).rows
    assert [(row["meal_type"], row["recipe_id"]) for row in planned] == [("dinner", "recipe_1")]
    return again


async def test_a_meal_chosen_anew_for_a_saved_dish_the_words_name_is_asked_for_again(
    turns, executor
):
    """For "dal for dinner friday" (no "the": the dashboard finds the saved dal) the 1.5B
    local model planned a new dinner chosen for Friday, and proposed it."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "recipes", [{"name": "Red Lentil Dal"}]
    )
    chosen = plan(
        "Dinner on Friday",
        step("Choose a dinner for Friday", "generate", "meal_plans"),
        step("Add the chosen dinner to the meal plan", "write", "meal_plans", group=1),
    )
    again, _, script = await asked_again(
        turns,
        "dal for dinner friday",
        understand(),
        chosen,
        plan("Dal on Friday", step("Read the dal recipe by its name", "read", "recipes")),
        tool("db_read", table="recipes"),
        complete("Found Red Lentil Dal"),
        reply("Found it."),
    )
    first = [c.user for c in script.calls if c.node == "think"][0]
    assert "- recipes: 1 (1 unspecified); among them Red Lentil Dal, named in the request" in first
    assert "The request asks for a change and for no new recipe, and your plan generates" in again


async def test_a_thing_needed_planned_into_the_inventory_is_asked_for_again(turns, executor):
    """Shown "we need paper towels", the 1.5B local model planned "need another bag of
    rice" as an inventory row: a thing needed is bought, so the plan is shown to Think
    with the shopping list as the change's home, and its second plan lists the rice."""
    again, response, script = await asked_again(
        turns,
        "need another bag of rice",
        understand(),
        plan("Rice", step("Add another bag of rice to the inventory", "write", "inventory")),
        plan("Rice to buy", step("Add a bag of rice to the shopping list", "write", "shopping")),
        tool("db_create", table="shopping_list", data={"name": "rice", "quantity": 1}),
        complete("Added rice"),
        reply("Rice is on your shopping list."),
    )
    assert 'The request reads as a change to shopping ("need")' in again
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("shopping_list") == ["rice"]
    assert (await kitchen.run(DbRead(table="inventory"))).rows == []


async def test_a_recipe_asked_for_and_still_saved_inline_is_thought_up(turns, executor):
    """``domain.enforced.plan_rules.thought_up``: asked again, the 1.5B local model planned the
    omelette created "as the user gave them" once more, and the turn asked the user for
    the ingredients; the write is made a generate step, and the save follows it."""
    omelette = {"name": "Simple Omelette", "servings": 1, "instructions": ["Whisk", "Fry"]}
    inline = plan(
        "Omelette",
        step("Create the recipe 'Simple Omelette', as the user gave it", "write", "recipes"),
    )
    script = turns.script(
        understand(),
        inline,
        inline,
        complete("Created Simple Omelette", artifacts=[{"type": "recipe", "content": omelette}]),
        tool("db_create", table="recipes", data={"id": "gen_recipe_1"}),
        complete("Saved Simple Omelette"),
        reply("Simple Omelette is in your recipes."),
    )
    async with turns.worker(script):
        handle = await turns.start("save me a simple omelette recipe", mode="create")
        await handle.result()
        await keep_history(handle, "thought_up")
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("recipes") == ["Simple Omelette"]


async def test_a_dislike_at_home_planned_as_a_recipe_edit_is_kept_in_the_profile(turns, executor):
    """``domain.enforced.profile``: for "my husband hates mushrooms so leave them out" the
    1.5B local model rewrote the dal's instructions (it has no mushrooms), twice, and the
    turn asked where; said of someone at home, the dislike is the profile's, and the plan
    writes there, with no second plan asked for."""
    dal = {"name": "Red Lentil Dal", "instructions": ["Simmer the lentils."]}
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("recipes", [dal])
    script = turns.script(
        understand(),
        plan("No mushrooms", step("Remove mushrooms from the dal", "write", "recipes")),
        tool("db_create", table="preferences", data={"disliked_ingredients": ["mushrooms"]}),
        complete("Saved the dislike"),
        reply("Mushrooms are off the menu."),
    )
    async with turns.worker(script):
        handle = await turns.start("my husband hates mushrooms so leave them out")
        result = await handle.result()
        await keep_history(handle, "kept_in_profile")
    assert result.status == "completed"
    assert [c.node for c in script.calls].count("think") == 1
    act = next(c.user for c in script.calls if c.node == "act")
    assert "(type write, subdomain preferences)" in act
    assert "Save to the user's preferences (disliked_ingredients) what their words say" in act
    prefs = (await kitchen.run(DbRead(table="preferences"))).rows
    assert prefs[0]["disliked_ingredients"] == ["mushrooms"]
    recipes = (await kitchen.run(DbRead(table="recipes"))).rows
    assert recipes[0]["instructions"] == ["Simmer the lentils."]


async def test_a_saved_recipe_said_to_need_a_thing_planned_as_stock_is_asked_again(turns, executor):
    """``domain.enforced.plan_rules.change_said``: for "the chili needs a tin of sweetcorn as
    well" the 1.5B local model read and set a sweetcorn row of the inventory, where there
    was none; the dashboard names the saved chili, so the change is the recipe's."""
    chili = {"name": "Weeknight Chili", "recipe_ingredients": [{"name": "beef mince"}]}
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("recipes", [chili])
    sweetcorn = {"recipe_id": "recipe_1", "name": "sweetcorn", "quantity": 1, "unit": "tin"}
    again, _, _ = await asked_again(
        turns,
        "the chili needs a tin of sweetcorn as well",
        understand(),
        plan("Sweetcorn", step("Set the sweetcorn row of the inventory", "write", "inventory")),
        plan("Sweetcorn", step("Add sweetcorn to the chili's ingredients", "write", "recipes")),
        tool("db_create", at_step=1, table="recipe_ingredients", data=sweetcorn),  # read first
        complete("Added the sweetcorn", at_step=1),
        reply("The chili has sweetcorn now."),
    )
    assert 'The request reads as a change to recipes ("needs")' in again
    ingredients = (await kitchen.run(DbRead(table="recipe_ingredients"))).rows
    assert sorted(i["name"] for i in ingredients) == ["beef mince", "sweetcorn"]
    assert (await kitchen.run(DbRead(table="inventory"))).rows == []


async def test_things_due_moved_about_the_inventory_are_asked_for_again(turns, executor):
    """``domain.enforced.plan_rules.misplaced_change``: for "move whatever is due tomorrow to
    saturday" the 1.5B local model moved a dal and "Mexican 1" about the inventory; what
    is due is a task."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("tasks", [{"title": "Clean the oven", "due_date": "2026-11-30"}])
    oven = [{"field": "title", "op": "=", "value": "Clean the oven"}]
    again, _, _ = await asked_again(
        turns,
        "move whatever is due tomorrow to saturday",
        understand(),
        plan("Move", step("Move the Red Lentil Dal to the shopping list", "write", "inventory")),
        plan("Move", step("Set the oven task's due date to 2026-12-05", "write", "tasks")),
        tool("db_update", table="tasks", filters=oven, data={"due_date": "2026-12-05"}),
        complete("Moved the oven"),
        reply("The oven is due on Saturday now."),
    )
    assert "The request reads as a change to tasks" in again
    tasks = (await kitchen.run(DbRead(table="tasks"))).rows
    assert [(t["title"], t["due_date"]) for t in tasks] == [("Clean the oven", "2026-12-05")]
    assert (await kitchen.run(DbRead(table="inventory"))).rows == []


async def test_a_change_to_the_todo_list_planned_as_meals_is_asked_for_again(turns, executor):
    """``domain.intent.change_home``: a change verb said of "my todo list" is the tasks';
    told nothing of where, "push everything on my todo list back a week" was shown
    "push the fish pie back to next thursday", a meal moved."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("tasks", [{"title": "Clean the oven", "due_date": "2026-12-02"}])
    oven = [{"field": "title", "op": "=", "value": "Clean the oven"}]
    again, _, script = await asked_again(
        turns,
        "push everything on my todo list back a week",
        understand(),
        plan("Later", step("Move every meal a week later", "write", "meal_plans")),
        plan("Later", step("Set the oven task's due date to 2026-12-09", "write", "tasks")),
        tool("db_update", table="tasks", filters=oven, data={"due_date": "2026-12-09"}),
        complete("Moved the oven"),
        reply("The oven is due a week later."),
    )
    assert 'The request reads as a change to tasks ("push")' in again
    shown = next(c.system for c in script.calls if c.node == "think")
    assert "put off clearing the gutters" in shown and "fish pie" not in shown
    tasks = (await kitchen.run(DbRead(table="tasks"))).rows
    assert [(t["title"], t["due_date"]) for t in tasks] == [("Clean the oven", "2026-12-09")]


async def test_a_question_about_an_open_task_read_elsewhere_reads_the_tasks(turns, executor):
    """``domain.enforced.plan_rules.read_there``: for "how many days till the plumber" the 1.5B
    local model read the inventory for the plumber, and kept that plan when told; the
    dashboard names the open task, so the tasks are read too, and Reply is told how far
    off it is due."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    due = await the_turns_day(turns) + dt.timedelta(days=3)
    await kitchen.create("tasks", [{"title": "Call the plumber", "due_date": due.isoformat()}])
    stock = plan("Plumber", step("Read the inventory for the plumber", "read", "inventory"))
    again, _, script = await asked_again(
        turns,
        "how many days till the plumber",
        understand(),
        stock,
        stock,
        tool("db_read", at_step=1, table="inventory"),  # the tasks' read is the system's
        complete("Nothing there", at_step=1),
        reply("The plumber is due in 3 days."),
    )
    assert "The request asks about tasks, and your plan reads only inventory" in again
    told = next(c for c in script.calls if c.node == "reply").user
    assert f"- [ ] Call the plumber (due {due:%a} {due.isoformat()}, in 3 days)" in told


async def test_a_purchase_planned_as_a_recipe_is_asked_for_again(turns, executor):
    """``domain.enforced.plan_rules.misplaced_change``: "I just bought 2 liters of milk" planned as
    a recipe is shown to Think with where the change belongs; its second plan adds the
    milk to the inventory, and no recipe is created."""
    again, response, script = await asked_again(
        turns,
        "I just bought 2 liters of milk",
        understand(),
        plan("Milk", step("Save '2 liters of milk'", "write", "recipes")),
        plan("Milk bought", step("Add the milk to the inventory", "write", "inventory")),
        tool("db_create", table="inventory", data={"name": "milk", "quantity": 2, "unit": "l"}),
        complete("Added milk"),
        reply("Added 2 l of milk to your inventory."),
    )
    assert "## Your plan, asked again\nThe request reads as a change to inventory or" in again
    assert "your plan changes only recipes:\n- group 0, write (recipes): Save" in again
    assert response.startswith("Added 2 l of milk to your inventory.")
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("inventory") == ["milk"]
    assert (await kitchen.run(DbRead(table="recipes"))).rows == []


async def test_a_plan_that_only_reads_for_something_new_is_asked_for_again(turns):
    """``domain.enforced.plan_rules.invents_nothing``: "invent a spicy cod dish" planned as a read
    of the recipes is shown to Think; its second plan generates the dish, unsaved."""
    dish = {"name": "Spicy Cod Stew", "ingredients": [{"name": "cod"}], "instructions": ["Stew."]}
    again, response, script = await asked_again(
        turns,
        "invent a spicy cod dish",
        understand(),
        plan("Cod", step("Read the recipes with cod", "read", "recipes")),
        plan("A cod dish", step("Invent a spicy cod dish", "generate", "recipes")),
        complete("Invented Spicy Cod Stew", content=[dish]),
        reply("Here is Spicy Cod Stew."),
        mode="create",
    )
    assert 'The request asks for something new ("invent"), and your plan only reads' in again
    assert response.startswith("Here is Spicy Cod Stew.")
    assert [c.node for c in script.calls if c.node == "act"] == ["act"]  # no read ran


async def test_a_recipe_asked_for_and_saved_inline_is_thought_up_first(turns, executor):
    """``domain.enforced.plan_rules.invents_nothing``: for "save me a simple omelette recipe"
    the 1.5B local model planned a recipe created "as the user gave them" (they gave none),
    and Act's create was refused as made up. Think is asked again; its second plan
    thinks the omelette up, and the save that the words ask for saves it (create mode)."""
    omelette = {"name": "Simple Omelette", "servings": 1, "instructions": ["Whisk", "Fry"]}
    inline = "Create the recipe 'Simple Omelette' with its ingredients, as the user gave them"
    again, _, _ = await asked_again(
        turns,
        "save me a simple omelette recipe",
        understand(),
        plan("Omelette", step(inline, "write", "recipes")),
        plan("Omelette", step("Think up a simple omelette", "generate", "recipes")),
        complete("Created Simple Omelette", artifacts=[{"type": "recipe", "content": omelette}]),
        tool("db_create", table="recipes", data={"id": "gen_recipe_1"}),
        complete("Saved Simple Omelette"),
        reply("Simple Omelette is in your recipes."),
        mode="create",
    )
    assert "and your plan saves a recipe nothing has thought up" in again
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("recipes") == ["Simple Omelette"]


async def test_a_plan_that_writes_for_a_question_is_asked_for_again(turns, executor):
    """``domain.enforced.plan_rules.writes_unasked``: "what's planned for dinner on monday?" planned
    with a write to the meal plan is shown to Think; its second plan only reads, and
    nothing is written."""
    again, response, script = await asked_again(
        turns,
        "what's planned for dinner on monday?",
        understand(),
        plan(
            "Dinner",
            step("Read Monday's meal plan", "read", "meal_plans"),
            step("Add lunches for the week", "write", "meal_plans", group=1),
        ),
        plan("Monday's dinner", step("Read Monday's meal plan", "read", "meal_plans")),
        tool("db_read", table="meal_plans"),
        complete("Nothing planned"),
        reply("Nothing is planned for Monday's dinner yet."),
    )
    assert "The request asks to see or know something, not to change anything" in again
    assert response.startswith("Nothing is planned for Monday's dinner yet.")
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert (await kitchen.run(DbRead(table="meal_plans"))).rows == []


async def test_a_plan_that_writes_for_a_question_twice_runs_only_its_reads(turns, executor):
    """``domain.enforced.plan_rules.only_reads``: "anything i need to do this week?" planned twice
    with a week of new tasks: the reads answer it, with no proposal and no write."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("tasks", {"title": "clean the oven"})
    week = plan(
        "This week",
        step("Read the tasks", "read", "tasks"),
        step("Add a task for each day", "write", "tasks", group=1),
    )
    again, response, script = await asked_again(
        turns,
        "anything i need to do this week?",
        understand(),
        week,
        week,
        tool("db_read", table="tasks"),
        complete("Read the tasks"),
        reply("Clean the oven is on your list."),
    )
    assert "The request asks to see or know something, not to change anything" in again
    assert response.startswith("Clean the oven is on your list.")
    assert await kitchen.names("tasks") == ["clean the oven"]
    assert len([c for c in script.calls if c.node == "act"]) == 2  # the read, its end


async def test_a_question_planned_twice_as_only_writes_reads_where_its_words_say(turns, executor):
    """``domain.enforced.plan_rules.only_reads``: for "anything i need to do in the next 2
    days" (no question mark) the 1.5B local model planned one write of three meals; the
    system reads the tasks the words name instead, and nothing is written."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("tasks", {"title": "clean the oven"})
    meals = plan("Meals", step("Plan a meal for each of the next 2 days", "write", "meal_plans"))
    again, response, script = await asked_again(
        turns,
        "anything i need to do in the next 2 days",
        understand(),
        meals,
        meals,
        reply("Clean the oven is on your list."),
    )
    assert "The request asks to see or know something, not to change anything" in again
    assert response.startswith("Clean the oven is on your list.")
    assert [c for c in script.calls if c.node == "act"] == []  # the tasks' read is the system's
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert "clean the oven" in reply_call.user
    assert (await kitchen.run(DbRead(table="meal_plans"))).rows == []


async def test_meals_planned_twice_for_words_that_speak_of_none_are_dropped(turns, executor):
    """``domain.enforced.plan_rules.meals_unasked`` and ``meals_dropped``: for "call the dal
    mums dal from now on" (a rename since, ``intent.RENAMED``) the 1.5B local model planned
    a read and a meal for today, asked again it kept the meal, and the turn asked the user
    which days and meals. For words that speak of no meal the meal is dropped; the turn
    asks nothing and plans no meal."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("recipes", [{"name": "Red Lentil Dal"}])
    meal = plan(
        "Mums dal",
        step("Read the Red Lentil Dal recipe", "read", "recipes"),
        step("Plan a meal for Red Lentil Dal today", "generate", "meal_plans", group=1),
    )
    again, response, script = await asked_again(
        turns,
        "my mum makes the best dal",
        understand(),
        meal,
        meal,
        tool("db_read", table="recipes"),
        complete("Read the dal"),
        reply("Your Red Lentil Dal is saved."),
    )
    assert "The request speaks of no meal, no day and no plan" in again
    assert response.startswith("Your Red Lentil Dal is saved.")
    assert [c.step for c in script.calls if c.node == "act"] == [0, 0]  # the read alone
    assert (await kitchen.run(DbRead(table="meal_plans"))).rows == []


async def test_a_plan_that_thinks_something_up_for_a_lookup_runs_only_its_reads(turns):
    """``domain.enforced.plan_rules.generates_unasked``: for "whats for lunch tomorrow" the
    1.5B local model read the meal plan, then generated a lunch, and Reply said it was
    planned; the read answers it, with nothing thought up."""
    script = turns.script(
        understand(),
        plan(
            "Lunch tomorrow",
            step("Read tomorrow's meal plan", "read", "meal_plans"),
            step("Generate a lunch for tomorrow", "generate", "meal_plans", group=1),
        ),
        tool("db_read", at_step=0, table="meal_plans"),
        complete("Nothing planned tomorrow", at_step=0),
        reply("Nothing is planned for lunch tomorrow."),
    )
    async with turns.worker(script):
        handle = await turns.start("whats for lunch tomorrow")
        response = await handle.result()
        await keep_history(handle, "generates_unasked")
    assert [c.step for c in script.calls if c.node == "act"] == [0, 0]  # the read alone
    assert response.response.startswith("Nothing is planned for lunch tomorrow.")
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert "Generate a lunch" not in reply_call.user


async def test_a_question_read_elsewhere_than_its_words_say_is_asked_for_again(turns, executor):
    """``domain.enforced.plan_rules.looks_elsewhere``: "anything i need to do this week?" planned
    as a read of the meal plans (the 1.5B local model's plan, which found none and
    answered about meal plans); told the words ask about the tasks, the second plan reads
    them and the reply has the open task."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("tasks", {"title": "clean the oven"})
    again, response, script = await asked_again(
        turns,
        "anything i need to do this week?",
        understand(),
        plan("This week", step("Read the meal plan for the next 7 days", "read", "meal_plans")),
        plan("This week", step("Read the open tasks", "read", "tasks")),
        tool("db_read", table="tasks"),
        complete("Read the tasks"),
        reply("Clean the oven is still to do."),
    )
    assert "## Your plan, asked again\nThe request asks about tasks, and your plan reads " in again
    assert "- group 0, read (meal_plans): Read the meal plan for the next 7 days" in again
    read = next(c for c in script.calls if c.node == "act")
    assert "Read the open tasks" in read.user
    assert response.startswith("Clean the oven is still to do.")


async def test_a_question_still_read_elsewhere_reads_where_its_words_say(turns, executor):
    """``domain.enforced.plan_rules.read_there``: told that "anything i need to do this
    week?" asks about the tasks, the 1.5B local model planned the meal plans' read again
    and the user was told no meals were planned; the tasks are read beside it."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("tasks", {"title": "clean the oven"})
    meals = plan("This week", step("Read the meal plan for the next 7 days", "read", "meal_plans"))
    script = turns.script(
        understand(),
        meals,
        meals,
        tool("db_read", at_step=1, table="meal_plans"),
        complete("No meals planned", at_step=1),
        reply("Clean the oven is still to do."),
    )
    async with turns.worker(script):
        handle = await turns.start("anything i need to do this week?")
        await handle.result()
        await keep_history(handle, "read_there")
    steps = [c for c in script.calls if c.node == "act"]
    assert [c.step for c in steps] == [1, 1]  # the tasks' read is the system's
    assert "0. [read/tasks, group 0] Read the tasks" in steps[0].user
    (reply_call,) = [c for c in script.calls if c.node == "reply"]
    assert "clean the oven" in reply_call.user


async def test_a_write_about_a_saved_recipe_reads_it_first(turns, executor):
    """``domain.enforced.plan_rules.read_first``: for "add a teaspoon of cumin to the dal"
    the 1.5B local model planned one write, and Act linked the cumin to a made-up
    ``gen_recipe_1``; the dal is read first, by the system (no model is asked for that
    step: ``act_rules.system_read``), and the write links the ref the read gave."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("recipes", [{"name": "Red Lentil Dal"}, {"name": "Weeknight Chili"}])
    script = turns.script(
        understand(),
        plan("Cumin in the dal", step("Add a teaspoon of cumin to the dal", "write", "recipes")),
        tool(
            "db_create",
            at_step=1,
            table="recipe_ingredients",
            data={"recipe_id": "recipe_1", "name": "cumin", "quantity": 1, "unit": "tsp"},
        ),
        complete("Added cumin to the dal", at_step=1),
        reply("Cumin is in the dal now."),
    )
    async with turns.worker(script):
        handle = await turns.start("add a teaspoon of cumin to the dal")
        await handle.result()
        await keep_history(handle, "read_first")
    assert [c.step for c in script.calls if c.node == "act"] == [1, 1]  # the write's alone
    write = next(c.user for c in script.calls if c.node == "act")
    assert "Step 0 (read, recipes): Read the recipe Red Lentil Dal with its ingredients" in write
    assert "recipe_1" in write and "Weeknight Chili" not in write  # the dal's row, to link
    dal = await kitchen.run(
        DbRead(table="recipes", filters=[f("name", "=", "Red Lentil Dal")], columns=["ingredients"])
    )
    assert [i["name"] for i in dal.rows[0]["recipe_ingredients"]] == ["cumin"]


async def test_dates_moved_from_their_own_are_read_first_and_shown_moved(turns, executor):
    """``domain.enforced.plan_rules.read_moved``: for "push everything on my todo list back
    a week" the 1.5B local model planned two writes, each "to" the date the task already
    had; the tasks are read first, by the system, and the write step is shown each date
    moved a week (``domain.kitchen.dated.dates_moved``)."""
    today = await the_turns_day(turns)
    oven_day, plumber_day = today + dt.timedelta(days=1), today + dt.timedelta(days=3)
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create(
        "tasks",
        [
            {"title": "Clean the oven", "due_date": oven_day.isoformat()},
            {"title": "Call the plumber", "due_date": plumber_day.isoformat()},
        ],
    )
    week = dt.timedelta(days=7)
    script = turns.script(
        understand(),
        plan("A week later", step("Move every task's due date a week later", "write", "tasks")),
        *[
            tool(
                "db_update",
                at_step=1,
                table="tasks",
                filters=[f("title", "=", title).model_dump()],
                data={"due_date": (day + week).isoformat()},
            )
            for title, day in (("Clean the oven", oven_day), ("Call the plumber", plumber_day))
        ],
        complete("Moved both a week", at_step=1),
        reply("Both tasks are a week later now."),
    )
    async with turns.worker(script):
        handle = await turns.start("push everything on my todo list back a week")
        await handle.result()
        await keep_history(handle, "read_moved")
    assert [c.step for c in script.calls if c.node == "act"] == [1, 1, 1]  # the write's alone
    write = next(c.user for c in script.calls if c.node == "act")
    oven_moved, plumber_moved = oven_day + week, plumber_day + week
    assert (
        "## Dates moved as the user's words say (counted by the system, from the reads above)\n"
        f"- Clean the oven (task): due {oven_day:%a} {oven_day.isoformat()}; "
        f"7 days later: {oven_moved:%a} {oven_moved.isoformat()}\n"
        f"- Call the plumber (task): due {plumber_day:%a} {plumber_day.isoformat()}; "
        f"7 days later: {plumber_moved:%a} {plumber_moved.isoformat()}"
    ) in write
    tasks = (await kitchen.run(DbRead(table="tasks", order_by="title"))).rows
    assert [(t["title"], t["due_date"]) for t in tasks] == [
        ("Call the plumber", plumber_moved.isoformat()),
        ("Clean the oven", oven_moved.isoformat()),
    ]


DAL_FOR_6 = plan(
    "Dal for 6", step("Update the dal to serve 6 and double the lentils", "write", "recipes")
)
"""Think's plan for "make the dal serve 6 and double the lentils": one write."""


async def test_an_amount_scaled_in_a_saved_recipe_is_read_first_and_shown_scaled(turns, executor):
    """``domain.enforced.plan_rules.read_first`` with ``scales_said``: for "make the dal
    serve 6 and double the lentils" the 1.5B local model read nothing, set the servings to
    12 and left the lentils at 200 g; the dal is read first, by the system, and the write
    step is shown each amount read, doubled (``domain.kitchen.scaled``)."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    lentils = {"name": "red lentils", "quantity": 200, "unit": "g"}
    dal_row = {"name": "Red Lentil Dal", "servings": 4, "ingredients": [lentils]}
    await kitchen.create("recipes", [dal_row])
    dal = [f("name", "=", "Red Lentil Dal").model_dump()]
    row = [f("recipe_id", "=", "recipe_1").model_dump(), f("name", "=", "red lentils").model_dump()]
    words = "make the dal serve 6 and double the lentils"
    script = turns.script(
        understand(),
        DAL_FOR_6,
        tool("db_update", at_step=1, table="recipes", filters=dal, data={"servings": 6}),
        tool(
            "db_update", at_step=1, table="recipe_ingredients", filters=row, data={"quantity": 400}
        ),
        complete("The dal serves 6, with 400 g of lentils", at_step=1),
        reply("The dal serves 6 now, with 400 g of red lentils."),
    )
    async with turns.worker(script):
        handle = await turns.start(words)
        await handle.result()
        await keep_history(handle, "amounts_scaled")
    assert [c.step for c in script.calls if c.node == "act"] == [1, 1, 1]  # the write's alone
    write = next(c.user for c in script.calls if c.node == "act")
    assert (
        "## Amounts as the user's words give them (counted by the system, from the reads above)\n"
        "- red lentils (in Red Lentil Dal): 200 g; doubled: 400 g"
    ) in write
    read = DbRead(
        table="recipes", filters=[f("name", "=", "Red Lentil Dal")], columns=["*", "ingredients"]
    )
    (saved,) = (await kitchen.run(read)).rows
    assert saved["servings"] == 6
    assert [(i["name"], i["quantity"]) for i in saved["recipe_ingredients"]] == [
        ("red lentils", 400)
    ]


async def test_a_write_step_that_ends_before_scaling_an_amount_is_sent_back_once(turns, executor):
    """``domain.enforced.act_rules.scaled_left``: for "make the dal serve 6 and double the
    lentils" the 1.5B local model set the servings to 6, then to 6 again (the step's end),
    and the lentils stayed 200 g. That end is sent back once with the amount left."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    lentils = {"name": "red lentils", "quantity": 200, "unit": "g"}
    onion = {"name": "onion", "quantity": 1, "unit": "piece"}
    await kitchen.create(
        "recipes", [{"name": "Red Lentil Dal", "servings": 4, "ingredients": [lentils, onion]}]
    )
    dal = [f("name", "=", "Red Lentil Dal").model_dump()]
    script = turns.script(
        understand(),
        DAL_FOR_6,
        tool("db_update", at_step=1, table="recipes", filters=dal, data={"servings": 6}),
        tool("db_update", at_step=1, table="recipes", filters=dal, data={"servings": 6}),
        tool(
            "db_update",
            at_step=1,
            table="recipe_ingredients",
            filters=[f("id", "=", "ri_2").model_dump()],
            data={"quantity": 400},
        ),
        complete("The dal serves 6, with 400 g of lentils", at_step=1),
        reply("The dal serves 6 now, with 400 g of red lentils."),
    )
    async with turns.worker(script):
        handle = await turns.start("make the dal serve 6 and double the lentils")
        await handle.result()
    acts = [c for c in script.calls if c.node == "act"]
    assert len(acts) == 4  # the repeat was sent back, not the step's end
    sent_back = acts[2].user.split("not done: the user's words give amounts")[1]
    assert "- red lentils (in Red Lentil Dal), ri_2 in recipe_ingredients: 200 g, to be 400 g" in (
        sent_back
    )
    assert "onion" not in sent_back.split("## ")[0]  # only the lentils are doubled
    read = DbRead(
        table="recipes", filters=[f("name", "=", "Red Lentil Dal")], columns=["*", "ingredients"]
    )
    (saved,) = (await kitchen.run(read)).rows
    assert saved["servings"] == 6
    assert sorted((i["name"], i["quantity"]) for i in saved["recipe_ingredients"]) == [
        ("onion", 1),
        ("red lentils", 400),
    ]


async def test_a_write_step_that_ends_before_setting_an_amount_said_is_sent_back_once(
    turns, executor
):
    """``domain.enforced.act_rules.scaled_left`` with ``amounts_said``: for "dal should be
    250g lentils not 200" the 1.5B local model set the dal's description to say 250 g, twice
    (the step's end), the lentils stayed 200 g, and the reply said the recipe now used
    250 g. The dal is read first, the write step is shown the amount as said, and its end
    is sent back once with the amount left."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    lentils = {"name": "red lentils", "quantity": 200, "unit": "g"}
    await kitchen.create("recipes", [{"name": "Red Lentil Dal", "ingredients": [lentils]}])
    dal = [f("name", "=", "Red Lentil Dal").model_dump()]
    described = {"description": "Red Lentil Dal with 250g lentils instead of 200g"}
    fix = "Update the recipe for Red Lentil Dal to use 250g lentils instead of 200g"
    script = turns.script(
        understand(),
        plan("Dal with 250 g of lentils", step(fix, "write", "recipes")),
        tool("db_update", at_step=1, table="recipes", filters=dal, data=described),
        tool("db_update", at_step=1, table="recipes", filters=dal, data=described),
        tool(
            "db_update",
            at_step=1,
            table="recipe_ingredients",
            filters=[f("id", "=", "ri_1").model_dump()],
            data={"quantity": 250},
        ),
        complete("The dal uses 250 g of lentils", at_step=1),
        reply("The dal now uses 250 g of red lentils."),
    )
    async with turns.worker(script):
        handle = await turns.start("dal should be 250g lentils not 200")
        await handle.result()
    acts = [c for c in script.calls if c.node == "act"]
    assert [c.step for c in acts] == [1, 1, 1, 1]  # step 0 is the system's read of the dal
    assert (
        "## Amounts as the user's words give them (counted by the system, from the reads above)\n"
        "- red lentils (in Red Lentil Dal): 200 g; as said: 250 g"
    ) in acts[0].user
    sent_back = acts[2].user.split("not done: the user's words give amounts")[1]
    assert "- red lentils (in Red Lentil Dal), ri_1 in recipe_ingredients: 200 g, to be 250 g" in (
        sent_back
    )
    read = DbRead(
        table="recipes", filters=[f("name", "=", "Red Lentil Dal")], columns=["*", "ingredients"]
    )
    (saved,) = (await kitchen.run(read)).rows
    assert [(i["name"], i["quantity"]) for i in saved["recipe_ingredients"]] == [
        ("red lentils", 250)
    ]


async def test_an_analysis_of_a_planned_recipe_reads_the_recipe_first(turns, executor):
    """``domain.enforced.plan_rules.read_first`` with the meal plan's recipes: for "what do
    i need to buy for mondays dinner" the 1.5B local model read the meal plan and the
    inventory and made up the dal's ingredients; the system reads the dal first."""
    today = await the_turns_day(turns)
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    lentils = {"name": "red lentils", "quantity": 200, "unit": "g"}
    (dal,) = (
        await kitchen.create("recipes", [{"name": "Red Lentil Dal", "ingredients": [lentils]}])
    ).rows
    day = (today + dt.timedelta(days=2)).isoformat()
    await kitchen.create(
        "meal_plans", [{"date": day, "meal_type": "dinner", "recipe_id": dal["id"]}]
    )
    weigh = "List the ingredients needed for Red Lentil Dal from the meal plan"
    script = turns.script(
        understand(),
        plan(
            "What to buy",
            step("Read the meal plan", "read", "meal_plans"),
            step(weigh, "analyze", "recipes", group=1),
        ),
        tool("db_read", at_step=1, table="meal_plans"),
        complete("Read the meal plan", at_step=1),
        complete("The dal needs 200 g of red lentils", at_step=2),
        reply("You need 200 g of red lentils."),
    )
    async with turns.worker(script):
        handle = await turns.start("what do i need to buy for the dinner in two days")
        await handle.result()
        await keep_history(handle, "read_for_an_analysis")
    acts = [c for c in script.calls if c.node == "act"]
    assert [c.step for c in acts] == [1, 1, 2]  # step 0 is the system's read of the dal
    assert "Step 0 (read, recipes): Read the recipe Red Lentil Dal" in acts[2].user
    assert '"name": "red lentils", "quantity": 200' in acts[2].user


async def test_things_got_that_are_open_on_the_list_are_ticked_off_as_well(turns, executor):
    """``domain.enforced.plan_rules.ticked_too``: for "bought the olive oil and bread, both in
    the pantry now" the 1.5B local model put both in the pantry, and the list kept them
    open; their tick-off is added beside the write, and both are bought."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create(
        "shopping_list", [{"name": "olive oil"}, {"name": "bread"}, {"name": "kale"}]
    )
    rows = [{"name": "olive oil", "location": "pantry"}, {"name": "bread", "location": "pantry"}]
    both = [{"field": "name", "op": "=", "value": n} for n in ("olive oil", "bread")]
    script = turns.script(
        understand(),
        plan("Put away", step("Add olive oil and bread to the pantry", "write", "inventory")),
        tool("db_create", at_step=0, table="inventory", data=rows),
        complete("Both in the pantry", at_step=0),
        tool(
            "db_update",
            at_step=1,
            table="shopping_list",
            or_filters=both,
            data={"is_purchased": True},
        ),
        complete("Both bought", at_step=1),
        reply("Both are in the pantry and off the list."),
    )
    async with turns.worker(script):
        handle = await turns.start("bought the olive oil and bread, both in the pantry now")
        await handle.result()
        await keep_history(handle, "ticked_too")
    tick = next(c.user for c in script.calls if c.node == "act" and c.step == 1)
    assert "1. Mark bread and olive oil as bought on the shopping list (type write" in tick
    listed = (await kitchen.run(DbRead(table="shopping_list", order_by="name"))).rows
    assert [(r["name"], r["is_purchased"]) for r in listed] == [
        ("bread", True),
        ("kale", False),
        ("olive oil", True),
    ]
    assert sorted(await kitchen.names("inventory")) == ["bread", "olive oil"]


async def test_an_ingredient_taken_out_of_a_saved_recipe_reads_it_first(turns, executor):
    """``domain.enforced.plan_rules.read_first``: for "the dal recipe shouldnt have onion in it,
    remove it" the 1.5B local model deleted the onion of a made-up ``gen_recipe_1``; the
    dal is read first, and the delete is of the ref the read gave."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    ingredients = [{"name": "red lentils", "quantity": 200, "unit": "g"}, {"name": "onion"}]
    await kitchen.create("recipes", [{"name": "Red Lentil Dal", "ingredients": ingredients}])
    named = {"field": "name", "op": "=", "value": "Red Lentil Dal"}
    onion = [f("recipe_id", "=", "recipe_1").model_dump(), f("name", "=", "onion").model_dump()]
    script = turns.script(
        understand(),
        plan(
            "No onion",
            step("Remove the onion row from the Red Lentil Dal recipe", "write", "recipes"),
        ),
        tool("db_delete", at_step=1, table="recipe_ingredients", filters=onion),
        complete("Took the onion out", at_step=1),
        reply("The onion is out of the dal."),
    )
    async with turns.worker(script):
        handle = await turns.start("the dal recipe shouldnt have onion in it, remove it")
        await handle.result()
        await keep_history(handle, "read_first_removal")
    dal = await kitchen.run(DbRead(table="recipes", filters=[f(**named)], columns=["ingredients"]))
    assert [i["name"] for i in dal.rows[0]["recipe_ingredients"]] == ["red lentils"]


async def test_a_saved_recipe_still_changed_by_one_thought_up_is_written_instead(turns, executor):
    """``domain.enforced.plan_rules.written_instead``: for "swap the spinach in the dal for
    kale", nothing unsaved, the 1.5B local model was shown only a revision of a recipe
    thought up, and planned the saved dal revised by a made-up gen ref, twice; it is shown
    a saved recipe's change, and its plan writes the saved dal."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    ingredients = [{"name": "red lentils"}, {"name": "spinach"}]
    await kitchen.create("recipes", [{"name": "Red Lentil Dal", "ingredients": ingredients}])
    revised = plan(
        "Kale in the dal",
        step("Read the Red Lentil Dal recipe", "read", "recipes"),
        step("Replace the spinach with kale in the dal (its gen_ ref)", "generate", "recipes", 1),
    )
    spinach = [f("recipe_id", "=", "recipe_1").model_dump(), f("name", "=", "spinach").model_dump()]
    again, _, script = await asked_again(
        turns,
        "swap the spinach in the dal for kale",
        understand(),
        revised,
        revised,
        tool("db_read", at_step=0, table="recipes", columns=["name", "ingredients"]),
        complete("Read the dal", at_step=0),
        tool(
            "db_update",
            at_step=1,
            table="recipe_ingredients",
            filters=spinach,
            data={"name": "kale"},
        ),
        complete("Swapped the spinach for kale", at_step=1),
        reply("The dal has kale now."),
    )
    assert "The request asks for a change and for no new recipe, and your plan generates" in again
    shown = next(c.system for c in script.calls if c.node == "think")
    assert "swap the golden syrup in my flapjacks" in shown and "less fiery" not in shown
    write = next(c.user for c in script.calls if c.node == "act" and c.step == 1)
    assert "(type write, subdomain recipes)" in write
    dal = await kitchen.run(DbRead(table="recipes", columns=["name", "ingredients"]))
    assert [r["name"] for r in dal.rows] == ["Red Lentil Dal"]  # no second dal
    assert sorted(i["name"] for i in dal.rows[0]["recipe_ingredients"]) == ["kale", "red lentils"]


async def test_chores_done_that_the_plan_leaves_out_are_asked_for_again(turns, executor):
    """``domain.enforced.plan_rules.tasks_left_out``: for "done the oven and called the
    plumber", both tasks named, the 1.5B local model ticked off the plumber alone; told
    the oven is named too, the second plan marks both."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("tasks", [{"title": "Clean the oven"}, {"title": "Call the plumber"}])
    titled = [
        {"field": "title", "op": "=", "value": "Call the plumber"},
        {"field": "title", "op": "=", "value": "Clean the oven"},
    ]
    again, response, _ = await asked_again(
        turns,
        "done the oven and called the plumber",
        understand(),
        plan("Plumber", step("Mark the task 'Call the plumber' as completed", "write", "tasks")),
        plan(
            "Both", step("Mark 'Call the plumber' and 'Clean the oven' completed", "write", "tasks")
        ),
        tool("db_update", table="tasks", filters=[], or_filters=titled, data={"completed": True}),
        complete("Marked both"),
        reply("Both are ticked off."),
    )
    assert "## Your plan, asked again\nThe request also names the task(s) 'Clean the oven'" in again
    assert response.startswith("Both are ticked off.")
    done = await kitchen.run(DbRead(table="tasks", filters=[f("completed", "=", True)]))
    assert sorted(r["title"] for r in done.rows) == ["Call the plumber", "Clean the oven"]


async def test_a_recipe_thought_up_and_asked_to_be_saved_is_saved(turns, executor):
    """``domain.enforced.plan_rules.saved_too``: for "give me a banana bread recipe and
    save it" the 1.5B local model planned the recipe and nothing saved it; the save is
    added after it (create mode: run at once, no proposal)."""
    bread = {
        "name": "Banana Bread",
        "servings": 8,
        "instructions": ["Mash", "Bake"],
        "ingredients": [{"name": "banana", "quantity": 3}, {"name": "flour", "quantity": 250}],
    }
    script = turns.script(
        understand(),
        plan("Banana bread", step("Create a banana bread recipe", "generate", "recipes")),
        complete("Created Banana Bread", artifacts=[{"type": "recipe", "content": bread}]),
        tool("db_create", table="recipes", data={"id": "gen_recipe_1"}),
        complete("Saved Banana Bread"),
        reply("Banana Bread is in your recipes."),
    )
    async with turns.worker(script):
        handle = await turns.start("give me a banana bread recipe and save it", mode="create")
        await handle.result()
        await keep_history(handle, "saved_too")
    save = [c.user for c in script.calls if c.node == "act"][1]
    assert "1. Save the generated recipe (its gen_ ref) to the recipes" in save
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("recipes") == ["Banana Bread"]


async def test_a_question_about_a_saved_recipe_read_elsewhere_is_asked_for_again(turns, executor):
    """ "does the dal have spinach in it" planned as a read of the inventory's spinach (the
    1.5B local model's, which said the dal had none); the dashboard names the saved dal,
    so Think is told the words ask about recipes."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("recipes", [{"name": "Red Lentil Dal", "instructions": ["Simmer."]}])
    again, response, _ = await asked_again(
        turns,
        "does the dal have spinach in it",
        understand(),
        plan("Spinach", step("Read the inventory for spinach", "read", "inventory")),
        plan("Spinach", step("Read the Red Lentil Dal recipe", "read", "recipes")),
        tool("db_read", table="recipes"),
        complete("Read the dal"),
        reply("The dal has no spinach saved."),
    )
    assert "## Your plan, asked again\nThe request asks about recipes, and your plan " in again
    assert response.startswith("The dal has no spinach saved.")


async def test_a_read_the_system_adds_is_run_without_asking_the_model(turns, executor):
    """``domain.enforced.act_rules.system_read``: for "what else is in the dal apart from
    lentils" the 1.5B local model kept its read of the inventory when told; given the
    dal's read the system added, it read the inventory again, and ended the step with
    ingredients it made up. The system runs the read it wrote."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    ingredients = [{"name": "red lentils"}, {"name": "onion"}, {"name": "spinach"}]
    await kitchen.create("recipes", [{"name": "Red Lentil Dal", "ingredients": ingredients}])
    await kitchen.create("inventory", [{"name": "milk"}])
    stock = plan("Besides lentils", step("Read the inventory", "read", "inventory"))
    script = turns.script(
        understand(),
        stock,
        stock,
        tool("db_read", at_step=1, table="inventory"),
        complete("Read the inventory", at_step=1),
        reply("Onion and spinach."),
    )
    async with turns.worker(script):
        handle = await turns.start("what else is in the dal apart from lentils")
        await handle.result()
        state = await progress(handle)
        await keep_history(handle, "system_read")
    again = [c.user for c in script.calls if c.node == "think"][1]
    assert "The request asks about recipes, and your plan reads only inventory" in again
    assert [c.step for c in script.calls if c.node == "act"] == [1, 1]  # the dal's: no model
    assert state.llm_calls == len(script.calls)  # the system's decisions are no model calls
    told = next(c.user for c in script.calls if c.node == "reply")
    assert "Read the recipe Red Lentil Dal with its ingredients" in told
    assert "onion" in told and "spinach" in told


async def test_a_question_that_asks_for_a_change_in_its_words_keeps_its_writes(turns, executor):
    """ "how about adding eggs to the list?" reads as a question (``asks_to_see``) but
    names a change: the plan that writes, given twice, runs as planned."""
    eggs = plan(
        "Eggs",
        step("Read the shopping list", "read", "shopping"),
        step("Add eggs to the shopping list", "write", "shopping", group=1),
    )
    await asked_again(
        turns,
        "how about adding eggs to the list?",
        understand(),
        eggs,
        eggs,
        tool("db_read", table="shopping_list"),
        complete("The list is empty"),
        tool("db_create", table="shopping_list", data={"name": "eggs"}),
        complete("Added eggs"),
        reply("Eggs are on the list."),
    )
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    assert await kitchen.names("shopping_list") == ["eggs"]


async def test_a_recipe_invented_for_a_saved_one_the_words_name_is_asked_for_again(turns, executor):
    """``domain.enforced.plan_rules.invents_unasked``: "i'd like the dal on tuesday" planned with a
    new dal generated for the meal plan is shown to Think; its second plan reads the saved
    dal and plans it, and nothing is invented or proposed."""
    first = plan(
        "Dal on Tuesday",
        step("Generate a new recipe for dal", "generate", "recipes"),
        step("Put it on Tuesday's meal plan", "write", "meal_plans", group=1),
    )
    again = await dal_asked_again(turns, executor, first)
    assert "The request asks for a change and for no new recipe, and your plan generates" in again


async def test_an_item_held_added_again_for_words_that_add_none_is_sent_back_once(turns, executor):
    """``domain.enforced.plan_rules.adds_held`` and ``act_rules.created_beside``: for "the
    eggs actually go off on thursday" the 1.5B local model planned "Add to the inventory one
    row: eggs (1 carton)" and added a carton of eggs to the pantry beside the six in the
    fridge. Think is asked again (here it gives the same plan), the create is sent back
    once, and the eggs there are changed."""
    today = await the_turns_day(turns)
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    eggs = {"name": "eggs", "quantity": 6, "unit": "piece", "location": "fridge"}
    await kitchen.create("inventory", [eggs])
    day = (today + dt.timedelta(days=2)).isoformat()
    carton = {"name": "eggs", "quantity": 1, "unit": "carton", "location": "pantry"}
    by_name = [f("name", "=", "eggs").model_dump()]
    adds = plan(
        "Eggs go off", step("Add to the inventory one row: eggs (1 carton)", "write", "inventory")
    )
    script = turns.script(
        understand(),
        adds,
        adds,
        tool("db_create", at_step=0, table="inventory", data=[carton]),
        tool("db_update", at_step=0, table="inventory", filters=by_name, data={"expiry_date": day}),
        complete("The eggs go off in two days", at_step=0),
        reply("The eggs now go off in two days."),
    )
    async with turns.worker(script):
        handle = await turns.start("the eggs actually go off in two days")
        await handle.result()
    again = [c for c in script.calls if c.node == "think"][1].user
    assert "The request adds nothing: it says something of eggs, which the inventory" in again
    acts = [c for c in script.calls if c.node == "act"]
    assert "not made: the inventory holds eggs already" in acts[1].user
    rows = (await kitchen.run(DbRead(table="inventory"))).rows
    assert [(r["name"], r["quantity"], r["location"], r["expiry_date"]) for r in rows] == [
        ("eggs", 6, "fridge", day)
    ]
