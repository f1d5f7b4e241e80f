"""A choice between candidates: only registry entities, numbered, and the answer resolved."""

from __future__ import annotations

import pytest

from domain.choices import (
    checked_options,
    format_choice,
    resolve_choice,
    which_to_delete,
    which_was_pointed_at,
)
from domain.kitchen.entities import BY_TABLE
from domain.nodes import DisambiguationOption
from domain.registry import SessionIdRegistry
from domain.turn_context import FreshEntity

CURRIES = [
    DisambiguationOption(ref="recipe_1", label="Chicken curry"),
    DisambiguationOption(ref="recipe_2", label="Lentil curry"),
    DisambiguationOption(ref="recipe_3", label="Green Thai curry"),
]


def registry_with_curries() -> SessionIdRegistry:
    registry = SessionIdRegistry()
    for n, name in enumerate(["Chicken curry", "Lentil curry"], start=1):
        uuid = f"00000000-0000-0000-0000-00000000000{n}"
        registry.register_created(uuid, "recipes", {"id": uuid, "name": name})
    return registry


def test_only_refs_the_registry_knows_are_options_labelled_as_the_registry_has_them():
    registry = registry_with_curries()
    offered = [
        DisambiguationOption(ref="recipe_2", label="whatever the model wrote"),
        DisambiguationOption(ref="recipe_9", label="Invented"),
        DisambiguationOption(ref="recipe_1", label="Chicken curry"),
        DisambiguationOption(ref="recipe_2", label="again"),
    ]
    checked = checked_options(registry, offered)
    assert [(o.ref, o.label) for o in checked] == [
        ("recipe_2", "Lentil curry"),
        ("recipe_1", "Chicken curry"),
    ]


def test_the_choice_is_the_question_and_the_numbered_candidates():
    assert format_choice("Which curry?", CURRIES[:2]) == (
        "Which curry?\n\n1. Chicken curry\n2. Lentil curry"
    )
    assert format_choice(None, CURRIES[:2]).startswith("Which one do you mean?\n\n1. ")


@pytest.mark.parametrize(
    ("answer", "ref"),
    [
        ("2", "recipe_2"),
        ("2.", "recipe_2"),
        ("number 3 please", "recipe_3"),
        ("the first one", "recipe_1"),
        ("Second", "recipe_2"),
        ("the last one", "recipe_3"),
        ("recipe_3", "recipe_3"),
        ("Lentil curry", "recipe_2"),
        ("the chicken one", "recipe_1"),
        ("thai", "recipe_3"),
    ],
)
def test_an_answer_picks_by_number_ordinal_ref_or_words_of_one_label(answer: str, ref: str):
    chosen = resolve_choice(answer, CURRIES)
    assert chosen is not None and chosen.ref == ref


@pytest.mark.parametrize(
    "answer",
    ["", "the curry", "4", "0", "neither", "the sixth", "the one with 2 eggs", "not the first one"],
)
def test_an_answer_that_fits_none_or_several_picks_nothing(answer: str):
    assert resolve_choice(answer, CURRIES) is None


def eggs(table: str, ref: str, **data) -> FreshEntity:
    return FreshEntity(
        table=table, id=ref, action="read", ref=ref, data={"id": ref, "name": "eggs", **data}
    )


FRIDGE_EGGS = eggs("inventory", "inv_1", location="fridge")
LISTED_EGGS = eggs("shopping_list", "shop_1")


def test_a_delete_that_could_mean_two_tables_asks_which_saying_where_each_is():
    options = which_to_delete([FRIDGE_EGGS, LISTED_EGGS], familiar=[])
    assert [(o.ref, o.label) for o in options] == [
        ("inv_1", "eggs (in your inventory, fridge)"),
        ("shop_1", "eggs (on your shopping list)"),
    ]
    assert resolve_choice("the ones on the list", options).ref == "shop_1"


def test_no_choice_when_the_conversation_points_at_one_or_only_one_table_has_it():
    assert which_to_delete([FRIDGE_EGGS, LISTED_EGGS], familiar=["shop_1"]) == []
    assert which_to_delete([FRIDGE_EGGS, eggs("inventory", "inv_2")], familiar=[]) == []
    both_seen = which_to_delete([FRIDGE_EGGS, LISTED_EGGS], familiar=["inv_1", "shop_1"])
    assert len(both_seen) == 2


def test_words_of_a_label_win_over_an_ordinal_in_it():
    options = [
        DisambiguationOption(ref="recipe_1", label="Last-minute pasta"),
        DisambiguationOption(ref="recipe_2", label="Slow stew"),
    ]
    assert resolve_choice("the last-minute one", options).ref == "recipe_1"
    assert resolve_choice("the last one", options).ref == "recipe_2"  # the last listed
    assert resolve_choice("the stew", options).ref == "recipe_2"


def shown_last_turn(*names: str, table: str = "recipes") -> SessionIdRegistry:
    """Turn 1 showed these rows; the registry is at turn 2."""
    registry = SessionIdRegistry()
    registry.begin_turn(1)
    for n, name in enumerate(names, start=1):
        uuid = f"00000000-0000-0000-0000-0000000001{n:02d}"
        registry.ref_for_uuid(uuid, BY_TABLE[table].type_name, action="read", label=name)
    registry.begin_turn(2)
    return registry


@pytest.mark.parametrize(
    "message", ["delete that one", "please remove this one", "delete that recipe"]
)
def test_a_delete_pointing_at_one_of_several_rows_just_shown_asks_which(message: str):
    registry = shown_last_turn("Red Lentil Dal", "Weeknight Chili")
    options = which_was_pointed_at(message, registry)
    assert [(o.ref, o.label) for o in options] == [
        ("recipe_1", "Red Lentil Dal"),
        ("recipe_2", "Weeknight Chili"),
    ]


@pytest.mark.parametrize(
    "message",
    [
        "delete the chili",  # names one: the model reads which
        "delete that chili one",
        "show me that one",  # not a delete
        "delete them all",  # points at no one row
        "remove it",  # the one thing the conversation was about: the model resolves it
    ],
)
def test_a_delete_that_names_a_row_or_is_no_delete_is_not_asked_about(message: str):
    assert which_was_pointed_at(message, shown_last_turn("Red Lentil Dal", "Weeknight Chili")) == []


def test_one_row_shown_is_what_that_one_means():
    assert which_was_pointed_at("delete that one", shown_last_turn("Red Lentil Dal")) == []


def test_rows_shown_two_turns_ago_are_not_candidates():
    registry = shown_last_turn("Red Lentil Dal", "Weeknight Chili")
    registry.begin_turn(3)
    assert which_was_pointed_at("delete that one", registry) == []


def test_too_many_rows_shown_to_choose_from_leaves_it_to_the_model():
    many = shown_last_turn(*(f"item {n}" for n in range(9)), table="inventory")
    assert which_was_pointed_at("delete that one", many) == []


def test_ingredient_lines_and_rows_already_deleted_are_not_offered():
    registry = shown_last_turn("Red Lentil Dal", "Weeknight Chili", "Tomato Soup")
    registry.ref_for_uuid(
        "00000000-0000-0000-0000-000000000201", "ri", action="read", label="red lentils"
    )
    registry.ref_for_uuid(
        "00000000-0000-0000-0000-000000000103", "recipe", action="deleted", label="Tomato Soup"
    )
    options = which_was_pointed_at("delete that one", registry)
    assert [o.label for o in options] == ["Red Lentil Dal", "Weeknight Chili"]
