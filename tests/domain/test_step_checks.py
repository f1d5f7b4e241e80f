"""The Act loop's checks of a model's writes and completions."""

from __future__ import annotations

import pytest

from domain.step_checks import (
    completion_flags,
    invented_recipe,
    scope_error,
    unsaid_amount,
    write_key,
)
from domain.tool_results import ToolEntry

READ_OK = ToolEntry(tool="db_read", table="inventory", count=2, rows=[])
READ_FAILED = ToolEntry(tool="db_read", error="unknown table 'inventry'")
CREATED = ToolEntry(tool="db_create", table="shopping_list", count=1, rows=[])


def test_a_write_stays_in_its_steps_subdomain_reads_may_look_anywhere():
    assert scope_error("recipes", "db_create", "recipe_ingredients") is None
    assert scope_error("shopping", "db_read", "recipes") is None
    problem = scope_error("shopping", "db_create", "recipes")
    assert problem is not None
    assert problem.startswith("a shopping step cannot write 'recipes': it writes only")


def test_the_same_write_is_the_same_key_whatever_the_key_order():
    a = write_key("db_create", {"table": "recipes", "data": {"name": "Dal", "servings": 2}})
    b = write_key("db_create", {"data": {"servings": 2, "name": "Dal"}, "table": "recipes"})
    assert a == b != write_key("db_create", {"table": "recipes", "data": {"name": "Dal"}})


def test_a_completion_that_the_outcomes_support_has_no_flags():
    assert completion_flags("read", [READ_OK], ["found inv_1"], {"inv_1"}) == []
    assert completion_flags("write", [READ_OK, CREATED], ["added"], set()) == []


def test_a_read_step_whose_reads_all_failed_or_never_happened_is_flagged():
    assert completion_flags("read", [READ_FAILED], ["found 3"], set()) == [
        "every read it made failed, so its result is not from the database"
    ]
    assert completion_flags("read", [], ["found 3"], set()) == ["it read nothing from the database"]


def test_a_write_step_that_wrote_nothing_is_flagged():
    refused = ToolEntry(tool="db_create", error="already done: ...")
    empty = CREATED.model_copy(update={"count": 0})
    for results in ([READ_OK], [refused], [empty]):
        assert completion_flags("write", results, ["saved"], set()) == [
            "it wrote nothing: no row was created, changed or removed"
        ]


def test_refs_the_registry_never_issued_are_flagged_wherever_they_are_named():
    flags = completion_flags(
        "analyze", [], ["Best: recipe_9", {"pick": ["recipe_1", "gen_recipe_4"]}], {"recipe_1"}
    )
    assert flags == ["it names refs that do not exist: gen_recipe_4, recipe_9"]


# --- a recipe saved inline comes from somewhere --------------------------------------------


def create_recipe(*rows: dict) -> dict:
    return {"table": "recipes", "data": list(rows)}


def test_a_recipe_nobody_named_or_generated_is_not_saved():
    """'save it' after a chat that handed nothing off: the 1.5B local model saved this."""
    problem = invented_recipe(
        "db_create", create_recipe({"name": "Example Recipe", "servings": 4}), ["save it"]
    )
    assert problem is not None
    assert problem == (
        "There was no recipe to save: 'Example Recipe' is in neither the user's words nor any "
        "recipe generated in this conversation, so it was not saved."
    )


def test_a_name_of_placeholder_words_only_names_nothing_even_if_the_user_said_them():
    grounds = ["save the recipe, a quick easy one"]
    assert invented_recipe("db_create", create_recipe({"name": "Quick Easy Recipe"}), grounds)


@pytest.mark.parametrize(
    ("name", "grounds"),
    [
        ("Grandma's Pancakes", ["save my grandma's pancake recipe: 2 eggs, flour, milk"]),
        ("Grilled Chicken Salad", ["save it", "How about a grilled chicken salad?"]),
        ("Spicy Cod Stew", ["save it", '{"gen_recipe_1": {"name": "Spicy Cod Stew"}}']),
    ],
    ids=["dictated", "said-in-the-conversation", "generated"],
)
def test_a_recipe_the_user_or_the_conversation_named_is_saved(name: str, grounds: list[str]):
    assert invented_recipe("db_create", create_recipe({"name": name}), grounds) is None


def test_a_generated_recipe_saved_by_its_ref_and_other_writes_are_not_checked():
    assert invented_recipe("db_create", create_recipe({"id": "gen_recipe_1"}), []) is None
    shopping = {"table": "shopping_list", "data": [{"name": "Example Item"}]}
    assert invented_recipe("db_create", shopping, []) is None
    update = {"table": "recipes", "data": {"name": "Example Recipe"}}
    assert invented_recipe("db_update", update, []) is None


CHILI_OF_ITS_OWN = {
    "name": "Chili",
    "servings": 8,
    "instructions": [
        "In a large pot, heat oil over medium heat.",
        "Add diced tomatoes, onion, garlic, and chili powder.",
        "Add diced bell peppers and cook for another 5 minutes.",
        "Add salt and pepper to taste.",
    ],
    "recipe_ingredients": [{"name": "Chili powder"}, {"name": "Bell peppers"}],
}


def test_a_recipe_whose_steps_and_ingredients_come_from_nowhere_is_not_saved():
    """For "make the chili serve 8 from now on" the 1.5B local model saved a new "Chili"
    with steps and ingredients of its own."""
    problem = invented_recipe(
        "db_create", create_recipe(CHILI_OF_ITS_OWN), ["make the chili serve 8 from now on"]
    )
    assert problem == (
        "There was no recipe to save: the steps and ingredients of 'Chili' come from neither "
        "the user's words nor a recipe read or generated in this conversation, so it was not "
        "saved."
    )
    read = '{"rows": [{"name": "Chili", "instructions": ' + str(CHILI_OF_ITS_OWN["instructions"])
    read += ', "recipe_ingredients": [{"name": "Chili powder"}, {"name": "Bell peppers"}]}]}'
    copied = ["save a copy of the chili", read]  # from a read: its own steps
    assert invented_recipe("db_create", create_recipe(CHILI_OF_ITS_OWN), copied) is None


def test_a_dictated_recipe_written_out_with_steps_of_the_models_is_saved():
    scones = {
        "name": "Gran's Scones",
        "instructions": [
            "Preheat the oven to 200C.",
            "Rub the butter into the flour until crumbly.",
            "Stir in the milk to form a dough.",
            "Bake for 12 minutes.",
        ],
        "recipe_ingredients": [{"name": "flour"}, {"name": "butter"}, {"name": "milk"}],
    }
    said = ["save my gran's scone recipe: 250 g flour, 50 g butter, 150 ml milk, bake 12 minutes"]
    assert invented_recipe("db_create", create_recipe(scones), said) is None
    short = {"name": "Gran's Scones", "instructions": ["Mix everything, then bake it hot."]}
    assert invented_recipe("db_create", create_recipe(short), said) is None  # too few to judge


# --- an amount is the user's to give --------------------------------------------------------


def set_milk(quantity: object, table: str = "inventory") -> dict:
    where = [{"field": "name", "op": "ilike", "value": "%milk%"}]
    return {"table": table, "filters": where, "data": {"quantity": quantity}}


def test_an_amount_set_when_the_user_gave_none_is_asked_for():
    question = unsaid_amount("db_update", set_milk(1), "change the amount of milk I have")
    assert question == "How much should the milk be now? You did not say the new amount."
    more = "update how much milk is on the list"
    assert unsaid_amount("db_update", set_milk(2, "shopping_list"), more)


@pytest.mark.parametrize(
    "message",
    [
        "set the milk to 3 liters",
        "change the amount of milk I have (then answered: 3 liters)",
        "I bought two more cartons of milk",
        "add a carton of milk",
        "we only have half the milk left",
        "I bought milk",  # a report: one more is a fair reading, not asked about
    ],
)
def test_an_amount_the_users_words_give_is_set(message: str):
    assert unsaid_amount("db_update", set_milk(3), message) is None


def test_none_left_needs_no_number_and_other_writes_are_not_asked_about():
    assert unsaid_amount("db_update", set_milk(0), "we're out of milk") is None
    other = {"table": "tasks", "data": {"quantity": 2}}
    assert unsaid_amount("db_update", other, "change it") is None
    assert unsaid_amount("db_create", set_milk(1), "add milk") is None
    unit = {"table": "inventory", "data": {"unit": "l"}}
    assert unsaid_amount("db_update", unit, "milk is in litres") is None
