"""What a diet or an allergy rules out of a recipe, and what the words put in it
(``domain.recipe_fit``)."""

import pytest

from domain.recipe_fit import (
    asked_in,
    breaches,
    diet_words,
    diets_named,
    left_out,
    ruled_out,
    servings_asked,
)

BOWL = {
    "name": "Vegetarian Quinoa Bowl",
    "ingredients": [
        {"name": "quinoa", "quantity": 1, "unit": "cup"},
        {"name": "cooked chicken breast", "quantity": 200, "unit": "g"},
        {"name": "coconut milk", "quantity": 200, "unit": "ml"},
    ],
    "instructions": ["Rinse the quinoa.", "Add the vegetables and the chicken."],
}


def test_a_diet_is_named_by_the_users_words():
    assert diets_named("suggest a quick vegetarian dinner for two") == ["vegetarian"]
    assert diets_named("something vegan and pescatarian-ish") == ["vegan", "pescatarian"]
    assert diets_named("a quick dinner for two") == []


def test_meat_in_a_vegetarian_recipe_is_found_where_it_is_written():
    """The 1.5B local model's "Vegetarian Quinoa Bowl" for "suggest a quick vegetarian
    dinner for two" had chicken breast in its ingredients and its instructions."""
    assert breaches(BOWL, ruled_out(["vegetarian"], [])) == {"chicken": "vegetarian"}


def test_a_word_inside_another_or_made_of_plants_is_not_ruled_out():
    vegan = ruled_out(["vegan"], [])
    dish = {
        "name": "Eggplant Curry",
        "ingredients": ["eggplant", "coconut milk", "peanut butter", "butternut squash"],
        "instructions": ["Mince the garlic.", "Stir in the vegan cheese."],
    }
    assert breaches(dish, vegan) == {}
    assert breaches({"ingredients": ["2 eggs", "butter"]}, vegan) == {
        "eggs": "vegan",
        "butter": "vegan",
    }


def test_an_allergy_rules_out_its_word_and_what_it_stands_for():
    words = ruled_out([], ["peanuts", "tree nuts", "shellfish"])
    dish = {"ingredients": ["peanut butter", "walnuts", "king prawns"], "instructions": []}
    assert breaches(dish, words) == {
        "peanut": "the peanuts allergy",
        "walnuts": "the tree nuts allergy",
        "prawns": "the shellfish allergy",
    }


def test_the_profile_adds_its_diets_and_allergies_to_the_words():
    profile = {"dietary_restrictions": ["Pescatarian"], "allergies": ["sesame"]}
    words = diet_words("a quick dinner", profile)
    assert words["bacon"] == "Pescatarian" and words["tahini"] == "the sesame allergy"
    assert "salmon" not in words  # fish is a pescatarian's
    assert diet_words("a quick dinner", None) == {}


def test_the_people_a_recipe_is_for_are_the_number_the_words_give():
    assert servings_asked("suggest a quick vegetarian dinner for two") == 2
    assert servings_asked("a stew to serve 6") == 6
    assert servings_asked("soup that feeds 4 people") == 4
    assert servings_asked("make it for 4") == 4


def test_a_number_of_days_meals_or_minutes_is_no_number_of_people():
    for words in (
        "plan dinners for 3 days",
        "cook for 30 minutes",
        "for 2026-12-01",
        "dinner for 2 adults and 2 kids",
        "dinner for two, or for four",  # two numbers: not the words' to give
        "something quick",
    ):
        assert servings_asked(words) is None, words


def test_what_the_users_words_ask_for_is_theirs_to_have():
    """The profile says vegetarian; "add bacon to it" asks for bacon this turn."""
    words = diet_words("add bacon to it", {"dietary_restrictions": ["vegetarian"]})
    assert "bacon" not in words and words["chicken"] == "vegetarian"


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        ("add feta to it", ["feta"]),
        ("show it again but add feta to it", ["feta"]),
        ("put some chili in it", ["chili"]),
        ("can you add a pinch of smoked paprika to the soup", ["smoked paprika"]),
        ("add 2 eggs to it", ["eggs"]),
        ("add milk to my shopping list", []),  # a list, not the recipe
        ("add the dal to monday", []),
        ("suggest a quick dinner", []),
    ],
)
def test_what_the_words_ask_to_put_in_a_recipe(message: str, asked: list[str]):
    assert asked_in(message) == asked


def test_what_was_asked_in_is_found_by_its_last_word_anywhere_in_the_recipe():
    dinner = {
        "name": "Quick Dinner",
        "ingredients": [{"name": "goat cheese"}, "2 eggs"],
        "instructions": ["Crumble the feta on top."],
    }
    assert left_out(dinner, ["feta", "cheese", "egg"]) == []
    assert left_out(dinner, ["smoked paprika", "garlic"]) == ["smoked paprika", "garlic"]
