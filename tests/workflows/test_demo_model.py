"""The offline demo model end to end: each rule through the real turn workflow (time-skipping
Temporal, PostgreSQL), checking both what the user is told and what the database holds; and a
table of messages as users type them, under several profiles: what it suggests keeps to the
profile, what it cannot do it says, and what it says it did is what the database holds."""

from __future__ import annotations

import datetime as dt
import re
import uuid

import pytest

from activities.llm.demo_provider import (
    CANNOT_LEAD,
    EMPTY_STOCK,
    HELP_TEXT,
    SAVE_HINT,
    SAVE_NOTHING_QUESTION,
    WHICH_ONE_QUESTION,
    DemoProvider,
    cannot_text,
)
from activities.llm.demo_recipes import RECIPES
from domain.crud.calls import DbRead
from domain.db.engine import user_transaction
from domain.kitchen import repository
from domain.registry import SessionIdRegistry
from domain.turn_store import load_conversation
from tests.kitchen_helper import PANTRY, Kitchen
from tests.workflows.conftest import Turns, progress, send, wait_for
from workflows.interface import UserInput


def answer(action: str, text: str | None = None) -> UserInput:
    return UserInput(input_id=uuid.uuid4().hex, action=action, text=text)


async def awaiting(handle):
    return await wait_for(handle, lambda p: p.status == "awaiting_input")


def kitchen(turns: Turns, executor) -> Kitchen:
    """The user's kitchen through a fresh registry: what is really in the database."""
    return Kitchen(executor, turns.user_id, SessionIdRegistry())


async def rows(turns: Turns, executor, table: str) -> list[dict]:
    return (await kitchen(turns, executor).run(DbRead(table=table))).rows


async def say(turns: Turns, message: str):
    return await (await turns.start(message)).result()


def next_week() -> list[dt.date]:
    today = dt.date.today()
    monday = today + dt.timedelta(days=7 - today.weekday())
    return [monday + dt.timedelta(days=n) for n in range(7)]


def day(d: dt.date) -> str:
    return f"{d.strftime('%a')} {d.isoformat()}"


LEMON_CHICKEN = next(r for r in RECIPES if r["name"] == "Lemon Chicken Traybake")


# --- show ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "table", "seed", "expected"),
    [
        ("show my pantry", "inventory", PANTRY, ["4 items in your inventory", "frozen peas"]),
        (
            "what's on my shopping list?",
            "shopping_list",
            [{"name": "milk"}, {"name": "bread"}],
            ["2 items on your shopping list", "- [ ] milk", "- [ ] bread"],
        ),
        (
            "list my recipes",
            "recipes",
            [{"name": "Weeknight Chili", "cuisine": "Mexican"}],
            ["1 recipe:", "**Weeknight Chili** — Mexican"],
        ),
        (
            "show my meal plans",
            "meal_plans",
            [
                {"date": "2026-12-02", "meal_type": "dinner", "notes": "Pizza night"},
                {"date": "2026-12-01", "meal_type": "lunch", "notes": "Soup"},
            ],
            [
                "2 planned meals:\n- Tue 2026-12-01 · Lunch: Soup\n"
                "- Wed 2026-12-02 · Dinner: Pizza night"
            ],
        ),
        (
            "what are my tasks?",
            "tasks",
            [{"title": "Defrost the chicken", "due_date": "2026-12-01"}],
            ["1 task, 1 open", "Defrost the chicken (due Tue 2026-12-01)"],
        ),
    ],
)
async def test_show_reads_the_table_and_the_formatter_answers(
    turns: Turns, executor, message, table, seed, expected
):
    await kitchen(turns, executor).create(table, seed)
    demo = DemoProvider()
    async with turns.worker(demo):
        result = await say(turns, message)
    assert result.status == "completed"
    for text in expected:
        assert text in result.response
    assert [c.node for c in demo.calls] == ["understand", "act_quick", "summarize"]
    assert len(await rows(turns, executor, table)) == len(seed)  # a read changes nothing


# --- add / remove --------------------------------------------------------------------------


async def test_add_items_to_the_shopping_list_in_one_batch(turns: Turns, executor):
    async with turns.worker(DemoProvider()):
        handle = await turns.start("add milk and eggs to my shopping list")
        result = await handle.result()
        final = await progress(handle)
    assert result.response == "Added milk and eggs to your shopping list."
    assert await kitchen(turns, executor).names("shopping_list") == ["eggs", "milk"]
    assert [s.tool_calls for s in final.steps] == [1]


async def test_add_to_the_pantry_keeps_quantity_unit_and_location(turns: Turns, executor):
    async with turns.worker(DemoProvider()):
        result = await say(turns, "Add 2 kg rice and 3 lemons to my pantry")
    assert result.response == "Added 2 kg rice and 3 lemons to your pantry."
    found = {r["name"]: r for r in await rows(turns, executor, "inventory")}
    assert set(found) == {"rice", "lemons"}
    assert (found["rice"]["quantity"], found["rice"]["unit"]) == (2, "kg")
    assert found["lemons"]["quantity"] == 3
    assert {r["location"] for r in found.values()} == {"pantry"}


async def test_remove_from_the_shopping_list_and_say_when_nothing_matched(turns: Turns, executor):
    await kitchen(turns, executor).create("shopping_list", [{"name": "milk"}, {"name": "eggs"}])
    async with turns.worker(DemoProvider()):
        removed = await say(turns, "remove milk from my shopping list")
        assert await kitchen(turns, executor).names("shopping_list") == ["eggs"]
        nothing = await say(turns, "remove bananas from my shopping list")
    assert removed.response == "Removed milk from your shopping list."
    assert nothing.response == (
        "Nothing matched bananas on your shopping list, so nothing was removed."
    )
    assert await kitchen(turns, executor).names("shopping_list") == ["eggs"]


async def test_remove_several_items_from_the_inventory(turns: Turns, executor):
    await kitchen(turns, executor).create("inventory", PANTRY)
    async with turns.worker(DemoProvider()):
        result = await say(turns, "remove rice and milk from my inventory")
    assert result.response == "Removed rice and milk from your inventory."
    assert await kitchen(turns, executor).names("inventory") == ["eggs", "frozen peas"]


# --- suggest, then save it -----------------------------------------------------------------


async def test_suggest_a_recipe_then_save_it(turns: Turns, executor):
    async with turns.worker(DemoProvider()):
        suggested = await say(turns, "suggest a recipe with chicken")
        assert await rows(turns, executor, "recipes") == []  # shown, not saved
        state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
        pending = state.registry.get_truly_pending_artifacts()
        assert list(pending) == ["gen_recipe_1"]
        saved = await say(turns, "save it")
    assert "**Lemon Chicken Traybake**" in suggested.response
    assert (
        "**Ingredients**" in suggested.response
        and "- chicken thighs — 8 piece" in suggested.response
    )
    assert "1. Heat the oven to 200°C." in suggested.response
    assert suggested.response.endswith(SAVE_HINT)
    assert saved.response == "Saved Lemon Chicken Traybake to your recipes."
    recipes = await rows(turns, executor, "recipes")
    assert [r["name"] for r in recipes] == ["Lemon Chicken Traybake"]
    ingredients = await kitchen(turns, executor).names("recipe_ingredients")
    assert ingredients == sorted(i["name"] for i in LEMON_CHICKEN["ingredients"])
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert state.registry.get_truly_pending_artifacts() == {}


async def test_save_it_with_nothing_unsaved_asks_and_the_answer_is_understood(
    turns: Turns, executor
):
    async with turns.worker(DemoProvider()):
        handle = await turns.start("save it")
        paused = await awaiting(handle)
        assert paused.pending.kind == "clarification" and paused.pending.source == "understand"
        assert paused.response == SAVE_NOTHING_QUESTION
        await send(handle, answer("answer", "give me an idea with lentils"))
        result = await handle.result()
    assert "**Red Lentil Dal**" in result.response
    assert await rows(turns, executor, "recipes") == []


# --- plan the week -------------------------------------------------------------------------


async def test_plan_my_dinners_proposes_then_writes_seven_dinners(turns: Turns, executor):
    await kitchen(turns, executor).create("recipes", [{"name": "Tacos"}, {"name": "Dal"}])
    week = next_week()
    async with turns.worker(DemoProvider()):
        handle = await turns.start("plan my dinners for next week")
        paused = await awaiting(handle)
        assert paused.pending.kind == "proposal" and len(paused.pending.plan) == 2
        assert (
            f"I'll plan dinners for {day(week[0])} to {day(week[-1])} using your saved recipes. "
            "Shall I?"
        ) in paused.response
        assert await rows(turns, executor, "meal_plans") == []
        await send(handle, answer("confirm"))
        result = await handle.result()
    assert result.status == "completed"
    assert result.response.startswith(f"Planned 7 dinners for {day(week[0])} to {day(week[-1])}:")
    assert f"- {day(week[-1])}: Dal" in result.response
    plans = sorted(await rows(turns, executor, "meal_plans"), key=lambda r: r["date"])
    assert [r["date"] for r in plans] == [d.isoformat() for d in week]
    assert {r["meal_type"] for r in plans} == {"dinner"}
    assert [r["_recipe_id_label"] for r in plans] == ["Dal", "Tacos"] * 3 + ["Dal"]


async def test_plan_my_dinners_without_saved_recipes_uses_built_in_ideas(turns: Turns, executor):
    async with turns.worker(DemoProvider()):
        handle = await turns.start("plan my dinners for next week")
        await awaiting(handle)
        await send(handle, answer("confirm"))
        result = await handle.result()
    assert "You have no saved recipes yet" in result.response
    plans = sorted(await rows(turns, executor, "meal_plans"), key=lambda r: r["date"])
    assert len(plans) == 7 and all(r["recipe_id"] is None for r in plans)
    assert RECIPES[0]["name"] in plans[0]["notes"]


async def test_a_recipe_saved_from_a_suggestion_is_planned(turns: Turns, executor):
    async with turns.worker(DemoProvider()):
        await say(turns, "suggest a recipe with salmon")
        await say(turns, "save it")
        handle = await turns.start("plan my dinners for next week")
        await awaiting(handle)
        await send(handle, answer("confirm"))
        result = await handle.result()
    assert "You have no saved recipes" not in result.response
    plans = await rows(turns, executor, "meal_plans")
    assert len(plans) == 7
    assert {r["_recipe_id_label"] for r in plans} == {"Honey Soy Salmon"}


# --- that one ------------------------------------------------------------------------------


async def test_that_one_asks_which_and_the_answer_suggests_a_recipe(turns: Turns, executor):
    async with turns.worker(DemoProvider()):
        handle = await turns.start("show me that one")
        paused = await awaiting(handle)
        assert paused.pending.kind == "clarification"
        assert paused.response == WHICH_ONE_QUESTION
        await send(handle, answer("answer", "the chicken recipe"))
        result = await handle.result()
    assert "**Lemon Chicken Traybake**" in result.response
    assert await rows(turns, executor, "recipes") == []


async def test_that_one_answered_with_a_read_is_a_quick_read(turns: Turns, executor):
    await kitchen(turns, executor).create("recipes", {"name": "Weeknight Chili"})
    async with turns.worker(DemoProvider()):
        handle = await turns.start("I'll take that one")
        await awaiting(handle)
        await send(handle, answer("answer", "show my recipes"))
        result = await handle.result()
    assert result.response == "1 recipe:\n- **Weeknight Chili**"


# --- anything else -------------------------------------------------------------------------


async def test_anything_else_says_it_cannot_and_what_the_demo_understands(turns: Turns, executor):
    async with turns.worker(DemoProvider()):
        result = await say(turns, "What's the weather like tomorrow?")
    assert result.response == cannot_text("what's the weather like tomorrow")
    assert result.response.endswith(HELP_TEXT)
    for table in ("inventory", "shopping_list", "recipes", "meal_plans", "tasks"):
        assert await rows(turns, executor, table) == []
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    (turn,) = state.recent_turns
    assert turn.assistant_summary == " ".join(result.response.split()[:100])
    assert "What's the weather like tomorrow?" in state.engagement_summary
    assert state.turn_summaries[-1].conversation_phase == "executing"


async def test_demo_cook_mode_walks_through_the_mentioned_recipe_then_closes(
    turns: Turns, executor
):
    mine = kitchen(turns, executor)
    made = await mine.create(
        "recipes", [{"name": "Toast", "instructions": ["Slice bread.", "Toast it."]}]
    )
    toast = mine.registry.resolve(made.rows[0]["id"])
    said = []
    async with turns.worker(DemoProvider()):
        for text in (f"cook @[Toast](recipe:{toast})", "next", "next", "done"):
            result = await (await turns.start(text, mode="cook")).result()
            said.append(result.response)
    assert said == [
        "Step 1 of 2: Slice bread.",
        "Step 2 of 2: Toast it.",
        "That was the last step. Say 'done' when you are.",
        "Enjoy your meal!",
    ]


async def test_demo_brainstorm_offers_ideas_and_keeps_one_as_unsaved_content(
    turns: Turns, sessions
):
    async with turns.worker(DemoProvider()):
        ideas = await (await turns.start("ideas with lentils", mode="brainstorm")).result()
        kept = await (await turns.start("save that lentil one", mode="brainstorm")).result()
    assert ideas.response.startswith("Ideas: ")
    assert kept.response.startswith("Let's keep ")
    state, _ = await load_conversation(sessions, turns.user_id, turns.conversation_id)
    pending = state.registry.get_truly_pending_artifacts()
    assert list(pending) == ["gen_recipe_1"] and state.handoff.action == "save"


# --- honest when a rule half-matches ---------------------------------------------------------


async def said_by(turns: Turns, message: str, mode: str | None = None):
    """The turn's words as it settles: its reply, or the question it paused on."""
    handle = await turns.start(message, mode=mode)
    settled = await wait_for(
        handle, lambda p: p.status in ("awaiting_input", "completed", "failed")
    )
    return handle, settled.pending.message if settled.pending else settled.response


ASKED_WHICH = "Do you mean Lemon Chicken Traybake, the recipe I suggested earlier?"


@pytest.mark.parametrize(
    ("seed", "before", "message", "says", "then"),
    [
        pytest.param(
            [],
            [],
            "🛒 add milk to my shopping list",
            "Added milk to your shopping list.",
            {"shopping_list": ["milk"]},
            id="a leading emoji does not turn an add into a show",
        ),
        pytest.param(
            [],
            [],
            "make a shopping list for the week",
            'I can\'t help with "make a shopping list for the week", so I did nothing.',
            {"shopping_list": [], "meal_plans": []},
            id="a request it cannot do is not guessed",
        ),
        pytest.param(
            [],
            [],
            "what can I cook with what I have",
            EMPTY_STOCK,
            {"recipes": []},
            id="cooking from an empty pantry says it is empty",
        ),
        pytest.param(
            PANTRY,
            [],
            "what can I cook with what I have?",
            "From what you have (",
            {"recipes": []},
            id="cooking from a stocked pantry names what it used",
        ),
        pytest.param(
            [],
            [
                ("suggest a recipe with chicken", None),
                ("ideas with lentils", "brainstorm"),
                ("done", "brainstorm"),
            ],
            "save that",
            ASKED_WHICH,
            {"recipes": []},
            id="save that after a brainstorm about something else asks",
        ),
    ],
)
async def test_a_half_matching_message_gets_an_honest_answer_and_no_other_action(
    turns: Turns, executor, seed, before, message, says, then
):
    if seed:
        await kitchen(turns, executor).create("inventory", seed)
    async with turns.worker(DemoProvider()):
        for text, mode in before:
            await (await turns.start(text, mode=mode)).result()
        handle, said = await said_by(turns, message)
        for table, names in then.items():
            assert sorted(r["name"] for r in await rows(turns, executor, table)) == names
        if said.startswith(ASKED_WHICH):  # the question names the recipe; yes saves that one
            await send(handle, answer("answer", "yes"))
            saved = await handle.result()
            assert saved.response == "Saved Lemon Chicken Traybake to your recipes."
    assert said.startswith(says)


async def test_deleting_eggs_found_in_two_places_asks_and_deletes_the_chosen(
    turns: Turns, executor
):
    await kitchen(turns, executor).create("inventory", PANTRY)  # eggs in the fridge
    await kitchen(turns, executor).create("shopping_list", [{"name": "eggs"}, {"name": "flour"}])
    async with turns.worker(DemoProvider()):
        handle, asked = await said_by(turns, "delete the eggs")
        assert asked.startswith("Which one should I delete?\n\n1. eggs (in your inventory")
        await send(handle, answer("answer", "the one on my shopping list"))
        done = await handle.result()
    assert done.response == "Removed eggs from your shopping list."
    assert sorted(r["name"] for r in await rows(turns, executor, "shopping_list")) == ["flour"]
    assert "eggs" in [r["name"] for r in await rows(turns, executor, "inventory")]


# --- the table: messages as users type them, under several profiles -------------------------

VEGETARIAN = {"dietary_restrictions": ["vegetarian"]}
VEGAN = {"dietary_restrictions": ["vegan"]}
SEED: dict[str, list[dict]] = {
    "shopping_list": [{"name": "milk"}, {"name": "bread"}],
    "inventory": PANTRY,  # milk, eggs, rice, frozen peas
    "recipes": [{"name": "Weeknight Chili"}],
}
TABLES = ("shopping_list", "inventory", "recipes", "meal_plans", "tasks")
MEAT_OR_FISH = re.compile(r"chicken|beef|pork|bacon|ham|lamb|salmon|tuna|fish|prawn|shrimp")


def case(profile, message, says, changed=None, suggested=None, *, id):  # noqa: A002
    """A row: the profile, what the user types, how the reply starts, the tables whose names
    change (and to what), and the unsaved recipe it leaves (None: none)."""
    return pytest.param(profile, message, says, changed or {}, suggested, id=id)


def refused(message, profile=None, *, id):  # noqa: A002
    """A message no rule carries out: its honest "I can't", and nothing written."""
    quoted = message.lower().rstrip("?")
    return case(profile, message, f'{CANNOT_LEAD}"{quoted}", so I did nothing.', id=id)


TABLE = [
    # What it suggests keeps to the profile; what the profile forbids it refuses, doing nothing.
    case(
        VEGETARIAN,
        "suggest a recipe with chicken",
        "I won't suggest a recipe with chicken: your preferences say vegetarian.",
        id="vegetarian asks for chicken: refused, nothing suggested",
    ),
    case(
        VEGETARIAN,
        "What can I make for dinner?",
        "Here's an idea that fits your preferences (vegetarian):\n\n**Red Lentil Dal**",
        suggested="Red Lentil Dal",
        id="vegetarian asks for dinner: a vegetarian recipe, said to fit",
    ),
    case(
        VEGETARIAN,
        "what can I cook with what I have?",
        "From what you have (",
        suggested="Vegetable Fried Rice",
        id="vegetarian cooks from stock: a vegetarian recipe",
    ),
    case(
        VEGAN,
        "suggest a recipe with eggs",
        "I won't suggest a recipe with eggs: your preferences say vegan.",
        id="vegan asks for eggs: refused",
    ),
    case(
        {"allergies": ["peanuts", "dairy"]},
        "give me an idea with parmesan",
        "I won't suggest a recipe with parmesan: your preferences list an allergy to dairy.",
        id="dairy allergy asks for parmesan: refused",
    ),
    case(
        {"disliked_ingredients": ["mushrooms"]},
        "suggest a risotto",
        "My recipes with risotto don't fit your preferences (no mushrooms), so here is",
        suggested="Lemon Chicken Traybake",
        id="a disliked ingredient leaves out the only risotto",
    ),
    case(
        {"dietary_restrictions": ["keto"]},
        "suggest a recipe",
        "I suggested nothing: your preferences say keto, and the offline demo model can't "
        "check its recipes against that",
        id="a diet it cannot check: nothing suggested, and why",
    ),
    case(
        None,
        "suggest a vegan recipe without coconut",
        "None of my 8 built-in recipes fits your request (vegan, no coconut), so I suggested "
        "nothing",
        id="nothing in the book fits: said",
    ),
    case(
        None,
        "suggest a recipe without chicken",
        "Here's an idea that fits your request (no chicken):\n\n**Red Lentil Dal**",
        suggested="Red Lentil Dal",
        id="without chicken is not a wish for chicken",
    ),
    case(
        VEGETARIAN,
        "add chicken to my shopping list",
        "Added chicken to your shopping list.",
        {"shopping_list": ["bread", "chicken", "milk"]},
        id="the user's own list: added as asked (docs/MODEL.md)",
    ),
    # Messages it once misread: each now gets its honest "I can't", and nothing is written.
    refused("delete everything", id="delete everything"),
    refused("remove all items from my shopping list", id="remove all items"),
    refused("clear my shopping list", id="clear my list"),
    refused("delete my recipes", id="delete my recipes"),
    refused("remind me to defrost the chicken tomorrow", id="a reminder"),
    refused("add a reminder to defrost the chicken", id="a reminder is no shopping item"),
    refused("change my diet to vegan", VEGETARIAN, id="changing the profile"),
    refused("how long do eggs keep in the fridge?", id="a question naming the fridge"),
    refused("move the milk to the fridge", id="move is no show"),
    refused("ad milk to my list", id="a typo in the verb"),
    refused("add milk to my shoping list", id="a typo in the place"),
    # ... and everyday ways to say what it can do work.
    case(
        None,
        "I'm out of eggs",
        "Removed eggs from your fridge.",
        {"inventory": ["frozen peas", "milk", "rice"]},
        id="out of eggs",
    ),
    case(
        None,
        "check off milk from my shopping list",
        "Removed milk from your shopping list.",
        {"shopping_list": ["bread"]},
        id="check off",
    ),
    case(None, "do I have milk?", "4 items in your inventory", id="a question about stock"),
    case(None, "hello", HELP_TEXT, id="hello"),
]


async def kitchen_now(turns: Turns, executor) -> dict[str, list[str]]:
    return {t: await kitchen(turns, executor).names(t) for t in TABLES}


async def profile_now(turns: Turns):
    async with user_transaction(turns.sessions, turns.user_id) as session:
        found = await repository.get_preferences(session)
    return {k: v for k, v in (found or {}).items() if k not in ("id", "user_id")}


async def unsaved_recipes(turns: Turns) -> list[dict]:
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    registry = state.registry
    return list(registry.get_truly_pending_artifacts().values())


_PLACES = r"(?P<place>shopping list|inventory|pantry|fridge|freezer)"
_ADDED = re.compile(rf"Added (?P<names>.+?) to your {_PLACES}\.")
_REMOVED = re.compile(rf"Removed (?P<names>.+?) from your {_PLACES}\.")


def claims_hold(response: str, before: dict, after: dict, unsaved: list[dict]) -> None:
    """What the reply says it did is what the database holds, and nothing else changed."""
    changed = {t for t in TABLES if before[t] != after[t]}
    claimed = set()
    for pattern, present in ((_ADDED, True), (_REMOVED, False)):
        for match in pattern.finditer(response):
            table = "shopping_list" if match.group("place") == "shopping list" else "inventory"
            claimed.add(table)
            for name in re.split(r", | and ", match.group("names")):
                assert (name in after[table]) is present, (name, table, after[table])
    assert changed == claimed, f"changed {changed}, the reply claims {claimed}"
    shown = [r["name"] for r in unsaved if f"**{r['name']}**" in response]
    assert len(shown) == len(unsaved), "every unsaved recipe was shown, none invented"
    if not unsaved:
        assert "Say 'save it'" not in response


@pytest.mark.parametrize(("profile", "message", "says", "changed", "suggested"), TABLE)
async def test_the_demo_keeps_to_the_profile_and_says_what_it_cannot_do(
    turns: Turns, executor, profile, message, says, changed, suggested
):
    for table, seed in SEED.items():
        await kitchen(turns, executor).create(table, seed)
    if profile:
        async with user_transaction(turns.sessions, turns.user_id) as session:
            await repository.put_preferences(session, profile)
    before, profile_before = await kitchen_now(turns, executor), await profile_now(turns)
    async with turns.worker(DemoProvider()):
        handle = await turns.start(message)
        settled = await wait_for(handle, lambda p: p.status in ("completed", "failed"))
    response = settled.response
    assert settled.status == "completed"
    assert response.startswith(says), response
    after, unsaved = await kitchen_now(turns, executor), await unsaved_recipes(turns)
    assert after == {**before, **changed}
    assert await profile_now(turns) == profile_before  # it never changes the profile
    assert [r["name"] for r in unsaved] == ([suggested] if suggested else [])
    if profile == VEGETARIAN:
        for recipe in unsaved:
            assert not MEAT_OR_FISH.search(str(recipe["ingredients"]))
    claims_hold(response, before, after, unsaved)


async def test_a_statement_about_the_cook_is_kept_in_the_profile_and_kept_to(
    turns: Turns, executor
):
    """The system plans the profile's write for a statement about the cook
    (``domain.enforced.profile``); the demo carries out the diets, allergies and dislikes
    it knows, adding to what the profile holds, and says what it cannot."""
    async with turns.worker(DemoProvider()):
        allergy = await say(turns, "I'm allergic to peanuts")
        dislike = await say(turns, "my husband hates mushrooms so leave them out")
        fryer = await say(turns, "just got an air fryer")
        asked = await say(turns, "suggest a recipe with mushrooms")
    assert allergy.response.startswith(
        "Noted in your preferences: allergies: peanuts. What I suggest and plan keeps to them."
    )
    assert dislike.response.startswith("Noted in your preferences: disliked ingredients: mushrooms")
    assert fryer.response.startswith("I couldn't finish that: the offline demo model cannot")
    assert asked.response.startswith("I won't suggest a recipe with mushrooms"), asked.response
    profile = await profile_now(turns)
    assert (profile["allergies"], profile["disliked_ingredients"]) == (["peanuts"], ["mushrooms"])
    assert profile["available_equipment"] == []  # nothing written for what it cannot do


async def test_plan_leaves_out_a_saved_recipe_the_new_profile_forbids(turns: Turns, executor):
    """A chicken recipe saved before the user turned vegetarian is not planned, and said."""
    await kitchen(turns, executor).create("recipes", [{"name": "Weeknight Chili"}])
    async with turns.worker(DemoProvider()):
        await say(turns, "suggest a recipe with chicken")
        await say(turns, "save it")
        await say(turns, "suggest a recipe with lentils")
        await say(turns, "save it")
        async with user_transaction(turns.sessions, turns.user_id) as session:
            await repository.put_preferences(session, VEGETARIAN)
        handle = await turns.start("plan my dinners for next week")
        paused = await awaiting(handle)
        assert "using your saved recipes that fit your preferences (vegetarian)" in (
            paused.response
        )
        await send(handle, answer("confirm"))
        result = await handle.result()
    plans = await rows(turns, executor, "meal_plans")
    assert len(plans) == 7
    assert {r["_recipe_id_label"] for r in plans} == {"Red Lentil Dal"}
    assert result.response.startswith("Planned 7 dinners for ")
    assert result.response.endswith(
        "I left out Lemon Chicken Traybake (chicken thighs: your preferences say vegetarian); "
        "Weeknight Chili (I can't see its ingredients to check them)."
    )


async def test_brainstorm_keeps_to_the_profile(turns: Turns):
    async with user_transaction(turns.sessions, turns.user_id) as session:
        await repository.put_preferences(session, VEGETARIAN)
    async with turns.worker(DemoProvider()):
        refused = await (await turns.start("ideas with chicken", mode="brainstorm")).result()
        kept = await (await turns.start("save that", mode="brainstorm")).result()
    assert refused.response.startswith(
        "I won't suggest a recipe with chicken: your preferences say vegetarian."
    )
    assert kept.response == "Let's keep Red Lentil Dal."
    assert [r["name"] for r in await unsaved_recipes(turns)] == ["Red Lentil Dal"]
