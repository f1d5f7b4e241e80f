"""The demo model's recipe book and what a profile leaves out of it: each diet, allergy and
dislike against the eight built-in recipes, the expected recipes named by hand."""

from __future__ import annotations

import pytest

from activities.llm.demo_recipes import RECIPES, avoid_for, find_recipe, recipe_names, term_key

ALL = {r["name"] for r in RECIPES}
CHICKEN, DAL, PASTA, FRIED_RICE = (
    "Lemon Chicken Traybake",
    "Red Lentil Dal",
    "Tomato Basil Pasta",
    "Vegetable Fried Rice",
)
SALMON, TACOS, RISOTTO, SHAKSHUKA = (
    "Honey Soy Salmon",
    "Black Bean Tacos",
    "Mushroom Risotto",
    "Shakshuka",
)


@pytest.mark.parametrize(
    ("profile", "left_out"),
    [
        pytest.param({}, set(), id="no profile: the whole book"),
        pytest.param({"dietary_restrictions": ["vegetarian"]}, {CHICKEN, SALMON}, id="vegetarian"),
        pytest.param({"dietary_restrictions": ["Pescatarian"]}, {CHICKEN}, id="pescatarian"),
        pytest.param({"dietary_restrictions": ["vegan"]}, ALL - {DAL}, id="vegan: only the dal"),
        pytest.param(
            {"dietary_restrictions": ["gluten-free"]},
            {PASTA, FRIED_RICE, SALMON, TACOS},
            id="gluten-free: spaghetti, soy sauce, tortillas",
        ),
        pytest.param(
            {"allergies": ["dairy"]},
            {PASTA, TACOS, RISOTTO, SHAKSHUKA},
            id="dairy: parmesan, cheddar, butter, feta; coconut milk is no dairy",
        ),
        pytest.param(
            {"allergies": ["lactose intolerant"]},
            {PASTA, TACOS, RISOTTO, SHAKSHUKA},
            id="lactose intolerant reads as dairy",
        ),
        pytest.param({"allergies": ["eggs"]}, {FRIED_RICE, SHAKSHUKA}, id="eggs"),
        pytest.param({"allergies": ["sesame"]}, {FRIED_RICE}, id="sesame oil"),
        pytest.param({"allergies": ["soy"]}, {FRIED_RICE, SALMON}, id="soy sauce"),
        pytest.param({"allergies": ["celery"]}, {RISOTTO}, id="celery: vegetable stock"),
        pytest.param({"allergies": ["shellfish", "tree nuts", "peanuts"]}, set(), id="none here"),
        pytest.param({"allergies": ["fish"]}, {SALMON}, id="fish"),
        pytest.param(
            {"allergies": ["garlic"]},
            {CHICKEN, DAL, PASTA, SALMON, SHAKSHUKA},
            id="a book ingredient",
        ),
        pytest.param({"disliked_ingredients": ["mushrooms"]}, {RISOTTO}, id="dislike mushrooms"),
        pytest.param({"disliked_ingredients": ["Coriander"]}, set(), id="dislike: none uses it"),
        pytest.param({"disliked_ingredients": ["meat"]}, {CHICKEN}, id="dislike meat: a group"),
        pytest.param({"disliked_ingredients": ["honey"]}, {SALMON}, id="dislike honey"),
        pytest.param({"time_budget_minutes": 20}, ALL - {FRIED_RICE}, id="20 minutes"),
    ],
)
def test_a_profile_leaves_out_the_recipes_it_forbids(profile, left_out):
    avoid = avoid_for(profile)
    assert set(recipe_names(avoid)) == ALL - left_out
    assert not avoid.unknown
    for recipe in RECIPES:
        assert bool(avoid.clashes(recipe)) == (recipe["name"] in left_out)


@pytest.mark.parametrize(
    ("term", "key"),
    [
        ("Gluten-free", "gluten"),
        ("nut allergy", "nut"),
        ("Tree nuts", "tree nut"),
        ("no pork", "pork"),
        ("plant-based", "plant based"),
        ("allergic to peanuts", "peanut"),
    ],
)
def test_a_profile_term_is_read_as_the_food_it_names(term: str, key: str):
    assert term_key(term) == key


@pytest.mark.parametrize(
    "profile",
    [
        {"dietary_restrictions": ["keto"]},
        {"dietary_restrictions": ["kosher"]},
        {"allergies": ["kiwi"]},
        {"allergies": ["nightshades"]},
    ],
)
def test_a_diet_or_allergy_it_cannot_check_is_reported_not_guessed(profile):
    avoid = avoid_for(profile)
    (rule,) = avoid.unknown
    assert rule.term in str(profile)


def test_a_dislike_or_a_request_it_does_not_know_only_leaves_out_what_names_it():
    avoid = avoid_for({"disliked_ingredients": ["durian"]}, [("spicy", "asked")])
    assert not avoid.unknown
    assert set(recipe_names(avoid)) == ALL


def test_the_reasons_name_the_ingredient_and_the_rule():
    avoid = avoid_for({"dietary_restrictions": ["vegetarian"]}, [("parmesan", "asked")])
    chicken = next(r for r in RECIPES if r["name"] == CHICKEN)
    pasta = next(r for r in RECIPES if r["name"] == PASTA)
    assert [(what, rule.reason()) for what, rule in avoid.clashes(chicken)] == [
        ("chicken thighs", "your preferences say vegetarian"),
        (CHICKEN, "your preferences say vegetarian"),
    ]
    assert [(what, rule.reason()) for what, rule in avoid.clashes(pasta)] == [
        ("parmesan", "you asked for no parmesan")
    ]


@pytest.mark.parametrize(
    ("wish", "clashing"),
    [
        ("chicken", ["chicken"]),
        ("bacon and eggs", ["bacon"]),
        ("prawns", ["prawns"]),
        ("beef or salmon", ["beef", "salmon"]),
        ("lentils", []),
        ("coconut milk", []),
    ],
)
def test_a_wish_for_a_forbidden_food_clashes(wish: str, clashing: list[str]):
    avoid = avoid_for({"dietary_restrictions": ["vegetarian"]})
    assert [food for food, _ in avoid.wish_clashes(wish)] == clashing


def test_a_recipe_named_for_a_diet_is_no_clash_with_it():
    chili = {"name": "Vegan Meat-free Chili", "ingredients": [{"name": "kidney beans"}]}
    assert avoid_for({"dietary_restrictions": ["vegan"]}).fits(chili)


def test_a_saved_recipe_without_ingredients_cannot_be_checked_against_foods():
    tacos = {"name": "Tacos"}
    assert avoid_for({}).fits(tacos)
    assert avoid_for({"time_budget_minutes": 30}).fits(tacos)
    assert not avoid_for({"dietary_restrictions": ["vegetarian"]}).fits(tacos)


def test_the_best_match_is_chosen_among_the_allowed_recipes_only():
    assert find_recipe("rice")[0]["name"] == FRIED_RICE
    vegan = avoid_for({"dietary_restrictions": ["vegan"]})
    recipe, matched = find_recipe("rice", vegan)
    assert (recipe["name"], matched) == (DAL, False)
    assert find_recipe(
        "rice", avoid_for({"dietary_restrictions": ["vegan"], "allergies": ["coconut"]})
    ) == (
        None,
        False,
    )
