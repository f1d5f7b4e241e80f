"""A write step saving several generated items (seed 000 "Batch Tracking"): each item is
tracked, the step cannot complete while one is pending, and Reply is told how it went."""

from __future__ import annotations

from domain.crud.calls import DbRead
from domain.registry import SessionIdRegistry
from tests.kitchen_helper import Kitchen
from tests.workflows.conftest import Turns, keep_history, progress
from tests.workflows.script import complete, plan, reply, step, tool, understand

DISHES = ["Butter Chicken", "Dal", "Naan"]


def generate_then_save(*save: dict) -> list[dict]:
    """Generate three recipes (step 0), then the write step (step 1) does ``save``."""
    recipes = [{"type": "recipe", "content": {"name": n, "servings": 2}} for n in DISHES]
    return [
        understand(),
        plan(
            "An Indian dinner, saved",
            step("Create three recipes", "generate", "recipes"),
            step("Save the three recipes", "write", "recipes", group=1),
        ),
        complete("Created three recipes", artifacts=recipes),
        *save,
        reply("Done."),
    ]


def saving(*refs: str) -> dict:
    return tool("db_create", table="recipes", data=[{"id": ref} for ref in refs])


async def saved_names(turns: Turns, executor) -> list[str]:
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    rows = (await kitchen.run(DbRead(table="recipes", filters=[]))).rows
    return sorted(r["name"] for r in rows)


async def test_completing_with_items_pending_is_refused_until_every_item_is_saved(
    turns: Turns, executor
):
    script = turns.script(
        *generate_then_save(
            saving("gen_recipe_1"),
            complete("Saved them"),  # refused: two are still pending
            saving("gen_recipe_2", "gen_recipe_3"),
            complete("Saved all three"),
        )
    )
    async with turns.worker(script):
        handle = await turns.start("plan an Indian dinner and save the recipes", mode="create")
        result = await handle.result()
        await keep_history(handle, "batch_saved")
        batch = (await progress(handle)).steps[1].batch
    assert result.status == "completed"
    assert await saved_names(turns, executor) == sorted(DISHES)
    assert batch is not None and [(i.ref, i.status) for i in batch.items] == [
        ("gen_recipe_1", "completed"),
        ("gen_recipe_2", "completed"),
        ("gen_recipe_3", "completed"),
    ]
    acts = [c.user for c in script.calls if c.node == "act"]
    refused = "not complete: 2 of 3 items of this batch are not saved yet: gen_recipe_2 (Dal)"
    assert refused in acts[3]  # the call after the early step_complete
    assert "- gen_recipe_2 (Dal): pending" in acts[3]
    reply_prompt = [c.user for c in script.calls if c.node == "reply"][0]
    assert "## Batch progress\nStep 1: 3 of 3 saved\n" in reply_prompt
    assert "## Plan overview\n2 steps planned: 2 completed." in reply_prompt


async def test_a_step_that_keeps_completing_early_ends_with_the_unsaved_items_flagged(
    turns: Turns, executor
):
    script = turns.script(
        *generate_then_save(
            saving("gen_recipe_1"),
            complete("Saved"),
            complete("Saved, really"),
            complete("Saved, I promise"),
        )
    )
    async with turns.worker(script):
        started = await turns.start("an Indian dinner, and save it all", mode="create")
        result = await started.result()
    assert result.status == "completed"
    assert await saved_names(turns, executor) == ["Butter Chicken"]
    reply_prompt = [c.user for c in script.calls if c.node == "reply"][0]
    progress_line = "1 of 3 saved; not saved yet: Dal (gen_recipe_2), Naan (gen_recipe_3)"
    assert f"## Batch progress\nStep 1: {progress_line}\n" in reply_prompt
    assert f"NOT CONFIRMED (batch not finished: {progress_line})" in reply_prompt
