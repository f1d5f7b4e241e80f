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


@pytest.mark.parametrize(
    ("message", "shown"),
    [
        ("dal should be 250g lentils not 200", "200 g; as said: 250 g"),
        ("the lentils in the dal should be 250 grams", "200 g; as said: 250 g"),
        ("change the lentils in the dal to 300g", "200 g; as said: 300 g"),
        ("set the lentils to 150", "200 g; as said: 150 g"),
        ("the dal should use 2 cups of lentils", "200 g; as said: 2 cup"),
        ("the lentils in the dal should be 250", "200 g; as said: 250 g"),  # the row's unit
    ],
)
def test_words_that_set_an_amount_show_it_at_the_value_they_give(message: str, shown: str):
    """For "dal should be 250g lentils not 200" the 1.5B local model set the dal's
    description to say 250 g, and the lentils stayed 200 g."""
    reads = [read("recipes", [DAL]), read("inventory", [RICE], 1)]
    assert amounts_scaled(reads, message) == f"- red lentils (in Red Lentil Dal): {shown}"


@pytest.mark.parametrize(
    "message",
    [
        "i bought 2 kg of lentils",  # a report adds: no amount set
        "add 250g lentils to the dal",  # an ingredient added, not an amount set
        "increase the lentils by 50g",  # a change by, not to
        "the dal should serve 6",  # no amount read named
        "the dal should have 250g more lentils",  # a thing it lacks: an ingredient added
    ],
)
def test_words_that_set_no_amount_read_show_none(message: str):
    reads = [read("recipes", [DAL]), read("inventory", [RICE], 1)]
    assert amounts_scaled(reads, message) == ""


def test_each_clause_sets_the_amount_it_names_and_an_ambiguous_name_sets_none():
    lentils = {"id": "inv_2", "name": "lentils", "quantity": 1, "unit": "kg"}
    reads = [read("recipes", [DAL]), read("inventory", [RICE, lentils], 1)]
    assert amounts_scaled(reads, "the lentils should be 250g and the onion 2").splitlines() == [
        "- red lentils (in Red Lentil Dal): 200 g; as said: 250 g",
        "- onion (in Red Lentil Dal): 1 piece; as said: 2 piece",
        "- lentils (in stock): 1 kg; as said: 250 g",
    ]
    green = {**DAL, "id": "recipe_2", "name": "Green Dal", "recipe_ingredients": [
        {"id": "ri_9", "name": "green lentils", "quantity": 150, "unit": "g"}
    ]}  # fmt: skip
    reads = [read("recipes", [DAL, green])]
    assert amounts_scaled(reads, "dal should be 250g lentils not 200") == ""  # which lentils?


def test_an_amount_set_is_left_until_a_write_shows_it_at_that_value_and_unit():
    reads = [read("recipes", [DAL])]
    words = "dal should be 250g lentils not 200"
    described = ToolEntry(tool="db_update", rows=[{"id": "recipe_1", "description": "250g"}])
    left = "red lentils (in Red Lentil Dal), ri_1 in recipe_ingredients: 200 g, to be 250 g"
    assert amounts_left(reads, [described], words, ["recipes", "recipe_ingredients"]) == [left]
    done = ToolEntry(tool="db_update", rows=[{"id": "ri_1", "quantity": 250, "unit": "grams"}])
    assert amounts_left(reads, [described, done], words, ["recipe_ingredients"]) == []
    cups = "the dal should use 2 cups of lentils"
    two_g = ToolEntry(tool="db_update", rows=[{"id": "ri_1", "quantity": 2, "unit": "g"}])
    assert amounts_left(reads, [two_g], cups, ["recipe_ingredients"]) == [
        "red lentils (in Red Lentil Dal), ri_1 in recipe_ingredients: 200 g, to be 2 cup"
    ]
