"""Name filters on inventory and shopping_list resolve through the ingredient catalog."""

from __future__ import annotations

import pytest

from domain.crud.calls import DbDelete, DbRead
from tests.kitchen_helper import Kitchen, f

ITEMS = [
    {"name": "chicken breast", "quantity": 2},
    {"name": "Chicken Thighs", "quantity": 6},
    {"name": "scallions", "quantity": 1, "unit": "bunch"},
    {"name": "oat milk", "quantity": 1},
    {"name": "whole milk", "quantity": 1},
    {"name": "grandma's mystery sauce", "quantity": 1},
]


@pytest.fixture
async def stocked(kitchen: Kitchen) -> Kitchen:
    await kitchen.create("inventory", ITEMS)
    await kitchen.create("shopping_list", [{"name": "chicken wings"}, {"name": "spring onions"}])
    return kitchen


async def test_family_word_finds_every_matching_item(stocked: Kitchen):
    names = await stocked.names("inventory", filters=[f("name", "=", "chicken")])
    assert names == ["Chicken Thighs", "chicken breast"]


async def test_alias_resolves_to_the_catalog_ingredient(stocked: Kitchen):
    assert await stocked.names("inventory", filters=[f("name", "=", "green onion")]) == [
        "scallions"
    ]
    assert await stocked.names("shopping_list", filters=[f("name", "=", "scallion")]) == [
        "spring onions"
    ]


async def test_a_typo_finds_the_nearest_catalog_ingredient(stocked: Kitchen):
    assert await stocked.names("inventory", filters=[f("name", "=", "chiken breast")]) == [
        "chicken breast"
    ]


async def test_no_catalog_match_falls_back_to_the_plain_name(stocked: Kitchen):
    result = await stocked.run(
        DbRead(table="inventory", filters=[f("name", "=", "Grandma's Mystery Sauce")])
    )
    assert [r["name"] for r in result.rows] == ["grandma's mystery sauce"]
    assert any("no catalog ingredient matches" in note for note in result.notes)


async def test_an_unmatched_name_never_returns_the_whole_table(stocked: Kitchen):
    assert await stocked.names("inventory", filters=[f("name", "=", "dragonfruit jam")]) == []


async def test_similar_finds_catalog_neighbours(stocked: Kitchen):
    names = await stocked.names("shopping_list", filters=[f("name", "similar", "chicken")])
    assert names == ["chicken wings"]


async def test_smart_matching_works_inside_or_filters(stocked: Kitchen):
    either = [f("name", "=", "chicken"), f("name", "=", "scallion")]
    assert await stocked.names("inventory", or_filters=either) == [
        "Chicken Thighs",
        "chicken breast",
        "scallions",
    ]


async def test_writes_match_names_exactly_not_by_family(stocked: Kitchen):
    deleted = await stocked.run(DbDelete(table="inventory", filters=[f("name", "=", "milk")]))
    assert deleted.count == 0
    deleted = await stocked.run(DbDelete(table="inventory", filters=[f("name", "=", "oat milk")]))
    assert [r["name"] for r in deleted.rows] == ["oat milk"]
    assert "whole milk" in await stocked.names("inventory")


async def test_created_rows_are_linked_to_the_catalog(stocked: Kitchen):
    rows = (
        await stocked.run(DbRead(table="inventory", filters=[f("name", "=", "scallions")]))
    ).rows
    assert rows[0]["ingredient_id"].startswith("ing_")
    assert rows[0]["_ingredient_id_label"] == "spring onion"
    mystery = await stocked.run(DbRead(table="inventory", filters=[f("name", "ilike", "mystery")]))
    assert mystery.rows[0]["ingredient_id"] is None
