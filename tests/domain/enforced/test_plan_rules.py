"""Specification of the rules the system holds Understand's and Think's answers to
(seed 004: models interpret, the system enforces; issue 28 §3)."""

from __future__ import annotations

import datetime as dt

import pytest

from domain.crud.calls import DbRead, Filter
from domain.enforced.plan_rules import (
    RECIPES_READ,
    WHICH_DAYS,
    adds_held,
    as_question,
    ask_again,
    change_said,
    changes_nothing,
    days_left_out,
    days_note,
    elsewhere_note,
    generates_unasked,
    held_note,
    hold_plan,
    hold_understand,
    home_note,
    in_data_order,
    invent_note,
    invents_nothing,
    invents_unasked,
    looks_elsewhere,
    lookup_note,
    meal_plan_note,
    meals_dropped,
    meals_note,
    meals_unasked,
    meals_unasked_note,
    meals_unplanned,
    misplaced_change,
    named_note,
    only_reads,
    read_first,
    read_moved,
    read_there,
    replan_note,
    retrievable,
    saved_too,
    tasks_left_out,
    thought_up,
    ticked_too,
    undated_plan,
    unplanned_meal,
    where_asked,
    with_recipes_read,
    writes_unasked,
    written_instead,
)
from domain.modes import MODES, apply_mode_1_0
from domain.nodes import ThinkOutput, ThinkStep, UnderstandOutput
from domain.tool_results import ToolEntry

QUICK = UnderstandOutput(
    quick_mode=True, quick_intent="List the pantry", quick_subdomain="inventory"
)


def step(kind: str, group: int = 0, subdomain: str = "recipes") -> ThinkStep:
    return ThinkStep(description=f"{kind} it", step_type=kind, subdomain=subdomain, group=group)


def proposal(*steps: ThinkStep) -> ThinkOutput:
    return ThinkOutput(goal="g", decision="propose", proposal_message="Shall I?", steps=list(steps))


def written(description: str, subdomain: str = "recipes", group: int = 0) -> ThinkStep:
    return ThinkStep(description=description, step_type="write", subdomain=subdomain, group=group)


def meal(description: str, group: int = 1) -> ThinkStep:
    return ThinkStep(
        description=description, step_type="write", subdomain="meal_plans", group=group
    )


def plan(*steps: ThinkStep) -> ThinkOutput:
    return ThinkOutput(goal="g", decision="plan_direct", steps=list(steps))


def groups(think: ThinkOutput) -> list[tuple[str, int]]:
    return [(s.step_type, s.group) for s in think.steps]


# --- quick mode is read-only ---------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        "add eggs to my shopping list",
        "I bought milk, what's in my fridge?",
        "please delete the dal recipe",
        "can you mark milk as bought",
    ],
)
def test_a_message_that_asks_for_a_change_never_takes_the_quick_path(message: str):
    held = hold_understand(QUICK, message)
    assert (held.quick_mode, held.quick_intent, held.quick_subdomain) == (False, None, None)


@pytest.mark.parametrize(
    "message",
    [
        "suggest a fast vegan lunch for one",
        "can you invent something with leeks",
        "please recommend a soup",
        "come up with three breakfast ideas",
        "ok, give me some ideas for tonight",
    ],
)
def test_a_message_that_asks_for_new_content_never_takes_the_quick_path(message: str):
    """The 1.5B local model took the quick path (a read of the meal plans) for a request
    to suggest a quick dinner: quick mode only looks up what is stored."""
    held = hold_understand(QUICK, message)
    assert (held.quick_mode, held.quick_intent, held.quick_subdomain) == (False, None, None)


@pytest.mark.parametrize(
    "message",
    [
        "what's in my pantry?",
        "make a list of what's in my fridge",
        "what should I add?",
        "show me the soup you suggested",
    ],
)
def test_a_lookup_keeps_the_quick_path(message: str):
    assert hold_understand(QUICK, message) == QUICK


def test_holding_the_quick_path_keeps_the_rest_of_understands_answer():
    said = QUICK.model_copy(update={"referenced_entities": ["inv_1"], "constraint_snapshot": ["x"]})
    held = hold_understand(said, "remove inv_1")
    assert held.referenced_entities == ["inv_1"] and held.constraint_snapshot == ["x"]


def test_an_answer_off_the_quick_path_is_left_alone():
    assert hold_understand(UnderstandOutput(), "add eggs") == UnderstandOutput()


@pytest.mark.parametrize(
    ("message", "said", "held"),
    [
        ("what's on my shopping list?", "recipes", "shopping"),  # the 1.5B's
        ("how long does the dal recipe take?", None, "recipes"),  # none reads the inventory
        ("what's still on my to-do list?", "tasks", "tasks"),
        ("which items on my shopping list are in the fridge?", "shopping", "shopping"),
        ("which items on my shopping list are in the fridge?", "recipes", "recipes"),  # two
        ("is the milk still good?", "inventory", "inventory"),  # names no place
    ],
)
def test_a_quick_lookup_looks_in_the_one_place_its_words_name(
    message: str, said: str | None, held: str
):
    quick = QUICK.model_copy(update={"quick_subdomain": said})
    assert hold_understand(quick, message).quick_subdomain == held
    assert hold_understand(quick, message).quick_intent == QUICK.quick_intent


# --- the user's own message is not a question to them -------------------------------------


def asking(*questions: str) -> UnderstandOutput:
    return UnderstandOutput(needs_clarification=True, clarification_questions=list(questions))


@pytest.mark.parametrize(
    ("message", "question"),
    [
        # both asked by the 1.5B local model, with needs_clarification set
        (
            "suggest a quick vegetarian dinner for two",
            "Can you suggest a quick vegetarian dinner for two?",
        ),
        (
            "put the Red Lentil Dal on next Monday's dinner",
            "When should I put the Red Lentil Dal on next Monday's dinner?",
        ),
    ],
)
def test_a_question_that_asks_the_message_back_is_no_clarification(message: str, question: str):
    held = hold_understand(asking(question), message)
    assert (held.needs_clarification, held.clarification_questions) == (False, [])


def test_a_real_question_beside_the_echo_is_still_asked():
    message = "plan dinners for next week"
    held = hold_understand(asking("Plan dinners for next week?", "Which days?"), message)
    assert (held.needs_clarification, held.clarification_questions) == (True, ["Which days?"])


@pytest.mark.parametrize(
    ("message", "question"),
    [
        ("milk?", "How much milk do you have now?"),  # too short to be asked back whole
        ("add the dal to monday", "Which dal do you mean, the red lentil or the chana?"),
    ],
)
def test_a_question_that_asks_something_new_stands(message: str, question: str):
    assert hold_understand(asking(question), message) == asking(question)


def test_a_choice_keeps_its_question():
    choice = UnderstandOutput(
        needs_disambiguation=True,
        disambiguation_options=[
            {"ref": "recipe_1", "label": "a"},
            {"ref": "recipe_2", "label": "b"},
        ],
        clarification_questions=["Which one: show me the dal recipe?"],
    )
    assert hold_understand(choice, "show me the dal recipe") == choice


# --- a request for a change is planned as one ---------------------------------------------


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        ("remind me to defrost the chicken tomorrow", "remind"),
        ("add eggs to the shopping list", "add"),
        ("we're out of rice", "we're out of"),
    ],
)
def test_a_plan_that_only_reads_for_a_change_request_changes_nothing(message: str, asked: str):
    assert changes_nothing(plan(step("read", subdomain="tasks"), step("analyze", 1)), message) == (
        asked
    )
    assert changes_nothing(proposal(step("read")), message) == asked


@pytest.mark.parametrize("kind", ["write", "generate"])
def test_a_plan_that_writes_or_invents_something_to_save_may_change_it(kind: str):
    assert changes_nothing(plan(step("read"), step(kind, 1)), "add a curry recipe") is None


def test_a_lookup_or_a_question_back_is_no_missed_change():
    assert changes_nothing(plan(step("read")), "what's on my shopping list?") is None
    question = ThinkOutput(goal="g", decision="clarify", clarification_questions=["How much?"])
    assert changes_nothing(question, "change the amount of milk") is None


def test_think_asked_again_sees_its_plan_and_what_a_write_is():
    note = replan_note(plan(step("read", subdomain="tasks")), "remind")
    assert note.startswith('The request asks for a change ("remind"), and your plan only reads:')
    assert "- group 0, read (tasks): read it" in note
    assert "A change is a write step" in note and "give the same plan" in note
    assert "cooking_log" not in note


def test_think_asked_again_for_a_dish_eaten_is_told_where_it_is_logged():
    """Told only what a write is for "we had the chili last night, it was great", the 1.5B
    local model set the chili's servings to 16."""
    reads = plan(step("read"))
    assert changes_nothing(reads, "we had the chili last night, it was great") == "we had"
    note = replan_note(reads, "we had")
    assert "A dish cooked or eaten is logged: a cooking_log row (subdomain recipes) naming" in (
        note
    )
    assert "cooking_log" in replan_note(reads, "we made")


# --- a plan that writes nothing is never proposed -------------------------------------------


@pytest.mark.parametrize("mode", list(MODES))
def test_a_proposal_that_only_reads_runs_directly(mode: str):
    held = hold_plan(proposal(step("read"), step("analyze", 1)), mode)
    assert held.decision == "plan_direct" and held.proposal_message is None
    assert groups(held) == [("read", 0), ("analyze", 1)]


def test_a_proposal_that_only_generates_runs_directly():
    """Generated content is unsaved until a write: the user confirms it by saving it."""
    held = hold_plan(proposal(step("read", subdomain="inventory"), step("generate", 1)), "plan")
    assert held.decision == "plan_direct"


@pytest.mark.parametrize("mode", ["plan", "create"])
def test_a_proposal_that_writes_stands(mode: str):
    said = proposal(step("write", subdomain="shopping"))
    assert hold_plan(said, mode) == said


def test_a_proposal_without_steps_stands():
    """Confirming it sends the turn back to Think: there is nothing to run directly."""
    said = proposal()
    assert hold_plan(said, "plan") == said


@pytest.mark.parametrize("mode", list(MODES))
def test_a_question_and_a_direct_plan_of_what_the_user_said_stand(mode: str):
    question = ThinkOutput(goal="g", decision="clarify", clarification_questions=["Which days?"])
    direct = plan(step("read"), step("write", 1, "shopping"))
    assert hold_plan(question, mode) == question and hold_plan(direct, mode) == direct


# --- the mode's confirmation rules ---------------------------------------------------------


def test_quick_mode_runs_a_proposal_that_writes_at_once():
    held = hold_plan(proposal(step("generate"), step("write", 1)), "quick")
    assert held.decision == "plan_direct" and held.proposal_message is None


@pytest.mark.parametrize("mode", ["plan", None])
def test_plan_mode_proposes_a_plan_that_saves_what_it_generates(mode: str | None):
    """The default mode is plan: the user has not seen what the write would save."""
    held = hold_plan(plan(step("read"), step("generate", 1), step("write", 2)), mode)
    assert held.decision == "propose"
    assert held.proposal_message == (
        "This saves what I come up with, so I'd like your go-ahead first: g."
    )


def test_a_plan_made_after_the_user_answered_the_proposal_is_not_proposed_again():
    """ "Yes, but only three days": Think plans the adjusted steps directly."""
    adjusted = plan(step("read"), step("generate", 1, "meal_plans"), step("write", 2, "meal_plans"))
    assert hold_plan(adjusted, "plan", answered_proposal=True) == adjusted


def test_meals_chosen_with_no_recipe_read_read_the_saved_recipes_first():
    """The 1.5B local model chose a week of dinners after reads of the meal plans and the
    inventory only: no recipe ref to plan them on."""
    week = plan(
        step("read", subdomain="meal_plans"),
        step("generate", 1, "meal_plans"),
        step("write", 2, "meal_plans"),
    )
    held = with_recipes_read(week.steps)
    assert (held[0].description, held[0].subdomain, held[0].group) == (RECIPES_READ, "recipes", 0)
    assert held[1:] == week.steps
    at_once = with_recipes_read(plan(step("generate", subdomain="meal_plans")).steps)
    assert [(s.step_type, s.subdomain, s.group) for s in at_once] == [
        ("read", "recipes", 0),
        ("generate", "meal_plans", 1),  # moved up: it runs after the read
    ]
    assert hold_plan(week, "plan").steps[0].description == RECIPES_READ


@pytest.mark.parametrize(
    "steps",
    [
        [step("read"), step("generate", 1, "meal_plans")],  # the recipes read already
        [step("generate"), step("generate", 1, "meal_plans")],  # new recipes to plan on
        [step("read", subdomain="tasks"), step("generate", 1, "tasks")],  # no meals chosen
    ],
)
def test_meals_chosen_from_recipes_read_or_generated_are_left_as_planned(steps: list):
    assert with_recipes_read(steps) == steps


def test_a_save_planned_beside_its_generate_is_proposed_once_it_runs_after_it():
    held = hold_plan(plan(step("generate"), step("write", subdomain="meal_plans")), "plan")
    assert held.decision == "propose" and groups(held) == [("generate", 0), ("write", 1)]


def test_plan_mode_runs_writes_the_user_spelled_out_directly_however_many():
    """ "I bought eggs and ticked them off": an inventory write and a shopping write."""
    spelled_out = plan(
        step("write", subdomain="inventory"),
        step("write", subdomain="shopping"),
        step("write", 1, "tasks"),
    )
    assert hold_plan(spelled_out, "plan") == spelled_out


def test_a_write_before_the_generate_saves_none_of_it():
    earlier = plan(step("write", subdomain="shopping"), step("generate", 1))
    assert hold_plan(earlier, "plan") == earlier


def test_create_mode_forces_no_proposal():
    generated_and_saved = plan(step("generate"), step("write", 1))
    assert hold_plan(generated_and_saved, "create") == generated_and_saved


@pytest.mark.parametrize("mode", list(MODES))
def test_the_1_0_workflow_rules_keep_a_held_plan_as_it_is(mode: str):
    """apply_mode_1_0 (turns started on 1.0) never turns a held no-write plan back into a
    proposal."""
    held = hold_plan(proposal(step("read"), step("generate", 1)), mode)
    assert apply_mode_1_0(mode, held) == held


# --- a step runs after the steps of its group it consumes -----------------------------------


def test_a_write_sharing_a_group_with_a_generate_runs_after_it():
    """Seed 002's "generate then save", written with both steps in group 0."""
    held = hold_plan(plan(step("generate"), step("write")), "create")
    assert groups(held) == [("generate", 0), ("write", 1)]


def test_later_groups_move_up_by_the_groups_a_split_adds():
    held = hold_plan(plan(step("generate"), step("write"), step("read", 1, "shopping")), "create")
    assert groups(held) == [("generate", 0), ("write", 1), ("read", 2)]


def test_an_analyze_sharing_a_group_with_reads_runs_after_them():
    held = in_data_order([step("read"), step("read", subdomain="inventory"), step("analyze")])
    assert [(s.step_type, s.group) for s in held] == [("read", 0), ("read", 0), ("analyze", 1)]


def test_a_group_of_reads_an_analysis_and_a_write_becomes_three():
    said = [step("write", 0, "shopping"), step("analyze"), step("read", subdomain="inventory")]
    assert [s.group for s in in_data_order(said)] == [2, 1, 0]


def test_a_write_after_an_analysis_of_an_earlier_group():
    said = [step("read"), step("analyze", 1), step("write", 1, "shopping")]
    assert [s.group for s in in_data_order(said)] == [0, 1, 2]


def test_a_write_sharing_a_group_with_a_read_of_its_subdomain_runs_after_it():
    """ "I used up the rice", planned as a read and an update of the inventory in group 0:
    the update changes the row the read finds."""
    said = [step("read", 0, "inventory"), step("write", 0, "inventory"), step("read", 1, "tasks")]
    assert [(s.step_type, s.group) for s in in_data_order(said)] == [
        ("read", 0),
        ("write", 1),
        ("read", 2),
    ]


def test_writes_of_one_subdomain_sharing_a_group_run_one_after_the_other():
    """For "cleaned the oven. add mop the kitchen floor for wednesday" the 1.5B planned two
    task writes in group 0, and both steps created the mop task."""
    said = [step("write", 0, "tasks"), step("write", 0, "tasks"), step("write", 0, "shopping")]
    assert [(s.subdomain, s.group) for s in in_data_order(said)] == [
        ("tasks", 0),
        ("tasks", 1),
        ("shopping", 0),
    ]


def test_steps_that_do_not_feed_each_other_keep_sharing_a_group():
    """Reads with reads, writes with writes, a write beside a read of another subdomain:
    no split, no delay."""
    said = [
        step("read"),
        step("read", subdomain="inventory"),
        step("write", 0, "shopping"),
        step("write", 0, "tasks"),
        step("generate", 1),
    ]
    assert in_data_order(said) is said


def test_the_plan_keeps_its_order_and_descriptions():
    said = [step("write"), step("generate")]
    held = in_data_order(said)
    assert [(s.description, s.step_type, s.group) for s in held] == [
        ("write it", "write", 1),
        ("generate it", "generate", 0),
    ]


def test_groups_with_gaps_keep_their_order():
    said = [step("read", 3), step("analyze", 3), step("generate", 7)]
    assert [s.group for s in in_data_order(said)] == [3, 4, 8]


# --- a step retrieves an earlier step once -------------------------------------------------


def test_a_step_may_retrieve_only_earlier_groups_and_each_of_them_once():
    steps = [step("read", 0), step("read", 0, "inventory"), step("analyze", 1), step("write", 2)]
    assert retrievable(steps, 0, []) == ()
    assert retrievable(steps, 2, []) == (0, 1)
    assert retrievable(steps, 3, [ToolEntry(retrieved_step=0, result={})]) == (1, 2)
    fetched = [ToolEntry(retrieved_step=i, result={}) for i in (0, 1, 2)]
    assert retrievable(steps, 3, [ToolEntry(tool="db_read"), *fetched]) == ()


# --- a meal plan has days ----------------------------------------------------------------------

FRIDAY = dt.date(2026, 11, 27)
MEALS_PLAN = ThinkOutput(
    goal="A meal plan",
    decision="plan_direct",
    steps=[
        ThinkStep(description="Read recipes", step_type="read", subdomain="recipes"),
        ThinkStep(
            description="Choose meals", step_type="generate", subdomain="meal_plans", group=1
        ),
        ThinkStep(description="Save them", step_type="write", subdomain="meal_plans", group=2),
    ],
)


@pytest.mark.parametrize("message", ["make me a meal plan", "put the chili in the meal plan"])
def test_a_meal_plan_for_words_that_name_no_day_asks_which_days(message: str):
    assert undated_plan(MEALS_PLAN, message, FRIDAY) == WHICH_DAYS
    asked = as_question(MEALS_PLAN, WHICH_DAYS)
    assert (asked.decision, asked.clarification_questions) == ("clarify", [WHICH_DAYS])


@pytest.mark.parametrize(
    "message",
    [
        "plan my dinners for next week",
        "make me a meal plan (then answered: dinners on Monday and Tuesday next week)",
        "chili on friday",
        "plan 3 days of meals",
        "plan meals for the 3rd",
        "clear my meal plan",
    ],
)
def test_a_meal_plan_for_named_days_or_one_that_removes_is_planned(message: str):
    assert undated_plan(MEALS_PLAN, message, FRIDAY) is None


def test_days_named_in_the_users_last_message_count():
    """ "plan next week's dinners" … "ok, make me a meal plan" asks nothing more."""
    earlier = "I want to plan next week's dinners"
    assert undated_plan(MEALS_PLAN, "ok, make me a meal plan", FRIDAY, earlier) is None
    assert undated_plan(MEALS_PLAN, "ok, make me a meal plan", FRIDAY, "thanks") == WHICH_DAYS


def test_a_plan_that_puts_nothing_in_the_meal_plan_needs_no_day():
    shopping = ThinkOutput(
        goal="Milk",
        decision="plan_direct",
        steps=[ThinkStep(description="Add milk", step_type="write", subdomain="shopping")],
    )
    assert undated_plan(shopping, "add milk", FRIDAY) is None


A_RECIPE_FOR_A_DAY = plan(step("generate"), step("write", 1))


@pytest.mark.parametrize(
    "message",
    ["i'd like the dal on tuesday", "fish on friday please", "save it, we'll cook it sunday"],
)
def test_a_meal_on_a_day_planned_as_a_recipe_is_asked_for_again(message: str):
    days = unplanned_meal(A_RECIPE_FOR_A_DAY, message, FRIDAY)
    assert len(days) == 1 and "2026-1" in days[0]
    note = ask_again(A_RECIPE_FOR_A_DAY, message, FRIDAY)
    assert note == meal_plan_note(A_RECIPE_FOR_A_DAY, days)
    assert "your plan has no meal_plans step:\n- group 0, generate (recipes): generate" in note
    assert "A meal on a day is a meal_plans row" in note


def test_a_meal_plan_that_leaves_out_a_day_the_words_name_is_asked_for_again():
    """For "put the dal down for lunch tomorrow" the 1.5B local model planned the dal for
    Monday, the day the dashboard showed it on; for "chili for dinner friday and saturday",
    asked again, it planned Friday alone."""
    monday = plan(step("read"), meal("Add Red Lentil Dal to the meal plan for Monday 2026-11-30"))
    words = "put the dal down for lunch tomorrow"
    days = days_left_out(monday, words, FRIDAY)
    assert days == ['"tomorrow" is Saturday 2026-11-28']
    note = ask_again(monday, words, FRIDAY)
    assert note == days_note(monday, days)
    assert note.startswith(
        'The request names a day ("tomorrow" is Saturday 2026-11-28), and no step of your '
        "plan puts anything on it:\n- group 0, read (recipes): read it\n"
    )
    friday = plan(step("read"), meal("Add Weeknight Chili for Friday 2026-12-04, dinner"))
    both = "chili for dinner friday and saturday"
    assert [d.split(" is ")[0] for d in days_left_out(friday, both, FRIDAY)] == ['"saturday"']


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([meal("Add the dal for lunch on Saturday")], "put the dal down for lunch tomorrow"),
        ([meal("Add the dal for lunch tomorrow")], "put the dal down for lunch tomorrow"),
        ([meal("Add the dal for 2026-11-28")], "put the dal down for lunch tomorrow"),
        ([meal("Add the dal to the meal plan")], "put the dal down for lunch tomorrow"),  # no day
        ([meal("Remove the dal from Monday")], "take the dal off tomorrow"),  # a removal
        (  # the other day is the task's
            [meal("Add the dal on Saturday"), written("Add buy lentils, due Sunday", "tasks")],
            "dal tomorrow and remind me to buy lentils on sunday",
        ),
        (
            [meal("Add the chili to Friday 2026-12-04 and Saturday 2026-12-05")],
            "chili friday and saturday",
        ),
        ([meal("Add the dal on Monday")], "plan the dal for next week"),  # a week, no one day
    ],
)
def test_a_meal_plan_that_gives_the_named_days_or_none_is_not_asked_again(steps, message):
    assert days_left_out(plan(step("read"), *steps), message, FRIDAY) == []


def test_meals_planned_for_words_that_speak_of_none_are_asked_for_again():
    """For "call the dal mums dal from now on" the 1.5B local model planned reads, an
    analysis and a meal for today, and the turn asked the user which days and meals."""
    today = "Plan a meal for Red Lentil Dal on Wednesday 2026-12-02"
    think = plan(step("read"), step("analyze", 1), ThinkStep(
        description=today, step_type="generate", subdomain="meal_plans", group=2
    ))  # fmt: skip
    words = "call the dal mums dal from now on"
    assert meals_unasked(think, words, FRIDAY)
    note = ask_again(think, words, FRIDAY)
    assert note == meals_unasked_note(think)
    assert note.startswith(
        "The request speaks of no meal, no day and no plan, and your plan puts meals in the "
        "meal plan:\n- group 0, read (recipes): read it\n"
    )
    for said in (
        "dal for dinner",  # a meal
        "the dal on friday",  # a day
        "plan the dal",  # a plan
        "we're eating the dal",  # eating
        "take the dal off",  # a removal
    ):
        assert not meals_unasked(think, said, FRIDAY), said
    assert not meals_unasked(plan(step("read"), written("rename it")), words, FRIDAY)


def test_meals_still_planned_for_words_that_speak_of_none_are_dropped():
    """Asked again for "call the dal mums dal from now on", the 1.5B local model kept the
    meal, and the turn asked the user which days and meals."""
    meal_step = ThinkStep(description="Plan a meal", step_type="generate", subdomain="meal_plans")
    think = plan(step("read"), meal_step.model_copy(update={"group": 1}))
    words = "call the dal mums dal from now on"
    assert meals_dropped(think, words, FRIDAY) == plan(step("read"))
    assert meals_dropped(think, "dal for dinner", FRIDAY) == think  # asked for
    alone = plan(meal_step)
    assert meals_dropped(alone, words, FRIDAY) == alone  # nothing else would be left


@pytest.mark.parametrize(
    ("think", "message"),
    [
        (A_RECIPE_FOR_A_DAY, "save the curry"),  # names no day
        (A_RECIPE_FOR_A_DAY, "delete the dal from tuesday"),  # a removal
        (plan(step("read"), meal("Add the dal for Tuesday")), "i'd like the dal on tuesday"),
        (plan(step("write", subdomain="tasks")), "defrost the chicken on tuesday"),
        (plan(step("write", subdomain="shopping")), "buy milk on saturday"),
    ],
)
def test_a_plan_with_its_meal_plan_or_without_recipes_is_not_asked_for_again(
    think: ThinkOutput, message: str
):
    assert unplanned_meal(think, message, FRIDAY) == []
    assert ask_again(think, message, FRIDAY, UNSAVED) is None


UNSAVED = ("gen_recipe_1",)
"""An unsaved recipe: a plan's generate step may be its revision."""


DAL_INVENTED = plan(
    step("read", subdomain="meal_plans"), step("generate", 1), step("write", 2, "meal_plans")
)


@pytest.mark.parametrize(
    "message",
    ["i'd like the dal on tuesday", "delete the dal from tuesday", "add the lasagna to monday"],
)
def test_a_recipe_invented_for_a_change_that_asks_for_none_is_asked_for_again(message: str):
    assert invents_unasked(DAL_INVENTED, message, ())
    note = ask_again(DAL_INVENTED, message, FRIDAY)
    assert note == named_note(DAL_INVENTED)
    assert "your plan generates one:\n- group 0, read (meal_plans)" in note
    assert "if they named one they have, read it instead of generating one" in note


def test_meals_generated_for_a_named_dish_on_a_day_are_asked_for_again():
    week_again = plan(
        step("read", subdomain="meal_plans"),
        step("generate", 1, "meal_plans"),
        step("write", 2, "meal_plans"),
    )
    assert invents_unasked(week_again, "actually lets have the chili on monday not the dal", ())
    assert not invents_unasked(week_again, "plan the dinners for next week", ())
    assert not invents_unasked(week_again, "have something light on monday", ())
    # a dish the dashboard finds among the saved recipes points as "the" does
    assert not invents_unasked(week_again, "dal for dinner friday", ())
    assert invents_unasked(week_again, "dal for dinner friday", (), names_recipe=True)
    note = ask_again(week_again, "dal for dinner friday", FRIDAY, names_recipe=True)
    assert note == named_note(week_again)


@pytest.mark.parametrize(
    ("think", "message", "unsaved"),
    [
        (DAL_INVENTED, "i'd like the dal on tuesday", UNSAVED),  # a revision of it
        (DAL_INVENTED, "suggest a dal for tuesday", ()),  # something new, asked for
        (DAL_INVENTED, "make a soup for tuesday", ()),  # "a soup": none named yet
        (DAL_INVENTED, "make me fish tacos on friday", ()),
        (DAL_INVENTED, "what's on for tuesday?", ()),  # no change asked
        (plan(step("generate", subdomain="meal_plans")), "plan dinners on monday", ()),
        (plan(step("read"), step("write", 1, "meal_plans")), "i'd like the dal on tuesday", ()),
    ],
)
def test_a_recipe_generated_when_asked_for_or_revised_is_not_asked_about(
    think: ThinkOutput, message: str, unsaved: tuple[str, ...]
):
    assert not invents_unasked(think, message, unsaved)


@pytest.mark.parametrize(
    ("message", "think", "home"),
    [
        ("I just bought 2 liters of milk", plan(step("write")), ("inventory", "shopping")),
        ("milk x2", plan(step("generate"), step("write", 1)), ("inventory", "shopping")),
        ("I'm allergic to peanuts", plan(step("write", subdomain="inventory")), ("preferences",)),
        ("remind me to buy eggs", plan(step("write", subdomain="shopping")), ("tasks",)),
        (  # a recipe generated on the way to a meal plan row changes the meal plan
            "the dal only serves 2",
            plan(step("generate"), step("write", 1, "meal_plans")),
            ("recipes",),
        ),
    ],
)
def test_a_change_planned_in_another_subdomain_than_its_own_is_asked_for_again(
    message: str, think: ThinkOutput, home: tuple[str, ...]
):
    assert misplaced_change(think, message) == home
    note = ask_again(think, message, FRIDAY)
    assert note == home_note(think, message, home)
    assert f"The request reads as a change to {' or '.join(home)} (" in note
    assert f"if the change belongs in {' or '.join(home)}, plan its write step there" in note


def test_a_saved_recipe_said_to_need_a_thing_is_a_change_to_the_recipes():
    """For "the chili needs a tin of sweetcorn as well" the 1.5B local model read and set
    a sweetcorn row of the inventory, where there was none."""
    message = "the chili needs a tin of sweetcorn as well"
    stock = plan(step("write", subdomain="inventory"))
    assert change_said(message, names_recipe=True) == ("needs", ("recipes",))
    assert misplaced_change(stock, message, names_recipe=True) == ("recipes",)
    note = ask_again(stock, message, FRIDAY, names_recipe=True)
    assert note == home_note(stock, message, ("recipes",), names_recipe=True)
    assert 'The request reads as a change to recipes ("needs")' in note
    question = "Should I make that change in your recipes, or in your inventory?"
    assert where_asked(stock, message, names_recipe=True) == question
    assert misplaced_change(plan(step("write", subdomain="recipes")), message, True) == ()
    # no saved recipe named: a thing needed is no change the words place
    assert change_said(message) == (None, ())
    assert ask_again(stock, message, FRIDAY) is None


def test_a_saved_recipe_given_a_new_name_is_a_change_to_the_recipes():
    """For "call the dal mums dal from now on" the 1.5B local model read the dal and the
    inventory and planned the dal for today's dinner."""
    message = "call the dal mums dal from now on"
    dinner = plan(step("read"), step("generate", 1, "meal_plans"))
    assert change_said(message, names_recipe=True) == ("rename", ("recipes",))
    note = ask_again(dinner, message, FRIDAY, names_recipe=True)
    assert note == home_note(dinner, message, ("recipes",), names_recipe=True)
    assert 'The request reads as a change to recipes ("rename")' in note
    assert misplaced_change(plan(step("write", subdomain="recipes")), message, True) == ()
    assert change_said("rename the plumber task to fix the tap", True)[1] == ("tasks",)
    assert change_said(message) == ("rename", ())  # no saved recipe named: no place said


@pytest.mark.parametrize(
    ("message", "think", "question"),
    [
        (
            "the dal only serves 2",
            plan(step("write", subdomain="meal_plans")),
            "Should I make that change in your recipes, or in your meal plan?",
        ),
        (
            "the dal only serves 2",
            plan(
                step("analyze", subdomain="meal_plans"),
                step("generate", 1),
                step("write", 2, "meal_plans"),
            ),
            "Should I make that change in your recipes, or in your meal plan?",
        ),
        (
            "milk x2",
            plan(step("write"), step("write", 1, "tasks")),
            "Should I make that change in your inventory or your shopping list, "
            "or in your recipes and your tasks?",
        ),
    ],
)
def test_a_change_still_planned_where_the_words_do_not_put_it_asks_the_user_where(
    message: str, think: ThinkOutput, question: str
):
    assert where_asked(think, message) == question


@pytest.mark.parametrize(
    ("message", "think"),
    [
        ("I just bought 2 liters of milk", plan(step("write", subdomain="inventory"))),
        ("we made the dal last night", plan(step("write"))),  # a cooking log is a recipe's
        ("add a curry recipe", plan(step("write"))),  # a verb says where itself
        ("I'm allergic to peanuts", plan(step("write", subdomain="preferences"))),
        ("milk x2", plan(step("read"), step("write", 1, "shopping"))),
    ],
)
def test_a_change_planned_in_its_own_subdomain_is_not_asked_for_again(
    message: str, think: ThinkOutput
):
    assert misplaced_change(think, message) == ()
    assert ask_again(think, message, FRIDAY) is None
    assert where_asked(think, message) is None


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        ("invent a spicy cod dish", "invent"),
        ("can you come up with a picnic lunch", "come up with"),
    ],
)
def test_a_plan_that_only_reads_for_something_new_is_asked_for_again(message: str, asked: str):
    reads = plan(step("read"), step("analyze", 1))
    assert invents_nothing(reads, message) == asked
    note = ask_again(reads, message, FRIDAY)
    assert note == invent_note(reads, asked)
    assert f'The request asks for something new ("{asked}"), and your plan only reads' in note
    assert "if they asked to choose among what is stored, give the same plan" in note


def test_a_recipe_saved_but_never_thought_up_for_something_new_is_asked_for_again():
    """For "save me a simple omelette recipe" the 1.5B local model planned a recipe created
    "as the user gave them" (they gave none); Act's create was refused as made up."""
    inline = plan(step("write"))
    message = "save me a simple omelette recipe"
    assert invents_nothing(inline, message) == message
    note = ask_again(inline, message, FRIDAY)
    assert note is not None and "your plan saves a recipe nothing has thought up" in note
    dictated = "save my gran's scone recipe: 250 g flour, 50 g butter, bake 12 minutes"
    assert ask_again(inline, dictated, FRIDAY) is None  # the user gave it
    assert invents_nothing(plan(step("generate"), step("write", 1)), message) is None


def test_a_recipe_still_saved_unmade_for_something_new_is_thought_up():
    """Asked again, the 1.5B local model planned the omelette created "as the user gave
    them" once more; Act would refuse it as made up."""
    inline = plan(step("write"), step("write", 0, "shopping"))
    held = thought_up(inline, "save me a simple omelette recipe")
    assert [(s.step_type, s.subdomain) for s in held.steps] == [
        ("generate", "recipes"),
        ("write", "shopping"),
    ]
    assert thought_up(inline, "save my scone recipe: flour, butter") == inline  # dictated
    made = plan(step("generate"), step("write", 1))
    assert thought_up(made, "save me a simple omelette recipe") == made


def test_a_saved_recipe_still_changed_by_a_recipe_thought_up_is_written_instead():
    """Asked again, the 1.5B local model planned "swap the spinach in the dal for kale" as
    the saved dal revised by its made-up gen ref once more; nothing unsaved was there."""
    message = "swap the spinach in the dal for kale"
    revised = plan(step("read"), step("generate", 1))
    held = written_instead(revised, message, [], names_recipe=True)
    assert [(s.step_type, s.subdomain) for s in held.steps] == [
        ("read", "recipes"),
        ("write", "recipes"),
    ]
    assert written_instead(revised, message, ["gen_recipe_1"], True) == revised  # to revise
    saved = plan(step("generate"), step("write", 1))  # writes recipes itself
    assert written_instead(saved, message, [], True) == saved
    new = "come up with a kale dal"  # asks for something new
    assert written_instead(revised, new, [], True) == revised


@pytest.mark.parametrize(
    ("think", "message"),
    [
        (plan(step("read"), step("generate", 1)), "invent a spicy cod dish"),
        (plan(step("read", subdomain="inventory")), "what's in my fridge?"),
        (plan(step("read")), "which of my recipes is quickest?"),
    ],
)
def test_a_plan_that_generates_or_a_lookup_is_not_asked_for_something_new(
    think: ThinkOutput, message: str
):
    assert invents_nothing(think, message) is None
    assert ask_again(think, message, FRIDAY) is None


@pytest.mark.parametrize(
    "message",
    [
        "what's planned for dinner next Monday?",
        "which recipes have I saved?",
        "show my tasks",
        "anything i need to do this week?",  # the 1.5B planned tasks for every day
    ],
)
def test_a_plan_that_writes_for_a_question_is_asked_for_again(message: str):
    writing = plan(step("read", subdomain="meal_plans"), step("write", 1, "meal_plans"))
    assert writes_unasked(writing, message)
    note = ask_again(writing, message, FRIDAY)
    assert note == lookup_note(writing)
    assert "not to change anything, and your plan writes:\n- group 0, read" in note


@pytest.mark.parametrize(
    ("message", "named"),
    [
        ("anything i need to do this week?", ("tasks",)),  # the 1.5B read the meal plans
        ("what's in the freezer?", ("inventory",)),
        ("which recipes use chickpeas?", ("recipes",)),
    ],
)
def test_a_question_read_elsewhere_than_its_words_say_is_asked_for_again(
    message: str, named: tuple[str, ...]
):
    elsewhere = plan(step("read", subdomain="meal_plans"))
    assert looks_elsewhere(elsewhere, message) == named
    note = ask_again(elsewhere, message, FRIDAY)
    assert note == elsewhere_note(elsewhere, named)
    assert note.startswith(f"The request asks about {named[0]}, and your plan reads only meal_")


def test_a_question_about_a_saved_recipe_read_elsewhere_is_asked_for_again():
    """For "does the dal have spinach in it" (the dashboard names the Red Lentil Dal) the
    1.5B local model read the inventory's spinach and said the dal had none."""
    message = "does the dal have spinach in it"
    stock = plan(step("read", subdomain="inventory"))
    assert looks_elsewhere(stock, message, names_recipe=True) == ("recipes",)
    assert ask_again(stock, message, FRIDAY, names_recipe=True) == elsewhere_note(
        stock, ("recipes",)
    )
    assert looks_elsewhere(stock, message) == ()  # no saved recipe named: no place
    both = plan(step("read", subdomain="recipes"), step("read", subdomain="inventory"))
    assert looks_elsewhere(both, message, names_recipe=True) == ()
    cooked = "cook the dal tonight"  # a change: another rule's
    assert looks_elsewhere(stock, cooked, names_recipe=True) == ()
    planned = plan(step("read", subdomain="meal_plans"))  # its rows name their recipes
    assert looks_elsewhere(planned, "when are we having the dal", names_recipe=True) == ()


def test_a_question_about_an_open_task_read_elsewhere_reads_the_tasks():
    """For "how many days till the plumber" (the dashboard names "Call the plumber") the 1.5B
    local model read the inventory for the plumber, twice."""
    message = "how many days till the plumber"
    stock = plan(step("read", subdomain="inventory"), step("analyze", 1, "inventory"))
    assert looks_elsewhere(stock, message, names_task=True) == ("tasks",)
    assert looks_elsewhere(stock, message) == ()  # no open task named
    assert ask_again(stock, message, FRIDAY, tasks=["Call the plumber"]) == elsewhere_note(
        stock, ("tasks",)
    )
    held = read_there(stock, message, 8, tasks=["Call the plumber"])
    assert [(s.description, s.subdomain, s.group) for s in held.steps][0] == (
        "Read the tasks",
        "tasks",
        0,
    )
    assert looks_elsewhere(stock, "push the plumber to friday", names_task=True) == ()  # a change


def test_a_question_still_read_elsewhere_when_asked_again_reads_where_its_words_say():
    """Told that "anything i need to do this week?" asks about the tasks, the 1.5B local
    model planned the meal plans' read again, and the user was told no meals were planned."""
    message = "anything i need to do this week?"
    elsewhere = plan(step("read", subdomain="meal_plans"), step("analyze", 1, "meal_plans"))
    held = read_there(elsewhere, message, max_steps=8)
    assert [(s.description, s.subdomain, s.group) for s in held.steps] == [
        ("Read the tasks", "tasks", 0),
        ("read it", "meal_plans", 0),
        ("analyze it", "meal_plans", 1),
    ]
    assert read_there(elsewhere, message, max_steps=2) == elsewhere  # no room: as it was
    known = plan(step("analyze", subdomain="recipes"))  # reads nothing: answers from what it knows
    assert read_there(known, "how long do eggs keep in the fridge?", 8) == known
    there = plan(step("read", subdomain="tasks"))
    assert read_there(there, message, max_steps=8) == there
    spinach = "does the dal have spinach in it"
    stock = plan(step("read", subdomain="inventory"))
    held = read_there(stock, spinach, 8, recipes=["Red Lentil Dal"])
    assert [(s.description, s.subdomain) for s in held.steps] == [
        ("Read the recipe Red Lentil Dal with its ingredients", "recipes"),
        ("read it", "inventory"),
    ]
    assert read_there(stock, spinach, 8) == stock  # no saved recipe named


def test_a_read_the_system_adds_carries_the_read_it_says():
    """Act runs it without a model (``act_rules.system_read``): given "Read the recipe Red
    Lentil Dal with its ingredients", the 1.5B local model read the inventory."""
    stock = plan(step("read", subdomain="inventory"))
    dal = read_there(stock, "does the dal have spinach in it", 8, recipes=["Red Lentil Dal"])
    named = [Filter(field="name", op="=", value="Red Lentil Dal")]
    assert dal.steps[0].read == DbRead(
        table="recipes", or_filters=named, columns=["*", "recipe_ingredients"]
    )
    assert dal.steps[1].read is None  # the model's own step
    week = plan(step("read", subdomain="meal_plans"))
    tasks = read_there(week, "anything i need to do this week?", max_steps=8)
    assert tasks.steps[0].read == DbRead(table="tasks")
    cumin = plan(written("Add a teaspoon of cumin to the Red Lentil Dal recipe"))
    first = read_first(cumin, "add cumin to the dal", ["Red Lentil Dal"], [], 8)
    assert first.steps[0].read == dal.steps[0].read


def test_a_write_that_adds_about_a_saved_recipe_named_reads_it_first():
    """For "add a teaspoon of cumin to the dal" the 1.5B local model planned one write; Act
    linked the cumin to a made-up ``gen_recipe_1`` and was refused twice: a row added
    about a recipe links it by its ref, and only a read gives it."""
    dal, words = ["Red Lentil Dal"], "add a teaspoon of cumin to the dal"
    cumin = plan(written("Add a teaspoon of cumin to the Red Lentil Dal recipe"))
    held = read_first(cumin, words, dal, known=[], max_steps=8)
    assert [(s.description, s.step_type, s.subdomain, s.group) for s in held.steps] == [
        ("Read the recipe Red Lentil Dal with its ingredients", "read", "recipes", 0),
        ("Add a teaspoon of cumin to the Red Lentil Dal recipe", "write", "recipes", 1),
    ]
    listed = plan(
        step("read", subdomain="inventory"),
        written("Add the missing ingredients to the shopping list", "shopping", 1),
    )
    assert groups(read_first(listed, words, dal, [], 8)) == [("read", 0), ("read", 1), ("write", 2)]
    friday = plan(written("Add Red Lentil Dal to the meal plan for Friday", "meal_plans"))
    assert groups(read_first(friday, "dal on friday", dal, [], 8)) == [("read", 0), ("write", 1)]
    alongside = plan(step("read", subdomain="inventory"), cumin.steps[0])  # not before it
    assert groups(read_first(alongside, words, dal, [], 8)) == [
        ("read", 0),
        ("read", 1),
        ("write", 1),
    ]
    # unchanged: the recipe read first, or shown already, or no saved recipe named, or a
    # write to rows already there or elsewhere, or a removal, or no room
    read = plan(step("read"), cumin.steps[0].model_copy(update={"group": 1}))
    assert read_first(read, words, dal, [], 8) == read
    assert read_first(cumin, words, dal, known=["red lentil dal"], max_steps=8) == cumin
    assert read_first(cumin, words, [], [], 8) == cumin
    for change in (
        written("Rename the dal to Tarka Dal"),
        written("Change the date of the Red Lentil Dal row to Wednesday", "meal_plans"),
        written("Delete the Dal row of Monday from the meal plan", "meal_plans"),
        written("Add a task to soak the lentils", "tasks"),
    ):
        assert read_first(plan(change), words, dal, [], 8) == plan(change), change.description
    assert read_first(friday, "take the dal off monday", dal, [], 8) == friday
    assert read_first(cumin, words, dal, [], max_steps=1) == cumin


def test_a_write_to_a_saved_recipe_that_scales_an_amount_reads_it_first():
    """For "make the dal serve 6 and double the lentils" the 1.5B local model planned one
    write and read nothing; the lentils stayed 200 g: a doubled amount is counted from
    the amount read."""
    words, dal = "make the dal serve 6 and double the lentils", ["Red Lentil Dal"]
    double = plan(written("Update the Red Lentil Dal to serve 6 and double the lentils"))
    assert groups(read_first(double, words, dal, [], 8)) == [("read", 0), ("write", 1)]
    assert read_first(double, "make the dal serve 6", dal, [], 8) == double  # the row's own


def test_an_analysis_of_a_saved_recipe_the_meal_plan_holds_reads_it_first():
    """For "what do i need to buy for mondays dinner" the 1.5B local model read the meal
    plan and the inventory, and made up the dal's ingredients in its analysis."""
    words, planned = "what do i need to buy for mondays dinner", ["Red Lentil Dal"]
    weigh = ThinkStep(
        description="List the ingredients needed for Red Lentil Dal from the meal plan",
        step_type="analyze",
        subdomain="recipes",
        group=1,
    )
    reads = [step("read", 0, "meal_plans"), step("read", 0, "inventory")]
    held = read_first(plan(*reads, weigh), words, [], [], 8, planned)
    assert groups(held) == [("read", 0), ("read", 1), ("read", 1), ("analyze", 2)]
    assert held.steps[0].read is not None and held.steps[0].read.table == "recipes"
    assert "Red Lentil Dal" in held.steps[0].description
    other = weigh.model_copy(update={"description": "List what the meals need"})
    assert read_first(plan(*reads, other), words, [], [], 8, planned) == plan(*reads, other)
    read = plan(step("read", 0, "recipes"), weigh)  # its read comes first already
    when = weigh.model_copy(update={"subdomain": "meal_plans"})  # the slots: their read
    assert read_first(plan(*reads, when), words, [], [], 8, planned) == plan(*reads, when)
    assert read_first(read, words, [], [], 8, planned) == read


def test_a_write_to_a_saved_recipe_for_an_amount_it_should_have_reads_it_first():
    """For "dal should be 250g lentils not 200" the 1.5B local model planned one write and
    read nothing; it set the dal's servings to 250, twice."""
    words, dal = "dal should be 250g lentils not 200", ["Red Lentil Dal"]
    fix = plan(written("Update the recipe for Red Lentil Dal to use 250g lentils instead of 200g"))
    assert groups(read_first(fix, words, dal, [], 8)) == [("read", 0), ("write", 1)]
    corn = "the dal could do with a tin of sweetcorn"  # what a dish lacks: its rows read too
    assert groups(read_first(fix, corn, dal, [], 8)) == [("read", 0), ("write", 1)]
    assert read_first(fix, "is the dal 250g lentils?", dal, [], 8) == fix  # a question
    to = "change the lentils in the dal to 300g"  # an amount set by a change verb
    assert groups(read_first(fix, to, dal, [], 8)) == [("read", 0), ("write", 1)]


def test_a_write_inside_a_saved_recipe_named_reads_it_first_a_removal_too():
    """For "the dal recipe shouldnt have onion in it, remove it" the 1.5B local model deleted
    the onion of a made-up ``gen_recipe_1``, refused twice: an ingredient row is found by
    its recipe's ref."""
    dal, words = ["Red Lentil Dal"], "the dal recipe shouldnt have onion in it, remove it"
    onion = plan(written("Remove the onion row from the Red Lentil Dal recipe"))
    assert groups(read_first(onion, words, dal, [], 8)) == [("read", 0), ("write", 1)]
    swap = plan(written("In the saved Red Lentil Dal recipe's ingredients, swap onion for leek"))
    assert groups(read_first(swap, "swap the onion in the dal for leek", dal, [], 8)) == [
        ("read", 0),
        ("write", 1),
    ]
    whole = plan(written("Delete the Red Lentil Dal recipe"))  # its own row: by its name
    assert read_first(whole, "delete the dal recipe", dal, [], 8) == whole
    serves = plan(written("Change the servings of the Red Lentil Dal recipe to 2"))
    assert read_first(serves, "the dal only serves 2", dal, [], 8) == serves


def test_chores_done_that_a_plan_leaves_out_are_asked_for_again():
    """For "done the oven and called the plumber", both tasks named, the 1.5B local model
    ticked off the plumber alone."""
    words, tasks = "done the oven and called the plumber", ["Clean the oven", "Call the plumber"]
    plumber = plan(written("Mark the task 'Call the plumber' as completed", "tasks"))
    assert tasks_left_out(plumber, words, tasks) == ["Clean the oven"]
    note = ask_again(plumber, words, FRIDAY, tasks=tasks)
    assert note is not None and note.startswith(
        "The request also names the task(s) 'Clean the oven', and your plan changes none"
    )
    assert "mark each as completed; if not, give the same plan" in note
    both = plan(
        written("Mark the task 'Call the plumber' as completed", "tasks"),
        written("Mark the oven cleaning as done", "tasks"),
    )
    assert tasks_left_out(both, words, tasks) == []
    # not chores done, one task named, or no task written: nothing to ask
    assert tasks_left_out(plumber, "push the oven and the plumber to friday", tasks) == []
    assert tasks_left_out(plumber, words, ["Call the plumber"]) == []
    assert tasks_left_out(plan(step("read", subdomain="tasks")), words, tasks) == []


def test_a_recipe_thought_up_that_the_words_ask_to_save_is_saved():
    """For "give me a banana bread recipe and save it" the 1.5B local model planned a read,
    an analysis and the recipe, and nothing saved it."""
    words = "give me a banana bread recipe and save it"
    made = plan(step("read"), step("analyze", 1), step("generate", 2))
    held = saved_too(made, words, max_steps=8)
    assert [(s.step_type, s.subdomain, s.group) for s in held.steps][-1] == ("write", "recipes", 3)
    assert held.steps[-1].description == (
        "Save the generated recipe (its gen_ ref) to the recipes, with its ingredients"
    )
    assert held.steps[:3] == made.steps
    assert saved_too(made, "invent a cod dish, then keep it", 8).steps[-1].step_type == "write"
    assert saved_too(made, "save me a simple omelette recipe", 8).steps[-1].step_type == "write"
    # unchanged: saved already, not asked to save, nothing thought up, or no room
    both = plan(step("generate"), step("write", 1))
    assert saved_too(both, words, 8) == both
    beside = plan(step("generate"), step("write"))  # runs after it all the same
    assert saved_too(beside, words, 8) == beside
    assert saved_too(made, "give me a banana bread recipe", 8) == made
    only_read = plan(step("read"))
    assert saved_too(only_read, words, 8) == only_read
    assert saved_too(made, words, max_steps=3) == made


@pytest.mark.parametrize(
    ("think", "message"),
    [
        # reads one of the places named
        (plan(step("read", subdomain="tasks")), "anything i need to do this week?"),
        (
            plan(step("read", subdomain="inventory"), step("analyze", 1, "recipes")),
            "which recipes can I make from what's in the fridge?",
        ),
        # names no place, or asks for a change (another rule's), or writes
        (plan(step("read", subdomain="meal_plans")), "is the milk still good?"),
        (plan(step("read", subdomain="meal_plans")), "add the dal to my to-do list"),
        (plan(step("write", subdomain="tasks")), "show my chores"),
    ],
)
def test_a_question_read_where_its_words_say_or_naming_nowhere_is_not_asked_where(
    think: ThinkOutput, message: str
):
    assert looks_elsewhere(think, message) == ()


def test_a_plan_that_still_writes_for_a_question_keeps_its_reads_and_analyses():
    insisted = plan(
        step("read", subdomain="tasks"),
        step("analyze", 1, "tasks"),
        step("generate", 2, "tasks"),
        step("write", 3, "tasks"),
    ).model_copy(update={"decision": "propose", "proposal_message": "Shall I?"})
    kept = only_reads(insisted)
    assert [s.step_type for s in kept.steps] == ["read", "analyze"]
    assert (kept.decision, kept.proposal_message) == ("plan_direct", None)
    writes_only = plan(step("write", subdomain="meal_plans"))
    assert only_reads(writes_only) == writes_only  # nothing to answer with: as it was
    assert only_reads(writes_only, "whats for dinner") == writes_only  # no place named


def test_a_question_planned_only_as_writes_reads_where_its_words_say():
    """For "anything i need to do in the next 2 days" the 1.5B local model planned one
    write of three meals."""
    meals = plan(step("write", subdomain="meal_plans"))
    held = only_reads(meals, "anything i need to do in the next 2 days")
    assert [(s.description, s.step_type, s.subdomain, s.group) for s in held.steps] == [
        ("Read the tasks", "read", "tasks", 0)
    ]
    assert held.steps[0].read == DbRead(table="tasks")  # the system's, no model
    assert held.decision == "plan_direct"


def test_a_plan_that_thinks_something_up_for_a_lookup_keeps_its_reads_and_analyses():
    """For "whats for lunch tomorrow" the 1.5B local model read the meal plan, then
    generated a lunch of Red Lentil Dal, and Reply told the user it was planned."""
    lunch = plan(
        step("read", subdomain="meal_plans"),
        step("analyze", 1, "recipes"),
        step("generate", 2, "meal_plans"),
    )
    assert generates_unasked(lunch, "whats for lunch tomorrow")
    assert [s.step_type for s in only_reads(lunch).steps] == ["read", "analyze"]
    # a question that asks for ideas; a change; a plan that writes (writes_unasked's); a
    # plan with nothing read to answer from
    assert not generates_unasked(lunch, "what could we have for lunch tomorrow")
    assert not generates_unasked(lunch, "plan lunch for tomorrow")
    saved = plan(step("read"), step("generate", 1), step("write", 2))
    assert not generates_unasked(saved, "which recipes have I saved?")
    assert not generates_unasked(plan(step("generate")), "whats for lunch tomorrow")


def test_a_question_naming_a_day_is_asked_about_its_writes_not_its_meal_plan():
    question = "what could I cook on tuesday?"
    assert unplanned_meal(A_RECIPE_FOR_A_DAY, question, FRIDAY) == []
    assert ask_again(A_RECIPE_FOR_A_DAY, question, FRIDAY) == lookup_note(A_RECIPE_FOR_A_DAY)


@pytest.mark.parametrize(
    ("think", "message"),
    [
        (plan(step("read", subdomain="meal_plans")), "what's planned for dinner next Monday?"),
        (plan(step("generate")), "what could I cook tonight?"),  # unsaved: nothing written
        (plan(step("write", subdomain="shopping")), "can you add milk to my list?"),
        (plan(step("write", subdomain="shopping")), "add milk"),
    ],
)
def test_a_plan_that_answers_a_question_or_a_write_asked_for_is_not_asked_again(
    think: ThinkOutput, message: str
):
    assert not writes_unasked(think, message)
    assert ask_again(think, message, FRIDAY) is None


def test_a_plan_that_only_reads_is_asked_for_its_change_first():
    reads = plan(step("read"))
    assert ask_again(reads, "i'd like the dal on tuesday", FRIDAY) == replan_note(
        reads, "i'd like the dal on tuesday"
    )
    without_a_clock = ask_again(A_RECIPE_FOR_A_DAY, "i'd like the dal on tuesday", None)
    assert without_a_clock == home_note(
        A_RECIPE_FOR_A_DAY, "i'd like the dal on tuesday", ("meal_plans",)
    )


SHOPPING_FROM_THE_CALENDAR = plan(
    step("read", subdomain="meal_plans"),
    step("read", subdomain="inventory"),
    step("analyze", 1, "shopping"),
    step("write", 2, "shopping"),
)


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        (
            "plan my dinners for next week and put what I need for them on my shopping list",
            "plan my dinners",
        ),
        ("sort out lunches for the work week", "sort out lunches"),
        ("make me a meal plan", "make me a meal plan"),
    ],
)
def test_a_plan_that_puts_no_meal_in_the_meal_plan_for_meals_to_plan_is_asked_again(
    message: str, asked: str
):
    """The 1.5B local model planned only the shopping, from the meal plan already there."""
    assert meals_unplanned(SHOPPING_FROM_THE_CALENDAR, message) == asked
    note = ask_again(SHOPPING_FROM_THE_CALENDAR, message, FRIDAY)
    assert note == meals_note(SHOPPING_FROM_THE_CALENDAR, asked)
    assert note.startswith(f'The request asks for meals to be planned ("{asked}")')
    assert ask_again(SHOPPING_FROM_THE_CALENDAR, message, FRIDAY, answered=True) is None


@pytest.mark.parametrize(
    ("message", "think"),
    [
        ("plan my dinners for next week", MEALS_PLAN),  # it plans them
        ("what's planned for dinner?", SHOPPING_FROM_THE_CALENDAR),  # no meals to plan
        ("i want to plan my shopping", SHOPPING_FROM_THE_CALENDAR),
        ("make me a meal plan", as_question(MEALS_PLAN, WHICH_DAYS)),
    ],
)
def test_a_plan_with_meals_planned_or_words_that_ask_for_none_is_not_asked_again(
    message: str, think: ThinkOutput
):
    assert meals_unplanned(think, message) is None


def test_a_plan_that_moves_dates_from_their_own_reads_them_first():
    """For "push everything on my todo list back a week" the 1.5B local model planned two
    writes, each "to" the date the task already had: a date moved from its own needs it
    read, and the write step is then shown each date moved (``dates_moved``)."""
    words = "push everything on my todo list back a week"
    moved = plan(
        written("Move the Clean the oven task a week later", "tasks"),
        written("Move the Call the plumber task a week later", "tasks"),
    )
    held = read_moved(moved, words, max_steps=8)
    assert [(s.description, s.step_type, s.subdomain, s.group) for s in held.steps] == [
        ("Read the tasks", "read", "tasks", 0),
        ("Move the Clean the oven task a week later", "write", "tasks", 1),
        ("Move the Call the plumber task a week later", "write", "tasks", 1),
    ]
    assert held.steps[0].read == DbRead(table="tasks")  # run by the system, no model
    both = plan(
        step("read", subdomain="inventory"),
        written("Move Monday's dal a day later", "meal_plans", 1),
        written("Move the oven a day later", "tasks", 1),
    )
    assert [(s.subdomain, s.group) for s in read_moved(both, "all a day later", 8).steps] == [
        ("meal_plans", 0),
        ("tasks", 0),
        ("inventory", 1),
        ("meal_plans", 2),
        ("tasks", 2),
    ]
    # unchanged: the place read first, words that move nothing, a write with no dates, no room
    read = plan(step("read", subdomain="tasks"), moved.steps[0].model_copy(update={"group": 1}))
    assert read_moved(read, words, 8) == read
    assert read_moved(moved, "move the oven to friday", 8) == moved
    listed = plan(written("Add bread to the list", "shopping"))
    assert read_moved(listed, "get bread, and push the rest back a week", 8) == listed
    assert read_moved(moved, words, max_steps=2) == moved


def test_things_got_that_are_open_on_the_list_are_ticked_off_too():
    """For "bought the olive oil and bread, both in the pantry now" the 1.5B local model
    put both in the pantry, and the list kept them open."""
    words, listed = "bought the olive oil and bread, both in the pantry now", ["olive oil", "bread"]
    stocked = plan(written("Add olive oil and bread to the inventory, in the pantry", "inventory"))
    held = ticked_too(stocked, words, listed, max_steps=8)
    assert [(s.description, s.step_type, s.subdomain, s.group) for s in held.steps] == [
        ("Add olive oil and bread to the inventory, in the pantry", "write", "inventory", 0),
        ("Mark olive oil and bread as bought on the shopping list", "write", "shopping", 0),
    ]
    # unchanged: the list written already, nothing on it named, nothing got, nothing
    # written (a question), no room
    ticked = plan(written("Mark the olive oil as bought", "shopping"))
    assert ticked_too(ticked, words, listed, 8) == ticked
    assert ticked_too(stocked, words, [], 8) == stocked
    assert ticked_too(stocked, "put the olive oil in the pantry", listed, 8) == stocked
    assert ticked_too(stocked, "found a bottle of olive oil in the cupboard", listed, 8) == stocked
    read = plan(step("read", subdomain="shopping"))
    assert ticked_too(read, "bought the olive oil?", listed, 8) == read
    assert ticked_too(stocked, words, listed, max_steps=1) == stocked


@pytest.mark.parametrize(
    "message",
    ["the eggs actually go off on thursday", "we have 12 eggs now", "eggs are in the pantry"],
)
def test_a_plan_that_adds_a_thing_held_for_words_that_add_none_is_asked_again(message: str):
    """For "the eggs actually go off on thursday" the 1.5B local model planned "Add to the
    inventory one row: eggs (1 carton)"."""
    adds = plan(written("Add to the inventory one row: eggs (1 carton)", "inventory"))
    assert adds_held(adds, message, ["eggs"]) == ["eggs"]
    note = ask_again(adds, message, FRIDAY, stocked=["eggs"])
    assert note == held_note(adds, ["eggs"])
    assert note.startswith(
        "The request adds nothing: it says something of eggs, which the inventory holds, "
        "and your plan adds rows there:\n- group 0, write (inventory): Add to the inventory"
    )


def test_a_plan_that_adds_what_the_words_add_or_changes_what_is_held_is_not_asked_again():
    adds = plan(written("Add to the inventory one row: eggs (1 carton)", "inventory"))
    assert adds_held(adds, "bought 6 more eggs", ["eggs"]) == []  # words that add
    assert adds_held(adds, "put the eggs in the fridge", ["eggs"]) == []
    assert adds_held(adds, "the eggs go off on thursday", []) == []  # none held
    change = plan(written("Set the expiry date of the eggs row to Thursday", "inventory"))
    assert adds_held(change, "the eggs go off on thursday", ["eggs"]) == []
    listed = plan(written("Add eggs to the shopping list", "shopping"))
    assert adds_held(listed, "the eggs go off on thursday", ["eggs"]) == []
