"""Specification of the amounts the user's words scale, counted from this turn's reads
(``domain.kitchen.scaled``)."""

from __future__ import annotations

import pytest

from domain.kitchen.scaled import amounts_scaled, scales_said
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


def test_a_write_that_scales_amounts_is_shown_each_amount_read_scaled():
    """For "make the dal serve 6 and double the lentils" the 1.5B local model, which read
    nothing, set the servings to 12 and left the lentils at 200 g."""
    dal = {
        "id": "recipe_1",
        "name": "Red Lentil Dal",
        "recipe_ingredients": [
            {"id": "ri_1", "name": "red lentils", "quantity": 200, "unit": "g"},
            {"id": "ri_2", "name": "salt"},  # no amount: nothing to scale
        ],
    }
    rice = {"id": "inv_1", "name": "rice", "quantity": 1.5, "unit": "kg"}
    reads = [read("recipes", [dal]), read("inventory", [rice], 1)]
    assert amounts_scaled(reads, [2.0]).splitlines() == [
        "- red lentils (in Red Lentil Dal): 200 g; doubled: 400 g",
        "- rice (in stock): 1.5 kg; doubled: 3 kg",
    ]
    assert amounts_scaled(reads, [0.5, 3.0]).splitlines()[0] == (
        "- red lentils (in Red Lentil Dal): 200 g; halved: 100 g; tripled: 600 g"
    )
    assert amounts_scaled(reads, []) == ""  # no words that scale
    assert amounts_scaled([], [2.0]) == ""  # nothing read
