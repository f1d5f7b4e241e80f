"""Multi-turn conversations through the HTTP API (issue 5): generated content lives across
turns as a pending artifact, is revised in place, served without a database read, and is
saved only when the user says so. The model is scripted; registry and rows are real."""

from __future__ import annotations

import asyncio

from activities.llm.script_provider import ScriptProvider
from tests.api.conftest import Api
from tests.workflows.conftest import COMPRESS, SUMMARIZE
from tests.workflows.script import bypass, complete, plan, reply, step, tool, understand

GENERATE = step("Write the recipe", "generate", "recipes")
REVISE = step("Revise gen_recipe_1", "generate", "recipes")
SAVE = step("Save gen_recipe_1", "write", "recipes")


def script(*responses: dict) -> ScriptProvider:
    return ScriptProvider.from_responses([*responses, SUMMARIZE, COMPRESS])


def recipe(name: str, *ingredients: str) -> dict:
    return {
        "name": name,
        "cuisine": "mexican",
        "servings": 2,
        "instructions": ["Prepare everything.", "Cook it."],
        "ingredients": [{"name": i, "quantity": 1, "unit": "piece"} for i in ingredients],
    }


def generated(content: dict, ref: str | None = None) -> dict:
    artifact = {"type": "recipe", "content": content}
    if ref is not None:
        artifact["ref"] = ref
    return complete(f"Wrote {content['name']}", artifacts=[artifact])


async def say(api: Api, conversation: str, text: str) -> dict:
    """Send a message and wait until its turn is completed (summarized and saved)."""
    response = await api.post(
        f"/v1/conversations/{conversation}/messages?wait=true", json={"text": text}
    )
    assert response.status_code == 200, response.text
    return await wait_completed(api, response.json()["id"])


async def wait_completed(api: Api, turn_id: str) -> dict:
    async with asyncio.timeout(20):
        while True:
            body = (await api.get(f"/v1/turns/{turn_id}")).json()
            if body["status"] in ("completed", "failed", "expired", "cancelled"):
                assert body["status"] == "completed", body
                return body
            await asyncio.sleep(0.05)


async def entities(api: Api, conversation: str) -> dict[str, dict]:
    body = (await api.get(f"/v1/conversations/{conversation}")).json()
    return {e["ref"]: e for e in body["active_entities"]}


async def recipes(api: Api) -> list[dict]:
    response = await api.get("/v1/recipes")
    assert response.status_code == 200
    return response.json()


def ingredient_names(row: dict) -> list[str]:
    return sorted(i["name"] for i in row["ingredients"])


def act_prompts(provider: ScriptProvider) -> list[str]:
    return [c.user for c in provider.calls if c.node == "act"]


async def test_generate_then_add_lime_then_save_writes_one_recipe_once(api: Api):
    conversation = await api.conversation()
    provider = script(
        understand(),
        plan("Fish tacos", GENERATE),
        generated(recipe("Fish Tacos", "cod", "tortillas")),
        reply("Here are fish tacos."),
        understand(referenced_entities=["gen_recipe_1"]),
        plan("Add lime", REVISE),
        generated(recipe("Fish Tacos", "cod", "tortillas", "lime"), ref="gen_recipe_1"),
        reply("Added lime."),
        understand(referenced_entities=["gen_recipe_1"]),
        plan("Save the tacos", SAVE),
        tool("db_create", table="recipes", data={"id": "gen_recipe_1"}),
        complete("Saved Fish Tacos"),
        reply("Saved."),
    )
    async with api.worker(provider):
        await say(api, conversation, "make me fish tacos")
        assert await recipes(api) == []
        await say(api, conversation, "add lime")
        assert await recipes(api) == []  # nothing saved before the save turn
        after_revision = await entities(api, conversation)
        await say(api, conversation, "save it")
        saved = await entities(api, conversation)
    assert provider.unused() == []
    assert [r for r in after_revision if r.startswith("gen_")] == ["gen_recipe_1"]
    assert after_revision["gen_recipe_1"]["action"] == "generated"
    # The revision turn's write-free generate step saw the recipe it revised, in full.
    assert '"name": "cod"' in act_prompts(provider)[1]
    (row,) = await recipes(api)
    assert row["name"] == "Fish Tacos"
    assert ingredient_names(row) == ["cod", "lime", "tortillas"]
    assert saved["gen_recipe_1"]["action"] == "created"  # the gen ref was promoted
    assert not any(ref.startswith("recipe_") for ref in saved)


async def test_a_recipe_made_earlier_is_shown_from_the_pending_artifact_then_saved(api: Api):
    conversation = await api.conversation()
    show = step("Show gen_recipe_1", "read", "recipes")
    read_it = tool(
        "db_read",
        table="recipes",
        filters=[{"field": "id", "op": "=", "value": "gen_recipe_1"}],
    )
    provider = script(
        understand(),
        plan("Shakshuka", GENERATE),
        generated(recipe("Shakshuka", "tomatoes", "peppers")),
        reply("Here is shakshuka."),
        understand(referenced_entities=["gen_recipe_1"]),
        plan("Add eggs", REVISE),
        generated(recipe("Shakshuka", "tomatoes", "peppers", "eggs"), ref="gen_recipe_1"),
        reply("Added eggs."),
        understand(referenced_entities=["gen_recipe_1"]),
        plan("Remove the eggs", REVISE),
        generated(recipe("Shakshuka", "tomatoes", "peppers"), ref="gen_recipe_1"),
        reply("Eggs removed."),
        understand(referenced_entities=["gen_recipe_1"]),
        plan("Show it", show),
        read_it,
        complete("Showed Shakshuka"),
        reply("Here it is again."),
        understand(referenced_entities=["gen_recipe_1"]),
        plan("Add feta", REVISE),
        generated(recipe("Shakshuka", "tomatoes", "peppers", "feta"), ref="gen_recipe_1"),
        reply("Added feta."),
        understand(referenced_entities=["gen_recipe_1"]),
        plan("Save it", SAVE),
        tool("db_create", table="recipes", data={"id": "gen_recipe_1"}),
        complete("Saved"),
        reply("Saved."),
    )
    async with api.worker(provider):
        for text in ("make shakshuka", "add eggs", "actually, no eggs"):
            await say(api, conversation, text)
        await say(api, conversation, "show me that recipe you made earlier")
        assert await recipes(api) == []
        await say(api, conversation, "add feta")
        await say(api, conversation, "save it")
    assert provider.unused() == []
    # The read step's result came from memory: the database had no recipe at that time,
    # yet the step got the current version (no eggs) under its gen ref.
    (shown,) = [
        c.user
        for c in provider.calls
        if c.node == "act"
        and "## This step's tool results" in c.user
        and "## Current step\n0. Show" in c.user
    ]
    read = shown.split("## This step's tool results so far\n", 1)[1].split("\n## ", 1)[0]
    assert read.startswith('{"tool": "db_read"') and '"rows": [{"id": "gen_recipe_1"' in read
    assert '"name": "peppers"' in read and '"name": "eggs"' not in read
    (row,) = await recipes(api)
    assert ingredient_names(row) == ["feta", "peppers", "tomatoes"]
    assert (await entities(api, conversation))["gen_recipe_1"]["action"] == "created"


async def test_after_saving_one_of_two_recipes_the_other_is_listed_as_unsaved(api: Api):
    conversation = await api.conversation()
    two = complete(
        "Wrote two soups",
        artifacts=[
            {"type": "recipe", "content": recipe("Tomato Soup", "tomatoes")},
            {"type": "recipe", "content": recipe("Lentil Soup", "lentils")},
        ],
    )
    provider = script(
        understand(),
        plan("Two soups", GENERATE),
        two,
        reply("Two soups."),
        understand(referenced_entities=["gen_recipe_1"]),
        plan("Save the tomato soup", SAVE),
        tool("db_create", table="recipes", data={"id": "gen_recipe_1"}),
        complete("Saved Tomato Soup"),
        reply("Saved the tomato soup."),
        understand(),
        plan("List unsaved recipes", step("List what is not saved", "analyze", "recipes")),
        complete("Lentil Soup is not saved", data={"unsaved": ["gen_recipe_2"]}),
        reply("Lentil Soup isn't saved yet."),
    )
    async with api.worker(provider):
        await say(api, conversation, "two soup recipes please")
        await say(api, conversation, "save the first one")
        await say(api, conversation, "which aren't saved yet?")
    assert provider.unused() == []
    (row,) = await recipes(api)
    assert row["name"] == "Tomato Soup"
    refs = await entities(api, conversation)
    assert (refs["gen_recipe_1"]["action"], refs["gen_recipe_2"]["action"]) == (
        "created",
        "generated",
    )
    think, analyze, answer = (
        next(c.user for c in reversed(provider.calls) if c.node == node)
        for node in ("think", "act", "reply")
    )
    for shown in (think, analyze):
        assert "Generated, NOT saved:\n- `gen_recipe_2`: Lentil Soup [unsaved]\n" in shown
        assert "`gen_recipe_1`: Tomato Soup [unsaved]" not in shown
    assert "NOT YET SAVED (show in full, offer to save): Lentil Soup\n" in answer


async def test_a_brainstorm_hands_off_a_recipe_that_the_next_plan_turn_saves(api: Api):
    conversation = await api.conversation()
    slaw = recipe("Lime Slaw", "cabbage", "lime")
    provider = script(
        bypass("brainstorm", "Slaw, salsa or pickles?"),
        bypass("brainstorm", "Slaw it is.", summary="A lime slaw.", action="save", recipe=slaw),
        understand(referenced_entities=["gen_recipe_1"]),
        plan("Save the slaw", SAVE),
        tool("db_create", table="recipes", data={"id": "gen_recipe_1"}),
        complete("Saved Lime Slaw"),
        reply("Saved."),
    )
    async with api.worker(provider):
        for text in ("ideas for a side?", "let's keep the slaw"):
            response = await api.post(
                f"/v1/conversations/{conversation}/messages?wait=true",
                json={"text": text, "mode": "brainstorm"},
            )
            assert response.status_code == 200, response.text
            await wait_completed(api, response.json()["id"])
        assert await recipes(api) == []  # brainstorm has no tools
        await say(api, conversation, "save the slaw")
    assert provider.unused() == []
    (row,) = await recipes(api)
    assert row["name"] == "Lime Slaw" and ingredient_names(row) == ["cabbage", "lime"]
    turns = (await api.get(f"/v1/conversations/{conversation}")).json()["turns"]
    assert [t["status"] for t in turns] == ["completed"] * 3
