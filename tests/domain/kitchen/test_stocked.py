"""Specification of a recipe's ingredients compared with the inventory rows read
(``domain.kitchen.stocked``)."""

from __future__ import annotations

from domain.kitchen.stocked import stock_compared
from tests.domain.kitchen.reads import read

DAL = {
    "id": "recipe_1",
    "name": "Red Lentil Dal",
    "recipe_ingredients": [
        {"name": "red lentils", "ingredient_id": "ing_4"},
        {"name": "onion", "ingredient_id": "ing_5"},
        {"name": "spinach"},
    ],
}
STOCK = [
    {"id": "inv_1", "name": "milk", "ingredient_id": "ing_1"},
    {"id": "inv_2", "name": "eggs", "ingredient_id": "ing_2"},
    {"id": "inv_3", "name": "rice", "ingredient_id": "ing_3"},
]


def test_the_dals_ingredients_none_of_which_the_inventory_read_holds():
    """The 1.5B local model named milk, eggs and rice as the dal's missing ingredients."""
    compared = stock_compared([read("recipes", [DAL]), read("inventory", STOCK, 1)])
    assert compared == (
        "- Red Lentil Dal: 0 of its 3 ingredients in the inventory read; "
        "missing: red lentils, onion, spinach"
    )


def test_ingredients_are_matched_by_catalog_ref_or_by_the_words_of_their_name():
    onion = {"id": "inv_4", "name": "brown onion", "ingredient_id": "ing_5"}  # the same ref
    lentils = {"id": "inv_5", "name": "Red Lentil"}  # no ref: the same words, singular
    stock = read("inventory", [*STOCK, onion, lentils], 1, filters=[{"field": "name"}])
    assert stock_compared([read("recipes", [DAL]), stock]) == (
        "- Red Lentil Dal: 2 of its 3 ingredients in the inventory read (red lentils, onion); "
        "missing: spinach"
    )


def test_a_recipe_whose_every_ingredient_is_held_says_all_and_misses_none():
    """The 1.5B local model, shown the chili with none of its ingredients held, said it
    could cook the dal and the chili: the count says which is which."""
    spinach = {"id": "inv_6", "name": "baby spinach"}
    stock = read("inventory", [*STOCK, spinach], 1)
    lentils = {"id": "inv_7", "name": "red lentils"}
    onion = {"id": "inv_8", "name": "onion"}
    full = read("inventory", [lentils, onion, spinach], 2)
    compared = stock_compared([read("recipes", [DAL]), stock, full])
    assert compared == (
        "- Red Lentil Dal: every ingredient in the inventory read (red lentils, onion, spinach)"
    )
    assert "missing" not in compared


def test_nothing_is_compared_without_both_reads():
    no_ingredients = {"id": "recipe_2", "name": "Weeknight Chili"}
    assert stock_compared([read("recipes", [DAL])]) == ""
    assert stock_compared([read("inventory", STOCK)]) == ""
    assert stock_compared([read("recipes", [no_ingredients]), read("inventory", STOCK)]) == ""
    empty = read("inventory", [])  # an empty inventory read: nothing is held
    assert (
        "0 of its 3 ingredients in the inventory read; missing: red lentils, onion, spinach"
        in stock_compared([read("recipes", [DAL]), empty])
    )
    refused = read("inventory", STOCK).model_copy()
    refused.tool_results[0] = refused.tool_results[0].model_copy(update={"error": "refused"})
    assert stock_compared([read("recipes", [DAL]), refused]) == ""
