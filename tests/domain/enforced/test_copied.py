"""Specification of a plan held to this user's words when it copies an example's names
(``domain.enforced.copied``)."""

from __future__ import annotations

from domain.enforced.copied import (
    copied,
    copied_note,
    held_to_the_words,
    other_places,
    other_recipe_note,
    place_note,
    without_copied_reads,
)
from domain.nodes import ThinkOutput, ThinkStep
from domain.plan_examples import own_words, shown_entries


def step(description: str, kind: str = "read", subdomain: str = "inventory") -> ThinkStep:
    return ThinkStep(description=description, step_type=kind, subdomain=subdomain, group=0)


def plan(*steps: ThinkStep) -> ThinkOutput:
    return ThinkOutput(goal="goal", decision="plan_direct", steps=list(steps))


FRIDGE = step("Read the inventory rows whose location is fridge")
PEAS = step("Read the inventory rows whose name contains peas")


def test_the_words_only_the_shown_examples_name_are_their_own():
    """Shown "do we still have any frozen peas?" a plan may copy "peas"; a word of every
    plan, or one people use for a kind of request (a cue: "pantry"), is no one's."""
    fridge = own_words(shown_entries("library", "what's in my fridge?"))
    assert "pea" in fridge
    assert not {"inven", "read", "row", "locat", "pantr"} & fridge
    assert "shaks" in own_words(shown_entries("library", "chili tonight"))
    assert own_words(shown_entries("abstract", "what's in my fridge?")) == frozenset()


def test_a_read_of_what_only_an_example_named_is_dropped_when_the_rest_answers():
    """For "what's in my fridge?" the 1.5B local model read the fridge and the peas of
    the example it was shown."""
    own = own_words(shown_entries("library", "what's in my fridge?"))
    both = plan(FRIDGE, PEAS)
    found = copied(both, own, "what's in my fridge?")
    assert found == {1: ["peas"]}
    assert without_copied_reads(both, found) == plan(FRIDGE)
    # what the user or the conversation said is no copy
    assert copied(both, own, "what's in my fridge? any peas left?") == {}
    # a plan of copies only, or one whose copy writes, keeps its steps
    assert without_copied_reads(plan(PEAS), copied(plan(PEAS), own, "fridge")) is None
    write = step("Add peas to the inventory, one row", "write")
    assert without_copied_reads(plan(FRIDGE, write), {1: ["peas"]}) is None


def test_a_plan_that_copies_a_dish_or_an_item_is_asked_for_again():
    """For "chili tonight" the 1.5B local model planned the Shakshuka it was shown."""
    own = own_words(shown_entries("library", "chili tonight"))
    shakshuka = plan(step("Add Shakshuka to the meal plan for tonight", "write", "meal_plans"))
    found = copied(shakshuka, own, "chili tonight")
    assert found == {0: ["shakshuka"]}
    note = copied_note(shakshuka, found)
    assert note is not None and 'step 1 ("Add Shakshuka to the meal plan for tonight")' in note
    assert "another user's request" in note
    assert copied_note(shakshuka, {}) is None
    clarify = ThinkOutput(goal="g", decision="clarify", clarification_questions=["Which?"])
    assert copied(clarify, own, "") == {}


def test_a_thing_said_with_its_s_is_said():
    """Shown the scone recipe (its milk), "milk's down to half" was told its plan's milk came
    from the example: "milk's" was read as "milk'"."""
    message, own = "milk's down to half", frozenset({"milk"})
    halved = plan(step("Set the quantity of the milk row in the inventory to 0.5", "write"))
    assert copied(halved, own, message) == {}
    assert copied(halved, own, "down to half") == {0: ["milk"]}


PANTRY = step("Read the inventory rows whose location is pantry")


def test_a_read_of_another_place_than_the_one_the_words_name_is_dropped():
    """For "what have i got in the fridge", shown "what's sitting on the top shelf of the
    pantry?", the 1.5B local model read the fridge and the pantry."""
    places = ["fridge", "pantry", "top shelf"]
    both = plan(FRIDGE, PANTRY)
    assert other_places(both, "what have i got in the fridge", places) == plan(FRIDGE)
    assert other_places(both, "whats in the fridge and the pantry", places) is None  # both
    assert other_places(both, "what have i got", places) is None  # no place named
    assert other_places(plan(PANTRY), "what have i got in the fridge", places) is None
    write = step("Move the milk to the pantry", "write")
    assert other_places(plan(FRIDGE, write), "move the milk from the fridge", places) is None
    shelf = step("Read the rows whose location is top shelf")
    assert other_places(plan(shelf, PANTRY), "what's on the top shelf", places) == plan(shelf)


def test_a_change_put_in_another_place_than_the_one_the_words_name_is_asked_for_again():
    """For "the rice lives in the cupboard now", shown "move the chicken breasts from the
    fridge to the freezer", the 1.5B local model set the rice's location to the fridge."""
    fridge = step("Set the location of the rice row in the inventory to fridge", "write")
    note = place_note(plan(fridge), "the rice lives in the cupboard now", ["fridge", "pantry"])
    assert note is not None and note.startswith(
        "The request names the cupboard, and your plan puts things elsewhere:\n"
        '- step 1 ("Set the location of the rice row in the inventory to fridge"): fridge'
    )
    cupboard = step("Set the location of the rice row to cupboard, from the pantry", "write")
    assert place_note(plan(cupboard), "the rice lives in the cupboard now", ["pantry"]) is None
    assert place_note(plan(fridge), "move the rice", ["fridge"]) is None  # no place named
    assert place_note(plan(FRIDGE), "what's in the cupboard", ["fridge"]) is None  # a read


def test_a_plan_held_to_the_words_drops_reads_and_says_what_is_left():
    own = own_words(shown_entries("library", "what's in my fridge?"))
    held, note = held_to_the_words(plan(FRIDGE, PEAS), "what's in my fridge?", own, "", [])
    assert (held, note) == (plan(FRIDGE), None)
    write = step("Set the location of the rice row in the inventory to fridge", "write")
    held, note = held_to_the_words(plan(write), "rice to the cupboard", own, "", ["fridge"])
    assert held == plan(write) and note is not None and "names the cupboard" in note


def test_a_meal_planned_with_a_saved_recipe_the_words_do_not_name_is_asked_again():
    """For "chili for dinner friday and saturday" the 1.5B local model planned the Red
    Lentil Dal, on the meal plan already, for the Friday."""
    steps = [
        ThinkStep(
            description="Find the Weeknight Chili recipe's ref",
            step_type="read",
            subdomain="recipes",
        ),
        ThinkStep(
            description="Add Red Lentil Dal to the meal plan for Friday, dinner",
            step_type="write",
            subdomain="meal_plans",
            group=1,
        ),
        ThinkStep(
            description="Add Weeknight Chili to the meal plan for Saturday, dinner",
            step_type="write",
            subdomain="meal_plans",
            group=1,
        ),
    ]
    think = ThinkOutput(goal="g", decision="plan_direct", steps=steps)
    known = ["Weeknight Chili", "Red Lentil Dal"]
    note = other_recipe_note(think, ["Weeknight Chili"], known)
    assert note == (
        "The request names Weeknight Chili, and your plan puts another recipe in the meal "
        'plan:\n- step 2 ("Add Red Lentil Dal to the meal plan for Friday, dinner"): Red '
        "Lentil Dal\nAnswer again: plan the recipe the user named."
    )
    assert other_recipe_note(think, ["Weeknight Chili", "Red Lentil Dal"], known) is None
    assert other_recipe_note(think, [], known) is None  # names none: the model's to choose
    read_only = think.model_copy(update={"steps": steps[:1]})
    assert other_recipe_note(read_only, ["Weeknight Chili"], known) is None
