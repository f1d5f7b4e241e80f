"""The model sees refs, never UUIDs: translated on the way in and on the way out."""

from __future__ import annotations

import json
import re

import pytest

from domain.crud.calls import DbDelete, DbRead, DbUpdate
from domain.errors import CrudValidationError
from domain.registry import SessionIdRegistry
from tests.kitchen_helper import Kitchen, f

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


async def test_no_uuid_reaches_the_model(kitchen: Kitchen):
    await kitchen.create("recipes", {"name": "Dal", "recipe_ingredients": [{"name": "lentils"}]})
    await kitchen.create(
        "meal_plans", {"date": "2026-11-24", "meal_type": "lunch", "recipe_id": "recipe_1"}
    )
    await kitchen.create("tasks", {"title": "soak lentils", "recipe_id": "recipe_1"})
    for table in ("recipes", "recipe_ingredients", "meal_plans", "tasks"):
        rows = (await kitchen.run(DbRead(table=table, filters=[]))).rows
        assert rows and not UUID.search(json.dumps(rows)), table


async def test_unknown_fk_targets_are_registered_and_labelled_in_one_batch(kitchen: Kitchen):
    await kitchen.create("recipes", [{"name": "Dal"}, {"name": "Chili"}])
    await kitchen.create(
        "meal_plans",
        [
            {"date": "2026-11-24", "meal_type": "lunch", "recipe_id": "recipe_1"},
            {"date": "2026-11-25", "meal_type": "dinner", "recipe_id": "recipe_2"},
        ],
    )
    # A later conversation knows none of these rows.
    later = Kitchen(kitchen.executor, kitchen.user, SessionIdRegistry())
    rows = (await later.run(DbRead(table="meal_plans"))).rows
    assert [(r["id"], r["recipe_id"], r["_recipe_id_label"]) for r in rows] == [
        ("meal_1", "recipe_1", "Dal"),
        ("meal_2", "recipe_2", "Chili"),
    ]
    assert later.registry.action("recipe_1") == "linked"
    assert later.registry.label("meal_1") == "Tue Lunch (2026-11-24)"
    assert later.registry.label("recipe_1") == "Dal"  # named in the same call


async def test_refs_in_filters_and_payloads_become_uuids(kitchen: Kitchen):
    await kitchen.create("recipes", {"name": "Dal"})
    await kitchen.create("tasks", {"title": "shop"})
    updated = await kitchen.run(
        DbUpdate(table="tasks", filters=[f("id", "in", ["task_1"])], data={"recipe_id": "recipe_1"})
    )
    assert updated.rows[0]["recipe_id"] == "recipe_1"
    assert updated.rows[0]["_recipe_id_label"] == "Dal"
    assert kitchen.registry.action("task_1") == "updated"
    deleted = await kitchen.run(DbDelete(table="tasks", filters=[f("recipe_id", "=", "recipe_1")]))
    assert [r["id"] for r in deleted.rows] == ["task_1"]
    assert kitchen.registry.action("task_1") == "deleted"


async def test_reading_a_generated_ref_is_served_from_pending_content(kitchen: Kitchen):
    gen_ref = kitchen.registry.register_generated("recipe", {"name": "Miso Soup", "servings": 2})
    result = await kitchen.run(DbRead(table="recipes", filters=[f("id", "=", gen_ref)]))
    assert result.rerouted
    assert result.rows == [{"id": "gen_recipe_1", "name": "Miso Soup", "servings": 2}]
    assert await kitchen.names("recipes") == []


async def test_a_pending_gen_ref_cannot_be_used_as_a_foreign_key(kitchen: Kitchen):
    gen_ref = kitchen.registry.register_generated("recipe", {"name": "Unsaved"})
    with pytest.raises(CrudValidationError, match=r"data\[0\]\.recipe_id"):
        await kitchen.create(
            "meal_plans", {"date": "2026-11-24", "meal_type": "dinner", "recipe_id": gen_ref}
        )


@pytest.mark.parametrize(
    ("call", "where"),
    [
        (DbRead(table="inventory", filters=[f("ingredient_id", "=", "inv_1")]), "filters[0]"),
        (DbRead(table="recipes", filters=[f("id", "in", ["recipe_1", "inv_1"])]), "filters[0]"),
        (
            DbUpdate(table="tasks", filters=[f("id", "=", "task_1")], data={"recipe_id": "inv_1"}),
            "data",
        ),
    ],
    ids=["ingredient-of-an-inventory-row", "one-of-a-list", "fk-in-a-change"],
)
async def test_a_ref_of_another_type_than_the_column_takes_is_an_error(
    kitchen: Kitchen, call, where
):
    """``ingredient_id = inv_1`` would match nothing (the 1.5B local model looked for the
    milk that way and said there was none): the model is told which refs the column takes."""
    await kitchen.create("inventory", {"name": "milk", "quantity": 3, "unit": "l"})
    await kitchen.create("recipes", {"name": "Dal"})
    await kitchen.create("tasks", {"title": "shop"})
    with pytest.raises(
        CrudValidationError, match=rf"{re.escape(where)}.*'inv_1' is a ref to inventory"
    ):
        await kitchen.run(call)
