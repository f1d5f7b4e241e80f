"""A recipe and its ingredients are written together, in one transaction."""

from __future__ import annotations

import uuid

import pytest

from domain.crud.calls import DbCreate, DbDelete, DbRead
from domain.errors import CrudValidationError
from tests.kitchen_helper import Kitchen, f

PESTO = {
    "name": "Pesto Pasta",
    "cuisine": "italian",
    "servings": 2,
    "instructions": ["Boil pasta", "Blend basil, garlic, oil", "Toss"],
    "recipe_ingredients": [
        {"name": "spaghetti", "quantity": 200, "unit": "g"},
        {"name": "basil", "quantity": 1, "unit": "bunch"},
        {"name": "garlic", "quantity": 2, "unit": "clove"},
    ],
}


async def test_recipe_and_ingredients_are_created_together(kitchen: Kitchen):
    result = await kitchen.create("recipes", PESTO)
    [recipe] = result.rows
    assert recipe["id"] == "recipe_1"
    assert [i["id"] for i in recipe["recipe_ingredients"]] == ["ri_1", "ri_2", "ri_3"]
    assert {i["recipe_id"] for i in recipe["recipe_ingredients"]} == {"recipe_1"}
    assert kitchen.registry.action("recipe_1") == "created"


async def test_a_failing_ingredient_row_leaves_no_recipe(kitchen: Kitchen):
    broken = {
        **PESTO,
        "recipe_ingredients": [
            {"name": "spaghetti"},
            # A catalog id that does not exist: the database refuses this row mid-transaction.
            {"name": "basil", "ingredient_id": str(uuid.uuid4())},
        ],
    }
    with pytest.raises(CrudValidationError, match="refused the write"):
        await kitchen.create("recipes", broken)
    assert await kitchen.names("recipes") == []
    assert await kitchen.names("recipe_ingredients") == []


async def test_an_invalid_ingredient_row_is_refused_before_anything_is_written(kitchen: Kitchen):
    broken = {**PESTO, "recipe_ingredients": [{"name": "basil", "quantity": "a handful"}]}
    with pytest.raises(CrudValidationError, match=r"data\[0\]\.recipe_ingredients\[0\]\.quantity"):
        await kitchen.create("recipes", broken)
    assert await kitchen.names("recipes") == []


async def test_reading_a_recipe_by_ref_returns_it_in_full(kitchen: Kitchen):
    await kitchen.create("recipes", PESTO)
    fresh = Kitchen(kitchen.executor, kitchen.user, kitchen.registry)
    result = await fresh.run(DbRead(table="recipes", filters=[f("id", "=", "recipe_1")]))
    [recipe] = result.rows
    assert [i["name"] for i in recipe["recipe_ingredients"]] == ["basil", "garlic", "spaghetti"]
    assert recipe["recipe_ingredients"][0]["ingredient_id"].startswith("ing_")
    assert kitchen.registry.entries["recipe_1"].detail == "full"


async def test_a_recipe_list_is_a_summary_without_ingredients(kitchen: Kitchen):
    await kitchen.create("recipes", PESTO)
    result = await kitchen.run(DbRead(table="recipes", columns=["name", "cuisine"]))
    assert result.rows == [{"id": "recipe_1", "name": "Pesto Pasta", "cuisine": "italian"}]


async def test_saving_a_generated_recipe_promotes_its_ref(kitchen: Kitchen):
    generated = {
        "name": "Lime Chicken",
        "instructions": ["Marinate", "Grill"],
        "ingredients": [{"name": "chicken thigh", "quantity": 4}, {"name": "lime"}],
        "why_you_will_like_it": "display-only text the model wrote",
    }
    gen_ref = kitchen.registry.register_generated("recipe", generated)
    result = await kitchen.run(DbCreate(table="recipes", data={"id": gen_ref}))
    [saved] = result.rows
    assert saved["id"] == gen_ref == "gen_recipe_1"
    assert saved["instructions"] == ["Marinate", "Grill"]
    assert [i["name"] for i in saved["recipe_ingredients"]] == ["chicken thigh", "lime"]
    assert kitchen.registry.action(gen_ref) == "created"

    read = await kitchen.run(DbRead(table="recipes", filters=[f("id", "=", gen_ref)]))
    assert not read.rerouted and read.rows[0]["name"] == "Lime Chicken"


async def test_a_saved_generated_recipe_is_not_saved_twice(kitchen: Kitchen):
    gen_ref = kitchen.registry.register_generated("recipe", {"name": "Once"})
    await kitchen.run(DbCreate(table="recipes", data={"id": gen_ref}))
    with pytest.raises(CrudValidationError, match="already saved"):
        await kitchen.run(DbCreate(table="recipes", data={"id": gen_ref}))
    assert await kitchen.names("recipes") == ["Once"]


async def test_deleting_a_recipe_deletes_its_ingredients_and_unlinks_meals(kitchen: Kitchen):
    await kitchen.create("recipes", PESTO)
    await kitchen.create(
        "meal_plans", {"date": "2026-11-23", "meal_type": "dinner", "recipe_id": "recipe_1"}
    )
    await kitchen.run(DbDelete(table="recipes", filters=[f("id", "=", "recipe_1")]))
    assert await kitchen.names("recipe_ingredients") == []
    meals = (await kitchen.run(DbRead(table="meal_plans"))).rows
    assert meals[0]["recipe_id"] is None
