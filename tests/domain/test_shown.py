"""A generated recipe the reply does not show is owed to the user, in full."""

from __future__ import annotations

import uuid

import pytest

from domain.registry import SessionIdRegistry
from domain.shown import (
    left_out,
    owed_recipes,
    refuses,
    repeats_the_prompt,
    unsaid_writes,
    without_false_nothing,
    without_refs,
)

DAL = {
    "name": "Red Lentil Dal",
    "servings": 4,
    "ingredients": [
        {"name": "red lentils", "quantity": 200, "unit": "g"},
        {"name": "coconut milk", "quantity": 400, "unit": "ml"},
    ],
    "instructions": ["Rinse the lentils", "Simmer with the coconut milk"],
}


def registry_with(*contents: tuple[str, dict]) -> tuple[SessionIdRegistry, list[str]]:
    registry = SessionIdRegistry()
    registry.begin_turn(1)
    return registry, [registry.register_generated(kind, c) for kind, c in contents]


def test_a_reply_that_names_the_recipe_and_each_ingredient_shows_it():
    reply = "**Red Lentil Dal**: Red lentils, 400 ml Coconut Milk, simmered."
    assert left_out(reply, "recipe", DAL) == []


def test_a_reply_that_only_names_the_recipe_leaves_out_its_ingredients():
    assert left_out("How about a Red Lentil Dal?", "recipe", DAL) == [
        "the reply leaves out red lentils, coconut milk"
    ]


def test_a_reply_that_lists_the_ingredients_but_not_the_name_does_not_show_it():
    assert left_out("Lentils: red lentils, coconut milk.", "recipe", DAL) == [
        "the reply does not name 'Red Lentil Dal'"
    ]


def test_an_unshown_unsaved_recipe_is_owed_in_full():
    registry, refs = registry_with(("recipe", DAL))
    owed = owed_recipes("How about a Red Lentil Dal? Shall I save it?", registry, refs)
    assert owed.startswith("Here is the recipe in full:")
    for part in ("**Red Lentil Dal**", "- red lentils — 200 g", "- coconut milk — 400 ml"):
        assert part in owed
    assert "1. Rinse the lentils" in owed and "2. Simmer with the coconut milk" in owed


def test_a_shown_recipe_is_not_owed_again():
    registry, refs = registry_with(("recipe", DAL))
    assert owed_recipes("Red Lentil Dal: red lentils, coconut milk.", registry, refs) == ""


def test_a_saved_recipe_is_not_owed():
    registry, refs = registry_with(("recipe", DAL))
    registry.register_created("0b6f0a4e-8a61-4d57-9a4b-3f0a1b2c3d4e", "recipes", DAL)
    assert owed_recipes("Saved Red Lentil Dal.", registry, refs) == ""


def test_only_recipes_generated_this_turn_are_owed_and_each_once():
    meal = {"date": "2026-11-30", "meal_type": "dinner"}
    registry, refs = registry_with(("recipe", DAL), ("meal", meal), ("recipe", {"name": "Soup"}))
    earlier = refs[2]  # generated, but not by this turn's steps
    owed = owed_recipes("Here you go.", registry, [refs[0], refs[1], refs[0]])
    assert owed.count("**Red Lentil Dal**") == 1
    assert "Soup" not in owed and earlier not in owed


def test_two_unshown_recipes_are_owed_together():
    registry, refs = registry_with(("recipe", DAL), ("recipe", {"name": "Tomato Soup"}))
    owed = owed_recipes("Two ideas for you.", registry, refs)
    assert owed.startswith("Here are the recipes in full:")
    assert owed.index("**Red Lentil Dal**") < owed.index("**Tomato Soup**")


DELETED = "Removed 1 recipe: Weeknight Chili."
ADDED = "Added 2 items to your shopping list: eggs, milk."


def test_a_reply_that_says_each_kind_of_change_leaves_nothing_unsaid():
    assert unsaid_writes("Deleted Weeknight Chili.", [DELETED]) == []
    assert unsaid_writes("I emptied your shopping list.", [DELETED]) == []
    assert unsaid_writes("Done: eggs and milk are on your list, I put them there.", [ADDED]) == []
    assert unsaid_writes("Milk is now 3 l.", ["Updated 1 inventory item: milk."]) == []
    assert unsaid_writes("Milk is on your list.", [ADDED]) == []
    assert unsaid_writes("Planned 7 dinners.", ["Added 7 meals to your meal plan: …"]) == []


def test_a_reply_that_speaks_as_if_nothing_was_written_leaves_the_writes_unsaid():
    listing = "You have two recipes: Red Lentil Dal and Weeknight Chili."
    assert unsaid_writes(listing, [DELETED, ADDED]) == [DELETED, ADDED]
    assert unsaid_writes("Removed the chili.", [DELETED, ADDED]) == [ADDED]
    assert unsaid_writes("Anything else?", []) == []
    # a stem inside another word does not count: "address" says nothing was added
    assert unsaid_writes("What address?", [ADDED]) == [ADDED]


def test_a_reply_made_of_its_prompt_s_sections_repeats_the_prompt():
    echoed = "## User request\nshow my recipes\n## Today\nNow: Friday\n## Goal\nshow my recipes"
    assert repeats_the_prompt(echoed)
    assert repeats_the_prompt("### Execution summary:\nStep 0 …\n\n### Conversation\nTurn 1")


def test_a_reply_that_describes_its_prompt_s_sections_repeats_the_prompt():
    """Asked "what goes in the chili", the 1.5B local model described its prompt."""
    described = (
        "The primary output is the saved Chili recipe with its ingredients. The execution "
        "summary shows that the recipe was read successfully, and the ingredients are "
        "listed. The suggested next step is to explore the recipe further."
    )
    assert repeats_the_prompt(described)
    assert not repeats_the_prompt("The suggested next step: buy beans. Your goal for today?")


def test_an_answer_with_headings_of_its_own_does_not_repeat_the_prompt():
    assert not repeats_the_prompt("**Ingredients**\n- lentils\n**Instructions**\n1. Simmer")
    assert not repeats_the_prompt("## Shopping list\n- milk\n## Goal\nfewer trips")
    assert not repeats_the_prompt("Deleted Weeknight Chili. Your goal of fewer recipes is met.")


@pytest.mark.parametrize(
    "reply",
    [
        "I'm sorry, but I can't assist with that request. Please provide more information.",
        "I am sorry but I cannot help with this.",
        "I\u2019m afraid I am unable to help you with your request.",
        "  I can't assist with that.",
    ],
)
def test_a_stock_refusal_refuses(reply: str):
    assert refuses(reply)


@pytest.mark.parametrize(
    "reply",
    [
        "Here is a spicy cod dish. I can't help with the wine pairing, though.",
        "I can't find any cod in your inventory, so here is a recipe to shop for.",
        "Sorry, I couldn't save it: the name is taken.",
        "I can help with that! Here is the recipe.",
    ],
)
def test_an_answer_that_only_mentions_a_limit_is_no_refusal(reply: str):
    assert not refuses(reply)


def test_a_reply_never_shows_a_ref_the_registry_knows():
    """The 1.5B local model listed saved recipes as "Weeknight Chili (recipe_1)"."""
    registry = SessionIdRegistry()
    chili = registry.ref_for_uuid(str(uuid.uuid4()), "recipe", action="read", label="Chili")
    dal = registry.ref_for_uuid(str(uuid.uuid4()), "recipe", action="read", label="Dal")
    tart = registry.register_generated("recipe", {"name": "Lemon Tart"})
    reply = f"- Chili ({chili})\n- Dal (`{dal}`)\n\nI put {dal} on Monday; want `{tart}` saved?"
    assert without_refs(reply, registry) == (
        "- Chili\n- Dal\n\nI put Dal on Monday; want Lemon Tart saved?"
    )


def test_a_ref_shaped_word_the_registry_does_not_know_stays():
    registry = SessionIdRegistry()
    assert without_refs("see recipe_9 and step_2 (task_4)", registry) == (
        "see recipe_9 and step_2 (task_4)"
    )


def test_a_reply_that_says_nothing_was_changed_after_a_write_loses_that_sentence():
    """The 1.5B local model copied the sentence from Reply's prompt after deleting."""
    said = "I removed the plumber task. The plumber was called. Nothing was changed."
    assert without_false_nothing(said, [DELETED]) == (
        "I removed the plumber task. The plumber was called."
    )
    assert without_false_nothing("Nothing was changed.", [DELETED]) == ""
    assert without_false_nothing(said, []) == said  # true when nothing was written
    partly = "Nothing was changed on your meal plan; the chili is gone."
    assert without_false_nothing(partly, [DELETED]) == partly  # not the system's sentence
