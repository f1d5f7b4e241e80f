"""Specification of the amounts the user's words scale, counted from this turn's reads
(``domain.kitchen.scaled``)."""

from __future__ import annotations

import pytest

from domain.kitchen.scaled import amounts_left, amounts_scaled, scales_said
from domain.tool_results import ToolEntry
from tests.domain.kitchen.reads import read


@pytest.mark.parametrize(
    ("message", "scales"),
    [
        ("make the dal serve 6 and double the lentils", [("double", 2.0)]),
        ("halve the sugar in the flapjacks", [("halve", 0.5)]),
        ("triple the chili", [("triple", 3.0)]),
        ("put twice as much rice on the list", [("twice as much", 2.0)]),
        ("we doubled the recipe last time", [("doubled", 2.0)]),
        ("double the rice and halve the beans", [("double", 2.0), ("halve", 0.5)]),
        # no amount scaled
        ("add double cream to the list", []),
        ("double check the list", []),
        ("add the dal", []),
    ],
)
def test_words_that_scale_an_amount_say_by_what(message: str, scales):
    assert scales_said(message) == scales


DAL = {
    "id": "recipe_1",
    "name": "Red Lentil Dal",
    "recipe_ingredients": [
        {"id": "ri_1", "name": "red lentils", "quantity": 200, "unit": "g"},
        {"id": "ri_2", "name": "onion", "quantity": 1, "unit": "piece"},
        {"id": "ri_3", "name": "salt"},  # no amount: nothing to scale
    ],
}
RICE = {"id": "inv_1", "name": "rice", "quantity": 1.5, "unit": "kg"}


def test_a_write_that_scales_a_whole_thing_is_shown_each_amount_read_scaled():
    """For "make the dal serve 6 and double the lentils" the 1.5B local model, which read
    nothing, set the servings to 12 and left the lentils at 200 g."""
    reads = [read("recipes", [DAL]), read("inventory", [RICE], 1)]
    assert amounts_scaled(reads, "double the dal").splitlines() == [
        "- red lentils (in Red Lentil Dal): 200 g; doubled: 400 g",
        "- onion (in Red Lentil Dal): 1 piece; doubled: 2 piece",
        "- rice (in stock): 1.5 kg; doubled: 3 kg",
    ]
    assert amounts_scaled(reads, "halve it, no, triple it").splitlines()[0] == (
        "- red lentils (in Red Lentil Dal): 200 g; halved: 100 g; tripled: 600 g"
    )
    assert amounts_scaled(reads, "add the dal") == ""  # no words that scale
    assert amounts_scaled([], "double the dal") == ""  # nothing read


def test_words_that_name_what_they_scale_scale_that_alone():
    """Shown the onion doubled as well for "double the lentils", the 1.5B local model
    doubled nothing."""
    reads = [read("recipes", [DAL]), read("inventory", [RICE], 1)]
    assert amounts_scaled(reads, "make the dal serve 6 and double the lentils").splitlines() == [
        "- red lentils (in Red Lentil Dal): 200 g; doubled: 400 g",
    ]
    assert amounts_scaled(reads, "double the lentil and halve the rice").splitlines() == [
        "- red lentils (in Red Lentil Dal): 200 g; doubled: 400 g",
        "- rice (in stock): 1.5 kg; halved: 0.75 kg",
    ]


def test_an_amount_scaled_is_left_until_a_write_shows_it_at_its_scaled_value():
    reads = [read("recipes", [DAL]), read("inventory", [RICE], 1)]
    words = "make the dal serve 6 and double the lentils"
    servings = ToolEntry(tool="db_update", rows=[{"id": "recipe_1", "servings": 6}])
    left = "red lentils (in Red Lentil Dal), ri_1 in recipe_ingredients: 200 g, to be 400 g"
    assert amounts_left(reads, [servings], words, ["recipes", "recipe_ingredients"]) == [left]
    wrong = ToolEntry(tool="db_update", rows=[{"id": "ri_2", "quantity": 400}])  # the onion
    assert amounts_left(reads, [wrong], words, ["recipe_ingredients"]) == [left]
    failed = ToolEntry(tool="db_update", error="refused", rows=[{"id": "ri_1", "quantity": 400}])
    assert amounts_left(reads, [failed], words, ["recipe_ingredients"]) == [left]
    done = ToolEntry(tool="db_update", rows=[{"id": "ri_1", "quantity": 400}])
    assert amounts_left(reads, [servings, done], words, ["recipe_ingredients"]) == []
    assert amounts_left(reads, [], words, ["inventory"]) == []  # not this step's tables
    assert amounts_left(reads, [], "double the dal", ["inventory"]) == [
        "rice (in stock), inv_1 in inventory: 1.5 kg, to be 3 kg"
    ]
