"""Each path of a turn, end to end: time-skipping Temporal, PostgreSQL, a scripted model."""

from __future__ import annotations

import uuid
from datetime import timedelta

from domain.crud.calls import DbRead
from domain.registry import SessionIdRegistry
from domain.turn_store import get_turn, load_conversation
from tests.kitchen_helper import PANTRY, Kitchen
from tests.workflows.conftest import Turns, keep_history, progress, send, wait_for
from tests.workflows.script import (
    act,
    ask,
    clarify_first,
    complete,
    plan,
    propose,
    quick,
    reply,
    step,
    think_clarify,
    tool,
    understand,
)
from workflows.interface import UserInput

SHOP = step("Add milk and eggs to the shopping list", "write", "shopping")


def answer(action: str, text: str | None = None) -> UserInput:
    return UserInput(input_id=uuid.uuid4().hex, action=action, text=text)


async def awaiting(handle):
    return await wait_for(handle, lambda p: p.status == "awaiting_input")


async def shopping_names(turns: Turns, executor) -> list[str]:
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    return await kitchen.names("shopping_list")


async def test_quick_read_is_answered_from_the_database_without_a_reply_model_call(
    turns: Turns, executor
):
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create("inventory", PANTRY)
    script = turns.script(
        quick("Show the user's inventory", "inventory"),
        {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "inventory"}}},
    )
    async with turns.worker(script):
        handle = await turns.start("what's in my pantry?")
        result = await handle.result()
        await keep_history(handle, "quick_read")
        events = [e.type for e in (await progress(handle)).events]
    assert result.status == "completed"
    assert "milk" in result.response and "frozen peas" in result.response
    assert [c.node for c in script.calls] == ["understand", "act_quick", "summarize"]
    assert events == ["thinking", "done", "context_updated"]
    state, version = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert version == 1
    assert state.recent_turns[0].assistant_response == result.response
    assert state.turn_step_results["1"][0].tool_results[0].count == 4
    row = await get_turn(turns.sessions, turns.user_id, turns.conversation_id, 1)
    assert row.status == "completed" and row.response == result.response


async def test_a_quick_read_by_a_name_the_user_never_said_reads_without_it(turns: Turns, executor):
    """``domain.enforced.read_filters.said_names``: Act Quick filtered the shopping list by
    the name of the recipe the turn before talked about; the user asked for the whole list."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "shopping_list", [{"name": "olive oil"}, {"name": "milk"}]
    )
    made_up = [{"field": "name", "op": "contains", "value": "Quick Vegetarian Dinner"}]
    script = turns.script(
        quick("show a recipe in full", "shopping"),
        {
            "node": "act_quick",
            "output": {"tool": "db_read", "params": {"table": "shopping_list", "filters": made_up}},
        },
    )
    async with turns.worker(script):
        result = await (await turns.start("what's on my shopping list?")).result()
    assert "olive oil" in result.response and "milk" in result.response


async def test_a_quick_read_looks_in_the_one_place_the_words_name(turns: Turns, executor):
    """``domain.enforced.plan_rules.hold_understand``: the 1.5B local model gave "what's on my
    shopping list?" the recipes as its quick subdomain; the read is the shopping list's."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "shopping_list", [{"name": "olive oil"}, {"name": "milk"}]
    )
    script = turns.script(
        quick("Show the shopping list", "recipes"),
        {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "shopping_list"}}},
    )
    async with turns.worker(script):
        result = await (await turns.start("what's on my shopping list?")).result()
    assert [c.node for c in script.calls] == ["understand", "act_quick", "summarize"]
    assert "olive oil" in result.response and "milk" in result.response


async def test_plan_direct_runs_a_multi_tool_write_step(turns: Turns, executor):
    script = turns.script(
        understand(),
        plan("Add milk and eggs", SHOP),
        tool("db_create", table="shopping_list", data={"name": "milk"}),
        tool("db_create", table="shopping_list", data={"name": "eggs"}),
        complete("Added milk and eggs"),
        reply("Added milk and eggs to your shopping list."),
    )
    async with turns.worker(script):
        handle = await turns.start("add milk and eggs to my list")
        result = await handle.result()
        await keep_history(handle, "plan_direct_multi_tool")
        full = (await progress(handle)).events
        events = [e.type for e in full]
    assert result.response == "Added milk and eggs to your shopping list."
    cards = next(e for e in full if e.type == "active_context").data.data
    assert sorted((c.label, c.type, c.action) for c in cards) == [
        ("eggs", "shop", "created"),
        ("milk", "shop", "created"),
    ]
    done = next(e for e in full if e.type == "done").data
    assert done.active_context == cards
    assert next(e for e in full if e.type == "think_complete").data.model_dump() == {
        "goal": "Add milk and eggs",
        "step_count": 1,
    }
    assert await shopping_names(turns, executor) == ["eggs", "milk"]
    assert events == [
        "thinking",
        "think_complete",
        "plan",
        "step",
        "working",
        "working",
        "step_complete",
        "active_context",
        "done",
        "context_updated",
    ]
    assert script.unused() == []


async def test_proposal_confirmed_runs_the_plan_without_another_think(turns: Turns, executor):
    script = turns.script(
        understand(),
        propose("Stock up", "Shall I add milk and eggs?", SHOP),
        tool("db_create", table="shopping_list", data=[{"name": "milk"}, {"name": "eggs"}]),
        complete("Added both"),
        reply("Done: milk and eggs are on your list."),
    )
    async with turns.worker(script):
        handle = await turns.start("stock me up")
        paused = await awaiting(handle)
        assert paused.pending.kind == "proposal" and paused.pending.plan[0].subdomain == "shopping"
        assert "Shall I add milk and eggs?" in paused.response
        assert await shopping_names(turns, executor) == []
        await send(handle, answer("confirm"))
        result = await handle.result()
        await keep_history(handle, "proposal_confirmed")
    assert result.status == "completed"
    assert [c.node for c in script.calls].count("think") == 1
    assert await shopping_names(turns, executor) == ["eggs", "milk"]


async def test_proposal_rejected_is_acknowledged_and_changes_nothing(turns: Turns, executor):
    script = turns.script(understand(), propose("Stock up", "Add milk?", SHOP))
    async with turns.worker(script):
        handle = await turns.start("stock me up")
        await awaiting(handle)
        await send(handle, answer("reject"))
        result = await handle.result()
        await keep_history(handle, "proposal_rejected")
    assert result.status == "completed"
    assert "won't" in result.response.lower() or "nothing" in result.response.lower()
    assert await shopping_names(turns, executor) == []
    assert "summarize" not in [c.node for c in script.calls]


async def test_proposal_expires_after_the_deadline(turns: Turns, temporal_env):
    script = turns.script(understand(), propose("Stock up", "Add milk?", SHOP))
    async with turns.worker(script):
        handle = await turns.start("stock me up")
        paused = await awaiting(handle)
        before = await temporal_env.get_current_time()
        result = await handle.result()  # waiting on the result lets the test server skip time
        after = await temporal_env.get_current_time()
        await keep_history(handle, "proposal_expired")
    assert result.status == "expired"
    deadline = paused.pending.expires_at  # set a moment before `before` was read
    assert timedelta(hours=24) - timedelta(minutes=1) < deadline - before <= timedelta(hours=24)
    assert after >= deadline
    row = await get_turn(turns.sessions, turns.user_id, turns.conversation_id, 1)
    assert row.status == "expired"
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert any("expired" in note for note in state.notes)
    (record,) = state.recent_turns  # an ended turn is a turn like any other
    assert record.user_message == "stock me up" and record.assistant_response.startswith(
        "Add milk?"
    )
    (summary,) = state.turn_summaries
    assert summary.think_decision == "propose" and "expired" in (summary.blocked_reason or "")


async def test_a_new_message_after_an_expired_turn_starts_normally(turns: Turns):
    script = turns.script(
        understand(),
        propose("Stock up", "Add milk?", SHOP),
        quick("Show the shopping list", "shopping"),
        {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "shopping_list"}}},
    )
    async with turns.worker(script):
        first = await turns.start("stock me up")
        await awaiting(first)
        assert (await first.result()).status == "expired"
        second = await (await turns.start("show my list")).result()
    assert second.status == "completed"
    assert "empty" in second.response.lower()
    understood = [c for c in script.calls if c.node == "understand"][1].user
    assert "Turn 1 — user: stock me up" in understood  # it knows what happened


async def test_understand_clarification_answer_goes_back_through_understand(turns: Turns):
    script = turns.script(
        clarify_first("Which recipe do you mean?"),
        understand(referenced_entities=[]),
        plan("Find pasta recipes", step("Read pasta recipes", "read", "recipes")),
        tool(
            "db_read", table="recipes", filters=[{"field": "name", "op": "ilike", "value": "pasta"}]
        ),
        complete("No pasta recipes saved"),
        reply("You have no pasta recipes saved yet."),
    )
    async with turns.worker(script):
        handle = await turns.start("show me that one")
        paused = await awaiting(handle)
        assert paused.pending.kind == "clarification" and paused.pending.source == "understand"
        await send(handle, answer("answer", "the pasta one"))
        result = await handle.result()
        await keep_history(handle, "clarification_understand")
    assert result.response == "You have no pasta recipes saved yet."
    second_understand = [c for c in script.calls if c.node == "understand"][1]
    assert "Which recipe do you mean?" in second_understand.user
    assert "the pasta one" in second_understand.user


async def test_think_clarification_answer_is_planned_after_understand(turns: Turns, executor):
    script = turns.script(
        understand(),
        think_clarify("Plan dinners", "For how many days?"),
        understand(),
        plan("Add rice", step("Add rice", "write", "shopping")),
        tool("db_create", table="shopping_list", data={"name": "rice"}),
        complete("Added rice"),
        reply("Added rice."),
    )
    async with turns.worker(script):
        handle = await turns.start("plan dinners")
        paused = await awaiting(handle)
        assert paused.pending.source == "think"
        await send(handle, answer("answer", "just add rice"))
        result = await handle.result()
        await keep_history(handle, "clarification_think")
    assert result.status == "completed"
    assert [c.node for c in script.calls if c.node in ("understand", "think")] == [
        "understand",
        "think",
        "understand",
        "think",
    ]
    assert "just add rice" in [c for c in script.calls if c.node == "think"][1].user
    assert await shopping_names(turns, executor) == ["rice"]


MONDAY_DINNER = {"date": "2026-11-30", "meal_type": "dinner", "servings": 2, "notes": "pasta"}
CHOOSE_MONDAY = (
    step("Read the recipes", "read", "recipes"),
    {**step("Choose Monday's dinner", "generate", "meal_plans"), "group": 1},
    {**step("Save the chosen dinner", "write", "meal_plans"), "group": 2},
)


def monday_chosen(saved: list[dict]) -> tuple[dict, ...]:
    """Act's and Reply's answers to a plan that reads the recipes, chooses Monday's dinner
    (``MONDAY_DINNER``) and saves it as the rows ``saved``."""
    return (
        tool("db_read", table="recipes"),
        complete("Read the recipes"),
        complete("Chose a dinner", artifacts=[{"type": "meal", "content": MONDAY_DINNER}]),
        tool("db_create", table="meal_plans", data=saved),
        complete("Saved Monday's dinner"),
        reply("Monday: dinner planned."),
    )


async def test_a_meal_plan_for_no_named_day_asks_which_days_first(turns: Turns, executor):
    """Think planned meals for days nobody named: the system asks which instead."""
    script = turns.script(
        understand(),
        plan("A meal plan", *CHOOSE_MONDAY),
        understand(),
        plan("Monday's dinner", *CHOOSE_MONDAY),
        *monday_chosen([{"id": "gen_meal_1"}]),
    )
    async with turns.worker(script):
        handle = await turns.start("make me a meal plan", mode="create")
        paused = await awaiting(handle)
        assert (paused.pending.kind, paused.pending.source) == ("clarification", "think")
        assert paused.pending.questions == ["Which days, and which meals, should the plan cover?"]
        await send(handle, answer("answer", "dinner on Monday"))
        result = await handle.result()
        await keep_history(handle, "meal_plan_days_asked")
    assert result.status == "completed"
    assert "dinner on Monday" in [c for c in script.calls if c.node == "think"][1].user
    rows = (
        await Kitchen(executor, turns.user_id, SessionIdRegistry()).run(DbRead(table="meal_plans"))
    ).rows
    assert [(str(r["date"]), r["meal_type"]) for r in rows] == [("2026-11-30", "dinner")]


async def test_meals_chosen_with_no_recipe_read_read_the_saved_recipes_first(turns, executor):
    """``domain.enforced.plan_rules.with_recipes_read``: the 1.5B local model planned a week of
    dinners after reads of the meal plans only, and chose them on recipe refs nothing had.
    The turn reads the saved recipes before the choice; Act's choice is shown them."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "recipes", {"name": "Red Lentil Dal"}
    )
    script = turns.script(
        understand(),
        plan(
            "Monday's dinner",
            step("Choose Monday's dinner", "generate", "meal_plans"),
            {**step("Save the chosen dinner", "write", "meal_plans"), "group": 1},
        ),
        *monday_chosen([{"id": "gen_meal_1"}]),
    )
    async with turns.worker(script):
        result = await (await turns.start("plan dinner for next monday", mode="create")).result()
    assert result.status == "completed"
    acts = [c.user for c in script.calls if c.node == "act"]
    assert "0. Read the saved recipes, with their ingredients, to choose the meals from" in acts[0]
    assert "Red Lentil Dal" in acts[2]  # the choice is shown what the read found


async def test_a_chosen_meal_written_out_on_its_own_ref_is_saved_as_chosen(turns, executor):
    """``domain.enforced.act_rules.by_ref`` for meals: the 1.5B local model wrote the chosen
    dinners out again with ``recipe_id: gen_meal_1`` (a meal is no recipe) and saved
    none. The row is the meal chosen for its date: saved by its ref."""
    script = turns.script(
        understand(),
        plan("Monday's dinner", *CHOOSE_MONDAY),
        *monday_chosen([{**MONDAY_DINNER, "recipe_id": "gen_meal_1"}]),
    )
    async with turns.worker(script):
        result = await (await turns.start("plan dinner for next monday", mode="create")).result()
    assert result.status == "completed"
    rows = (
        await Kitchen(executor, turns.user_id, SessionIdRegistry()).run(DbRead(table="meal_plans"))
    ).rows
    assert [(str(r["date"]), r["meal_type"], r["notes"]) for r in rows] == [
        ("2026-11-30", "dinner", "pasta")
    ]


async def test_a_change_planned_twice_where_the_words_do_not_put_it_asks_where(
    turns: Turns, executor
):
    """``domain.enforced.plan_rules.where_asked``: "the dal only serves 2" is a recipe's servings;
    Think planned a meal on a day, and again when shown where the change belongs. The
    turn asks the user where the change goes, writes nothing until answered, and plans
    their answer."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("recipes", {"name": "Red Lentil Dal", "servings": 4})
    a_meal = plan("A meal", step("Plan the dal for Saturday", "write", "meal_plans"))
    dal = [{"field": "name", "op": "ilike", "value": "%dal%"}]
    script = turns.script(
        understand(),
        a_meal,
        a_meal,
        understand(),
        plan("Servings", step("Set the dal recipe's servings to 2", "write", "recipes")),
        tool("db_update", table="recipes", filters=dal, data={"servings": 2}),
        complete("Set the servings"),
        reply("The dal now serves 2."),
    )
    async with turns.worker(script):
        handle = await turns.start("the dal only serves 2")
        paused = await awaiting(handle)
        assert (paused.pending.kind, paused.pending.source) == ("clarification", "think")
        assert paused.pending.questions == [
            "Should I make that change in your recipes, or in your meal plan?"
        ]
        assert (await kitchen.run(DbRead(table="meal_plans"))).rows == []
        await send(handle, answer("answer", "the recipe"))
        result = await handle.result()
        await keep_history(handle, "change_asked_where")
    assert result.status == "completed"
    assert "the recipe" in [c for c in script.calls if c.node == "think"][2].user
    recipes = (await kitchen.run(DbRead(table="recipes"))).rows
    assert [(r["name"], r["servings"]) for r in recipes] == [("Red Lentil Dal", 2)]
    assert (await kitchen.run(DbRead(table="meal_plans"))).rows == []


async def test_ask_user_answer_resumes_the_same_step(turns: Turns, executor):
    script = turns.script(
        understand(),
        plan("Add eggs", SHOP),
        ask("How many eggs?", at_step=0),
        understand(),
        tool("db_create", at_step=0, table="shopping_list", data={"name": "eggs", "quantity": 12}),
        complete("Added 12 eggs", at_step=0),
        reply("Added 12 eggs."),
    )
    async with turns.worker(script):
        handle = await turns.start("add eggs and milk")
        paused = await awaiting(handle)
        assert paused.pending.kind == "question" and paused.pending.step_index == 0
        await send(handle, answer("answer", "a dozen"))
        result = await handle.result()
        await keep_history(handle, "ask_user_answered")
    assert result.status == "completed"
    resumed = [c for c in script.calls if c.node == "act"][1]
    assert "a dozen" in resumed.user
    assert [c.node for c in script.calls].count("think") == 1
    rows = (
        await Kitchen(executor, turns.user_id, SessionIdRegistry()).run(
            DbRead(table="shopping_list")
        )
    ).rows
    assert [(r["name"], r["quantity"]) for r in rows] == [("eggs", 12)]


async def test_an_amount_the_user_never_gave_is_asked_for_before_it_is_set(turns: Turns, executor):
    """Act set the milk to an amount of its own: the system asks the user instead."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("inventory", PANTRY[0])
    milk = [{"field": "name", "op": "=", "value": "milk"}]
    script = turns.script(
        understand(),
        plan("Milk", step("Set the quantity of the milk", "write", "inventory")),
        tool("db_update", at_step=0, table="inventory", filters=milk, data={"quantity": 1}),
        understand(),
        tool("db_update", at_step=0, table="inventory", filters=milk, data={"quantity": 3}),
        complete("Milk is now 3 l", at_step=0),
        reply("You have 3 l of milk."),
    )
    async with turns.worker(script):
        handle = await turns.start("change the amount of milk I have")
        paused = await awaiting(handle)
        assert paused.pending.kind == "question"
        assert paused.pending.message == (
            "How much should the milk be now? You did not say the new amount."
        )
        await send(handle, answer("answer", "3 liters"))
        result = await handle.result()
        await keep_history(handle, "amount_asked_for")
    assert result.status == "completed"
    rows = (await kitchen.run(DbRead(table="inventory"))).rows
    assert [(r["name"], r["quantity"]) for r in rows] == [("milk", 3)]


async def test_blocked_step_ends_in_a_reply_that_knows_why(turns: Turns):
    script = turns.script(
        understand(),
        plan("Cook", step("Read recipes", "read", "recipes")),
        act(
            {
                "action": "blocked",
                "reason_code": "no_recipes",
                "details": "No recipes saved",
                "suggested_next": "Save a recipe first",
            }
        ),
        reply("I couldn't find any recipes; save one first."),
    )
    async with turns.worker(script):
        result = await (await turns.start("cook something")).result()
    assert result.response == "I couldn't find any recipes; save one first."
    assert "No recipes saved" in [c for c in script.calls if c.node == "reply"][0].user


async def test_fail_passes_the_models_message_through_without_a_reply_call(turns: Turns):
    script = turns.script(
        understand(),
        plan("Cook", step("Read recipes", "read", "recipes")),
        act({"action": "fail", "user_message": "I can't do that safely."}),
    )
    async with turns.worker(script):
        handle = await turns.start("delete everything")
        result = await handle.result()
        live = await progress(handle)
    assert result.response == "I can't do that safely."
    assert "reply" not in [c.node for c in script.calls]
    # The step that failed the turn reads "failed", live and in the turn's row.
    assert [s.status for s in live.steps] == ["failed"]
    row = await get_turn(turns.sessions, turns.user_id, turns.conversation_id, 1)
    assert row is not None and [s["status"] for s in row.plan["steps"]] == ["failed"]


async def test_the_reply_and_the_record_know_the_answer_to_a_clarification(turns: Turns):
    script = turns.script(
        clarify_first("Which recipe?"),
        understand(),
        plan("Read", step("Read recipes", "read", "recipes")),
        tool("db_read", table="recipes"),
        complete("None saved"),
        reply("You have no chicken recipes."),
    )
    async with turns.worker(script):
        handle = await turns.start("show me that one")
        await awaiting(handle)
        await send(handle, answer("answer", "the chicken one"))
        await handle.result()
    said = "show me that one (then answered: the chicken one)"
    by_node = {c.node: c.user for c in script.calls[1:]}  # after the pause
    assert by_node["understand"].startswith(f"## Current message\n{said}\n")
    assert by_node["think"].startswith(f"## User request\n{said}\n")
    assert "The user's reply to it: the chicken one" in by_node["think"]
    assert f"## The user's words this turn\n{said}\n" in by_node["act"]
    assert said in by_node["reply"]
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert state.recent_turns[0].user_message == "show me that one (then answered: the chicken one)"


async def two_curries_listed(turns: Turns, executor, choice: dict, *rest: dict):
    """A first turn lists two saved curries (recipe_1, recipe_2); the script then goes on
    with ``choice`` (Understand's answer to "open the curry") and ``rest``."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "recipes", [{"name": "Chicken curry"}, {"name": "Lentil curry"}]
    )
    return turns.script(
        quick("Show the user's recipes", "recipes"),
        {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "recipes"}}},
        choice,
        *rest,
        plan("Show it", step("Read the recipe", "read", "recipes")),
        tool("db_read", table="recipes"),
        complete("Read it"),
        reply("Here it is."),
    )


def curry_choice(*options: tuple[str, str], question: str | None = None) -> dict:
    return understand(
        needs_disambiguation=True,
        disambiguation_options=[{"ref": ref, "label": label} for ref, label in options],
        clarification_questions=[question] if question else [],
    )


async def test_an_ambiguous_reference_is_asked_as_a_choice_that_resolves_to_the_ref(
    turns: Turns, executor
):
    # The model's labels are not shown, and a ref the registry lacks is no option.
    offered = [("recipe_1", "?"), ("recipe_2", "?"), ("recipe_9", "Invented")]
    choice = curry_choice(*offered, question="Which curry do you mean?")
    script = await two_curries_listed(
        turns, executor, choice, understand(referenced_entities=["recipe_2"])
    )
    async with turns.worker(script):
        await (await turns.start("show my recipes")).result()
        handle = await turns.start("open the curry")
        paused = await awaiting(handle)
        options = paused.pending.options
        assert [o.ref for o in options] == ["recipe_1", "recipe_2"]
        labels = [o.label for o in options]
        assert sorted(labels) == ["Chicken curry", "Lentil curry"]
        asked = f"Which curry do you mean?\n\n1. {labels[0]}\n2. {labels[1]}"
        assert paused.pending.message == asked
        await send(handle, answer("answer", "the second one"))
        result = await handle.result()
        await keep_history(handle, "disambiguation_choice")
    assert result.status == "completed"
    understood = [c for c in script.calls if c.node == "understand"][2].user
    assert f"The user chose: {labels[1]} (recipe_2)." in understood
    said = f"open the curry (then answered: {labels[1]} (recipe_2))"
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert state.recent_turns[1].user_message == said


async def test_a_choice_answer_that_picks_nothing_goes_back_to_understand_as_said(
    turns: Turns, executor
):
    choice = curry_choice(("recipe_1", "a"), ("recipe_2", "b"))
    script = await two_curries_listed(turns, executor, choice, understand())
    async with turns.worker(script):
        await (await turns.start("show my recipes")).result()
        handle = await turns.start("open the curry")
        paused = await awaiting(handle)
        assert paused.pending.message.startswith("Which one do you mean?\n\n1. ")
        await send(handle, answer("answer", "neither, I meant soup"))
        await handle.result()
    understood = [c for c in script.calls if c.node == "understand"][2].user
    assert "The user's reply to it: neither, I meant soup" in understood
    assert "The reply picks none of the options (" in understood


async def test_a_choice_of_a_ref_the_same_answer_dropped_still_goes_on(turns: Turns, executor):
    """A model that takes the first option everywhere offered the curries and dropped
    recipe_2 in the same answer; the choice of it failed the turn's workflow task (an
    unknown ref), and the answer never got through."""
    choice = understand(
        needs_disambiguation=True,
        disambiguation_options=[
            {"ref": "recipe_1", "label": "a"},
            {"ref": "recipe_2", "label": "b"},
        ],
        entity_curation={
            "retain_active": [],
            "demote": [],
            "drop": ["recipe_2"],
            "clear_all": False,
        },
    )
    script = await two_curries_listed(turns, executor, choice, understand())
    async with turns.worker(script):
        await (await turns.start("show my recipes")).result()
        handle = await turns.start("open the curry")
        await awaiting(handle)
        await send(handle, answer("answer", "2"))
        result = await handle.result()
        await keep_history(handle, "chosen_dropped")
    assert result.status == "completed"
    understood = [c for c in script.calls if c.node == "understand"][2].user
    assert "(recipe_2)" in understood  # the choice is said, though the ref is gone


async def test_a_choice_with_one_known_candidate_is_no_choice(turns: Turns):
    script = turns.script(
        curry_choice(("recipe_1", "a"), ("recipe_2", "b")),
        plan("Read", step("Read recipes", "read", "recipes")),
        tool("db_read", table="recipes"),
        complete("Read"),
        reply("Nothing saved yet."),
    )
    async with turns.worker(script):
        result = await (await turns.start("open the curry")).result()
    assert result.status == "completed"  # the registry is empty: nothing to choose between
    assert [c.node for c in script.calls][:2] == ["understand", "think"]


async def test_the_users_constraints_reach_think_and_the_write_step(turns: Turns, executor):
    script = turns.script(
        understand(constraint_snapshot=["no dairy"]),
        plan("Shop", SHOP),
        tool("db_create", table="shopping_list", data=[{"name": "oat milk"}]),
        complete("Added oat milk"),
        reply("Added oat milk."),
    )
    async with turns.worker(script):
        await (await turns.start("add milk, but no dairy")).result()
    by_node = {c.node: c.user for c in script.calls}
    assert "Constraints: no dairy" in by_node["think"]
    assert "## Constraints to hold to\n- no dairy\n" in by_node["act"]
    assert await shopping_names(turns, executor) == ["oat milk"]


async def test_deleting_an_item_found_in_two_places_asks_which_and_deletes_that_one(
    turns: Turns, executor
):
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("inventory", PANTRY)  # eggs in the fridge
    await kitchen.create("shopping_list", [{"name": "eggs"}, {"name": "flour"}])
    script = turns.script(
        understand(),  # the model saw no ambiguity: the turn asks anyway
        understand(),
        plan("Delete the listed eggs", step("Delete the eggs from the list", "write", "shopping")),
        tool(
            "db_delete",
            table="shopping_list",
            filters=[{"field": "name", "op": "=", "value": "eggs"}],
        ),
        complete("Deleted eggs from the list"),
        reply("Removed eggs from your shopping list."),
    )
    async with turns.worker(script):
        handle = await turns.start("delete the eggs")
        paused = await awaiting(handle)
        labels = [o.label for o in paused.pending.options]
        assert labels == ["eggs (in your inventory, fridge)", "eggs (on your shopping list)"]
        assert paused.pending.message.startswith("Which one should I delete?\n\n1. eggs (in")
        await send(handle, answer("answer", "2"))
        result = await handle.result()
        await keep_history(handle, "which_delete")
    assert result.status == "completed"
    chosen = paused.pending.options[1].ref
    assert (
        f"The user chose: eggs (on your shopping list) ({chosen})."
        in [c.user for c in script.calls if c.node == "understand"][1]
    )
    assert await shopping_names(turns, executor) == ["flour"]
    assert "eggs" in await kitchen.names("inventory")


async def test_delete_that_one_after_two_recipes_were_shown_asks_which_and_deletes_it(
    turns: Turns, executor
):
    """Understand took "that one" for one of the two recipes just listed: a delete is not
    a guess, so the turn asks which, and the answer decides."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    await kitchen.create("recipes", [{"name": "Red Lentil Dal"}, {"name": "Weeknight Chili"}])
    script = turns.script(
        quick("Show the user's recipes", "recipes"),
        {"node": "act_quick", "output": {"tool": "db_read", "params": {"table": "recipes"}}},
        understand(referenced_entities=["recipe_1"]),  # the model's guess: the first
        understand(),
        plan("Delete the chili", step("Delete the chili recipe", "write", "recipes")),
        tool(
            "db_delete",
            table="recipes",
            filters=[{"field": "name", "op": "=", "value": "Weeknight Chili"}],
        ),
        complete("Deleted Weeknight Chili"),
        reply("Deleted Weeknight Chili."),
    )
    async with turns.worker(script):
        await (await turns.start("show my recipes")).result()
        handle = await turns.start("delete that one")
        paused = await awaiting(handle)
        options = {o.label: o.ref for o in paused.pending.options}
        assert sorted(options) == ["Red Lentil Dal", "Weeknight Chili"]
        assert sorted(options.values()) == ["recipe_1", "recipe_2"]
        assert paused.pending.message.startswith("Which one should I delete?\n\n1. ")
        await send(handle, answer("answer", "the chili"))
        result = await handle.result()
        await keep_history(handle, "which_pointed_at")
    assert result.status == "completed"
    chili = options["Weeknight Chili"]
    assert (
        f"The user chose: Weeknight Chili ({chili})."
        in ([c.user for c in script.calls if c.node == "understand"][-1])
    )
    assert await kitchen.names("recipes") == ["Red Lentil Dal"]
