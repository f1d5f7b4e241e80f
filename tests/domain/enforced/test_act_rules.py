"""Specification of the rules the system holds Act's decisions to (seed 004: models
interpret, the system enforces; issue 28 §3)."""

from __future__ import annotations

import pytest

from domain.conversation import (
    BypassSession,
    ConversationState,
    Exchange,
    LandedHandoff,
    StepResult,
    TurnRecord,
)
from domain.crud.calls import HELD_ALREADY, DbRead, Filter, cut_short
from domain.enforced.act_rules import (
    ActFacts,
    act_facts,
    by_ref,
    completion_note,
    created_a_copy,
    created_beside,
    created_for_a_change,
    dated_ids,
    hold_act,
    idle_read,
    moved_as_said,
    moved_elsewhere,
    named_meal,
    others_read,
    read_its_own,
    read_made,
    read_within,
    reread_note,
    system_read,
    uncalled_note,
    unchanged,
    unchanged_block,
    unfit_recipes,
    unknown_refs,
    unlinked,
    unmatched_note,
    unnamed_meal,
    updated_for_a_removal,
    updated_for_an_add,
    with_ingredients,
)
from domain.nodes import ActDecision, ThinkStep, ToolCall
from domain.step_checks import ALREADY_DONE
from domain.tool_results import ToolEntry
from tests.domain.enforced.helpers import read_entry, step
from tests.domain.kitchen.reads import read

# --- a call that repeats the step's last call ends the step --------------------------------

READ = ToolCall(tool="db_read", params={"table": "recipes", "filters": [], "limit": 50})


def test_the_same_read_again_completes_the_step_with_what_it_found():
    found = read_entry(dict(reversed(READ.params.items())), table="recipes", count=2, rows=[])
    held = hold_act(ActDecision(action="tool_call", tool_call=READ), [found], ActFacts())
    assert held.action == "step_complete"
    assert held.result_summary == "Read 2 row(s) from recipes."


def test_the_same_read_again_after_its_limit_cut_it_short_reads_every_matching_row():
    """For "how much lentils go in the dal" the 1.5B read the dal's three ingredients with
    limit 1, twice, and said the dal calls for 1 onion."""
    params = {"table": "recipe_ingredients", "filters": [], "limit": 1}
    cut = read_entry(dict(params), count=1, rows=[{"name": "onion"}], notes=[cut_short(1, 3)])
    again = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_read", params=params))
    held = hold_act(again, [cut], ActFacts())
    assert held.tool_call is not None and held.tool_call.params == {**params, "limit": 3}
    whole = read_entry({**params, "limit": 3}, count=3, rows=[{}, {}, {}])
    sent = ActDecision(action="tool_call", tool_call=held.tool_call)
    assert hold_act(sent, [cut, whole], ActFacts()).action == "step_complete"
    # the cut read a third time, after the whole one: the step ends with the whole read
    third = hold_act(again, [cut, whole], ActFacts())
    assert third.action == "step_complete"
    assert third.result_summary == "Read 3 row(s) from recipe_ingredients."


def test_a_write_step_that_reads_again_what_it_read_is_sent_back_to_write():
    """The 1.5B local model, asked to put butter and flour on the list, read the list
    (empty) in its write step, then sent the same read again."""
    empty = read_entry(dict(READ.params), table="recipes", count=0, rows=[])
    again = ActDecision(action="tool_call", tool_call=READ)
    note = reread_note(again, [empty], step("write", 1))
    assert note is not None and note.startswith(
        "not run: this step made this exact read already (it found no row)."
    )
    assert "This step is a write to recipes: send the db_create" in note
    found = read_entry(dict(READ.params), table="recipes", count=2, rows=[{}, {}])
    assert "it found 2 row(s), shown above" in (reread_note(again, [found], step("write", 1)) or "")


@pytest.mark.parametrize(
    ("kind", "earlier"),
    [
        ("read", [read_entry(dict(READ.params), count=0)]),  # a read step: its read stands
        ("write", []),  # the step's first read
        ("write", [read_entry({"table": "recipes", "filters": [], "limit": 5}, count=0)]),
        ("write", [read_entry(dict(READ.params), error="bad filter")]),  # refused: a retry
        (
            "write",
            [
                read_entry(dict(READ.params), count=0),
                ToolEntry(tool="db_create", params={"table": "recipes"}, count=1),
            ],
        ),  # it has written: reading back is its own business
    ],
)
def test_other_reads_are_not_sent_back(kind: str, earlier: list[ToolEntry]):
    again = ActDecision(action="tool_call", tool_call=READ)
    assert reread_note(again, earlier, step(kind, 1)) is None


def test_the_same_write_again_completes_the_step_saying_what_it_wrote():
    create = ToolCall(tool="db_create", params={"table": "tasks", "data": [{"title": "Defrost"}]})
    made = ToolEntry(
        tool="db_create", params=create.params, table="tasks", count=1, rows=[{"title": "Defrost"}]
    )
    held = hold_act(ActDecision(action="tool_call", tool_call=create), [made], ActFacts())
    assert held.action == "step_complete" and "Defrost" in (held.result_summary or "")


MEALS = [
    {"id": "gen_meal_1", "date": "2026-11-30", "meal_type": "dinner", "recipe_id": "recipe_1"},
    {"id": "gen_meal_2", "date": "2026-12-01", "meal_type": "dinner", "recipe_id": "recipe_2"},
]


def test_a_write_step_that_has_written_completes_at_its_last_allowed_call():
    """For "we are doing pasta on friday night" the 1.5B local model planned Friday's
    pasta, then linked it to "meal_1" as its recipe, refused twice: the step's call limit
    stopped it, and the reply told the user it could not help."""
    pasta = {"date": "2026-12-04", "meal_type": "dinner", "notes": "pasta"}
    read = ToolEntry(tool="db_read", params={"table": "recipes"}, table="recipes", count=0)
    made = ToolEntry(
        tool="db_create", params={"table": "meal_plans", "data": [pasta]}, table="meal_plans",
        count=1, rows=[{"id": "meal_1", **pasta}],
    )  # fmt: skip
    linked = {"table": "meal_plans", "data": [{**pasta, "recipe_id": "meal_1"}]}
    refused = ToolEntry(tool="db_create", params=linked, error="'meal_1' is a ref to meal_plans")
    again = ToolCall(tool="db_update", params={"table": "meal_plans", "filters": []})
    step = ThinkStep(description="Add pasta", step_type="write", subdomain="meal_plans", group=0)
    facts = ActFacts(step=step)
    held = hold_act(ActDecision(action="tool_call", tool_call=again), [read, made, refused], facts)
    assert held.action == "step_complete"
    assert held.result_summary is not None
    assert held.result_summary.endswith("I stopped there: nothing more was changed.")
    assert "pasta" in held.result_summary.lower()
    ask = ActDecision(action="tool_call", tool_call=again)
    assert hold_act(ask, [made, refused], facts) == ask  # a call left
    assert hold_act(ask, [read, read, refused], facts) == ask  # nothing written: the breaker's
    reading = ActFacts(step=step.model_copy(update={"step_type": "read"}))
    assert hold_act(ask, [read, made, refused], reading) == ask


def test_the_rows_it_created_sent_again_without_their_refs_complete_the_step():
    """The 1.5B local model saved two generated meals by their refs, then sent the same
    rows without them: a second create would have put each meal in the plan twice."""
    saved = {"table": "meal_plans", "data": MEALS}
    made = ToolEntry(tool="db_create", params=saved, table="meal_plans", count=2, rows=MEALS)
    bare = [{k: v for k, v in row.items() if k != "id"} for row in MEALS]
    again = ToolCall(tool="db_create", params={"table": "meal_plans", "data": bare})
    held = hold_act(ActDecision(action="tool_call", tool_call=again), [made], ActFacts())
    assert held.action == "step_complete"


@pytest.mark.parametrize(
    "params",
    [
        {"table": "meal_plans", "data": [{**MEALS[0], "id": None, "date": "2026-12-02"}]},
        {"table": "meal_plans", "data": [{**m, "meal_type": "lunch"} for m in MEALS]},
        {"table": "shopping_list", "data": MEALS},
    ],
    ids=["other-rows", "other-values", "other-table"],
)
def test_other_rows_are_created_after_a_create(params):
    made = ToolEntry(
        tool="db_create", params={"table": "meal_plans", "data": MEALS}, count=2, rows=MEALS
    )
    decision = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_create", params=params))
    assert hold_act(decision, [made], ActFacts()) == decision


@pytest.mark.parametrize(
    ("table", "made", "again"),
    [
        (  # created, its notes updated, then created again with the notes
            "meal_plans",
            [{"date": "2026-11-30", "meal_type": "dinner", "recipe_id": "recipe_1"}],
            [{"date": "2026-11-30", "meal_type": "dinner", "recipe_id": "recipe_1", "notes": "x"}],
        ),
        (  # the same recipe again, its ingredients' categories filled in
            "recipes",
            [{"name": "Quick Dinner", "recipe_ingredients": [{"name": "feta", "category": None}]}],
            [
                {
                    "name": "quick dinner ",
                    "recipe_ingredients": [{"name": "feta", "category": "dairy"}],
                }
            ],
        ),
        ("meal_plans", MEALS, [{**MEALS[1], "id": None}]),  # one of the rows it created
        (  # saved by its gen ref, then written out as "… with Feta" (the 1.5B)
            "recipes",
            [{"name": "Quick Vegetarian Dinner", "servings": 2}],
            [{"name": "Quick Vegetarian Dinner with Feta", "servings": 2}],
        ),
        (  # logged for last night, then for today (the 1.5B)
            "cooking_log",
            [{"recipe_id": "recipe_1", "cooked_at": "2026-12-01T00:00:00Z", "rating": 5}],
            [{"recipe_id": "recipe_1", "cooked_at": "2026-12-02T00:00:00Z", "rating": 5}],
        ),
    ],
    ids=[
        "meal-with-notes",
        "recipe-with-categories",
        "one-of-them",
        "recipe-and-more-words",
        "a-dish-logged-twice",
    ],
)
def test_a_create_of_rows_the_step_has_created_completes_the_step(table, made, again):
    """Whatever else the step did in between, and whatever their other columns say."""
    created = ToolEntry(
        tool="db_create", params={"table": table, "data": made}, table=table, count=1, rows=made
    )
    edited = ToolEntry(tool="db_update", params={"table": table, "changes": []}, count=1)
    call = ToolCall(tool="db_create", params={"table": table, "data": again})
    held = hold_act(ActDecision(action="tool_call", tool_call=call), [created, edited], ActFacts())
    assert held.action == "step_complete" and held.result_summary


@pytest.mark.parametrize(
    "again",
    [
        [{"date": "2026-11-30", "meal_type": "lunch", "recipe_id": "recipe_1"}],  # another meal
        [MEALS[0], {**MEALS[0], "date": "2026-12-03"}],  # one new row among them
        [{"meal_type": "dinner"}],  # no date to tell
    ],
    ids=["another-meal", "a-new-row-too", "no-identity"],
)
def test_a_create_with_a_row_the_step_has_not_created_runs(again):
    created = ToolEntry(
        tool="db_create", params={"table": "meal_plans", "data": MEALS}, count=2, rows=MEALS
    )
    call = ToolCall(tool="db_create", params={"table": "meal_plans", "data": again})
    decision = ActDecision(action="tool_call", tool_call=call)
    assert hold_act(decision, [created], ActFacts()) == decision


MUM = {"title": "Call my mother", "due_date": "2026-12-05"}


def test_a_create_of_rows_an_earlier_step_created_completes_the_step_and_says_so():
    """Even sent as it was then: one task a step, the first step made both."""
    dentist = {"title": "Book the dentist", "due_date": "2026-11-30"}
    earlier, later = (
        ToolEntry(
            tool="db_create",
            params={"table": "tasks", "data": [row]},
            table="tasks",
            count=1,
            rows=[row],
        )
        for row in (MUM, dentist)
    )
    facts = ActFacts(message="add call mum on saturday", earlier=(earlier, later))
    call = ToolCall(tool="db_create", params={"table": "tasks", "data": [MUM]})
    held = hold_act(ActDecision(action="tool_call", tool_call=call), [], facts)
    assert held.action == "step_complete"
    assert held.result_summary.startswith("Nothing more was created; an earlier step")
    assert "Call my mother" in held.result_summary  # the create that made it, not the last


def test_the_facts_hold_the_earlier_steps_successful_creates_only():
    made = ToolEntry(tool="db_create", params={"table": "tasks", "data": [MUM]}, count=1)
    refused = ToolEntry(tool="db_create", params={"table": "tasks", "data": [MUM]}, error="no")
    read = read_entry({"table": "tasks"}, count=2, rows=[])
    prior = StepResult(
        step_index=0,
        description="x",
        step_type="write",
        subdomain="tasks",
        tool_results=[read, refused, made],
    )
    assert act_facts("hi", ConversationState(), {}, [prior], []).earlier == (made,)


def test_a_create_of_another_row_after_an_earlier_step_runs():
    earlier = ToolEntry(tool="db_create", params={"table": "tasks", "data": [MUM]}, count=1)
    dentist = {"title": "Book the dentist", "due_date": "2026-11-30"}
    call = ToolCall(tool="db_create", params={"table": "tasks", "data": [MUM, dentist]})
    decision = ActDecision(action="tool_call", tool_call=call)
    assert hold_act(decision, [], ActFacts(earlier=(earlier,))) == decision


PROFILE = {"id": "pref_1", "allergies": ["peanuts"], "disliked_ingredients": ["Peanuts"]}
SAVED = ToolEntry(
    tool="db_create",
    params={"table": "preferences", "data": [{"allergies": ["peanuts"]}]},
    table="preferences",
    count=1,
    rows=[PROFILE],
)
CHICKPEAS = {"id": "inv_1", "name": "chickpeas", "quantity": 2, "location": "pantry"}
ADDED = ToolEntry(
    tool="db_create",
    params={"table": "inventory", "data": [{"name": "chickpeas"}]},
    table="inventory",
    count=1,
    rows=[CHICKPEAS],
)
BY_NAME = [{"field": "name", "op": "=", "value": "Chickpeas"}]


@pytest.mark.parametrize(
    ("tool", "params", "written"),
    [
        (  # the 1.5B local model: the allergy saved, then the same columns set again
            "db_update",
            {"table": "preferences", "data": {"disliked_ingredients": ["peanuts"]}},
            SAVED,
        ),
        (
            "db_create",
            {
                "table": "preferences",
                "data": [{"allergies": ["Peanuts"], "disliked_ingredients": ["peanuts"]}],
            },
            SAVED,
        ),
        (
            "db_update",
            {"table": "inventory", "filters": BY_NAME, "data": {"location": "Pantry "}},
            ADDED,
        ),
    ],
    ids=["profile-update", "profile-create", "rows-it-wrote"],
)
def test_a_write_of_values_the_rows_just_written_hold_completes_the_step(tool, params, written):
    call = ToolCall(tool=tool, params=params)
    held = hold_act(ActDecision(action="tool_call", tool_call=call), [written], ActFacts())
    assert held.action == "step_complete" and held.result_summary


@pytest.mark.parametrize(
    ("params", "earlier"),
    [
        ({"table": "inventory", "filters": BY_NAME, "data": {"location": "fridge"}}, [ADDED]),
        (  # rows the step did not write
            {
                "table": "inventory",
                "filters": [{"field": "name", "op": "=", "value": "rice"}],
                "data": {"location": "pantry"},
            },
            [ADDED],
        ),
        (  # a filter this check cannot evaluate
            {
                "table": "inventory",
                "filters": [{"field": "quantity", "op": ">", "value": 1}],
                "data": {"location": "pantry"},
            },
            [ADDED],
        ),
        ({"table": "inventory", "data": {"location": "pantry"}}, [ADDED]),  # every row
        ({"table": "inventory", "filters": BY_NAME, "data": {"location": "pantry"}}, []),
        (  # read, not written
            {"table": "inventory", "filters": BY_NAME, "data": {"location": "pantry"}},
            [read_entry({"table": "inventory"}, table="inventory", count=1, rows=[CHICKPEAS])],
        ),
        ({"table": "preferences", "data": {"allergies": ["peanuts", "sesame"]}}, [SAVED]),
    ],
    ids=["other-value", "other-rows", "other-filter", "no-filter", "first", "read", "more"],
)
def test_a_write_that_changes_what_the_step_wrote_or_other_rows_runs(params, earlier):
    decision = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_update", params=params))
    assert hold_act(decision, earlier, ActFacts()) == decision


def test_rows_sent_without_their_refs_after_a_refused_create_are_the_retry():
    refused = ToolEntry(
        tool="db_create", params={"table": "meal_plans", "data": MEALS}, error="gen_meal_9?"
    )
    bare = [{k: v for k, v in row.items() if k != "id"} for row in MEALS]
    retry = ToolCall(tool="db_create", params={"table": "meal_plans", "data": bare})
    decision = ActDecision(action="tool_call", tool_call=retry)
    assert hold_act(decision, [refused], ActFacts()) == decision


@pytest.mark.parametrize(
    "earlier",
    [
        [],  # the first call
        [read_entry({**READ.params, "limit": 5}, error="unknown column")],  # a changed retry
        [read_entry(READ.params, count=2), read_entry({"table": "recipes", "limit": 5}, count=2)],
        [read_entry({**READ.params, "limit": 5}, count=2)],  # another read
    ],
    ids=["first", "changed-after-a-failure", "not-the-last-call", "other-params"],
)
def test_a_call_that_does_not_repeat_the_last_one_runs(earlier):
    decision = ActDecision(action="tool_call", tool_call=READ)
    assert hold_act(decision, earlier, ActFacts()) == decision


def test_the_same_call_again_after_it_was_refused_blocks_the_step_with_the_refusal():
    """The 1.5B local model read the profile filtered on a column it may not name four
    times over, each refused the same way, into the tool-call limit."""
    refused = read_entry(READ.params, error="filters[0].field: unknown column 'user_id'")
    held = hold_act(ActDecision(action="tool_call", tool_call=READ), [refused], ActFacts())
    assert (held.action, held.reason_code) == ("blocked", "refused_call")
    assert "unknown column 'user_id'" in (held.details or "")


def test_a_write_sent_again_after_it_was_refused_as_already_done_completes_the_step():
    """The 1.5B local model ticked the bread off, sent the same update again (refused:
    already done) and a third time: the step had done its write, and blocking it put the
    refusal, written for the model, in the user's reply."""
    bread = {"table": "shopping_list", "filters": [{"field": "name", "op": "=", "value": "bread"}]}
    tick = ToolCall(tool="db_update", params={**bread, "data": {"is_purchased": True}})
    ran = ToolEntry(
        tool="db_update",
        params=tick.params,
        table="shopping_list",
        count=1,
        rows=[{"name": "bread"}],
    )
    refused = ToolEntry(
        tool="db_update", params=tick.params, error=ALREADY_DONE.format(tool="db_update")
    )
    held = hold_act(ActDecision(action="tool_call", tool_call=tick), [ran, refused], ActFacts())
    assert held.action == "step_complete" and "bread" in (held.result_summary or "")
    unmet = ToolEntry(tool="db_update", params=tick.params, error="unknown column")
    blocked = hold_act(ActDecision(action="tool_call", tool_call=tick), [unmet], ActFacts())
    assert blocked.reason_code == "refused_call"  # nothing written: the refusal stands


EGGS = {"table": "inventory", "filters": [{"field": "name", "op": "=", "value": "eggs"}]}
TWO_EGGS = ToolEntry(
    tool="db_update",
    params={**EGGS, "data": {"quantity": 2}},
    table="inventory",
    count=1,
    rows=[{"name": "eggs", "quantity": 2}],
)
"""The eggs set from 6 to 2 ("used 4 eggs for the cake"), as the step's write ran."""


def test_a_refused_call_sent_again_after_the_step_wrote_completes_with_what_it_wrote():
    """The 1.5B local model set the eggs to 2 ("used 4 eggs", 6 held), then to 0 twice,
    refused (not an amount): blocking the step had Reply refuse, and the reply made
    without it showed the refusal, written for the model, to the user. (An update of the
    same rows is now held before it runs: ``set_before``; any other refused call sent
    again after the write is held so.)"""
    none_left = {"table": "inventory", "data": [{"name": "eggs", "quantity": 0}]}
    zero = ToolCall(tool="db_create", params=none_left)
    refused = ToolEntry(tool="db_create", params=none_left, error="0 is not an amount")
    decision = ActDecision(action="tool_call", tool_call=zero)
    held = hold_act(decision, [TWO_EGGS, refused], ActFacts())
    assert held.action == "step_complete"
    assert "eggs" in (held.result_summary or "")
    assert held.result_summary.endswith("A further addition was refused and not made.")


def test_an_update_setting_again_what_the_step_set_on_the_same_rows_completes_the_step():
    """ "Used 4 eggs for the cake", 6 held, planned as "the quantity read minus 4": the
    1.5B local model set the eggs to 2, then, shown 2, took 4 off again."""
    again = ToolCall(tool="db_update", params={**EGGS, "data": {"quantity": 1}})
    held = hold_act(ActDecision(action="tool_call", tool_call=again), [TWO_EGGS], ActFacts())
    assert held.action == "step_complete" and "eggs" in (held.result_summary or "")
    other_column = ToolCall(tool="db_update", params={**EGGS, "data": {"location": "pantry"}})
    milk = {**EGGS, "filters": [{"field": "name", "op": "=", "value": "milk"}]}
    other_rows = ToolCall(tool="db_update", params={**milk, "data": {"quantity": 1}})
    for call in (other_column, other_rows):  # another change: it runs
        decision = ActDecision(action="tool_call", tool_call=call)
        assert hold_act(decision, [TWO_EGGS], ActFacts()) == decision
    answered = ActFacts(message="change the amount of eggs I have\n(answered: 1)")
    correction = ActDecision(action="tool_call", tool_call=again)
    assert hold_act(correction, [TWO_EGGS], answered) == correction  # the user's own amount


def test_an_update_after_one_that_changed_no_value_is_no_change_made_twice():
    """For "milk's down to half" the 1.5B local model set the milk to the 1 l it held,
    then to 0.5: the second update is the change."""
    unchanged = TWO_EGGS.model_copy(update={"notes": [HELD_ALREADY]})
    again = ToolCall(tool="db_update", params={**EGGS, "data": {"quantity": 1}})
    decision = ActDecision(action="tool_call", tool_call=again)
    assert hold_act(decision, [unchanged], ActFacts()) == decision
    assert hold_act(decision, [TWO_EGGS], ActFacts()).action == "step_complete"


def test_a_made_up_quantity_set_on_rows_the_step_just_created_completes_the_step():
    """For "found a bottle of olive oil in the cupboard" the 1.5B local model created the
    oil (1 bottle), then set it to 2, then to 3; the reply said 1."""
    oil = {"name": "olive oil", "quantity": 1, "unit": "bottle"}
    made = ToolEntry(
        tool="db_create",
        params={"table": "inventory", "data": [oil]},
        table="inventory",
        count=1,
        rows=[{"id": "inv_4", **oil}],
    )
    by_name = {
        "table": "inventory",
        "filters": [{"field": "name", "op": "=", "value": "olive oil"}],
    }
    two = ActDecision(
        action="tool_call",
        tool_call=ToolCall(tool="db_update", params={**by_name, "data": {"quantity": 2}}),
    )
    found = ActFacts(message="found a bottle of olive oil in the cupboard")
    held = hold_act(two, [made], found)
    assert held == ActDecision(
        action="step_complete",
        result_summary="Added 1 item to your inventory: olive oil (1 bottle).",
    )
    said = ActFacts(message="found 2 bottles of olive oil")  # the user's own amount: it runs
    assert hold_act(two, [made], said) == two
    assert hold_act(two, [], found) == two  # nothing created: an update like any other
    where = by_name | {"data": {"location": "pantry"}}
    moved = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_update", params=where))
    assert hold_act(moved, [made], found) == moved  # no quantity set


def test_a_read_step_that_read_its_own_tables_completes_with_that_read_after_a_refused_call():
    """The 1.5B local model read the inventory, then sent a refused read of recipes by an
    inventory ref twice: blocking the step would have stopped the turn."""
    stock = read_entry({"table": "inventory"}, table="inventory", count=4)
    by_stock_ref = {"table": "recipes", "filters": [{"field": "ingredient_id", "op": "in"}]}
    refused = read_entry(by_stock_ref, error="unknown column 'ingredient_id'")
    again = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_read", params=by_stock_ref))
    inventory = ActFacts(
        step=ThinkStep(description="Read the inventory", step_type="read", subdomain="inventory")
    )
    held = hold_act(again, [stock, refused], inventory)
    assert held.action == "step_complete"
    assert held.result_summary == "Read 4 row(s) from inventory."
    recipes = ActFacts(
        step=ThinkStep(description="Read recipes", step_type="read", subdomain="recipes")
    )
    assert hold_act(again, [stock, refused], recipes).action == "blocked"  # not its own table


STOCK = {"table": "inventory", "filters": [], "columns": ["name", "location"], "limit": 50}
PANTRY = {**STOCK, "filters": [{"field": "location", "op": "=", "value": "pantry"}]}
ROWS = [{"name": "rice", "location": "pantry"}, {"name": "milk", "location": "fridge"}]
READ_STEP = ActFacts(
    step=ThinkStep(description="Read the inventory", step_type="read", subdomain="inventory")
)


def test_a_read_step_reading_part_of_what_it_read_whole_completes_with_the_whole_read():
    """The 1.5B local model read the whole inventory, then its pantry, its fridge and its
    pantry again, until the step's breaker stopped it."""
    whole = read_entry(STOCK, table="inventory", count=2, rows=ROWS)
    again = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_read", params=PANTRY))
    held = hold_act(again, [whole], READ_STEP)
    assert held.action == "step_complete"
    assert held.result_summary == "Read 2 row(s) from inventory."
    fewer = {**PANTRY, "columns": ["name"]}
    assert read_within(ToolCall(tool="db_read", params=fewer), [whole], READ_STEP.step) == whole
    empty = read_entry({"table": "inventory"}, table="inventory", count=0, rows=[])
    assert read_within(ToolCall(tool="db_read", params=PANTRY), [empty], READ_STEP.step) == empty


CUT = cut_short(2, 5)


@pytest.mark.parametrize(
    ("earlier", "params", "kind"),
    [
        (
            read_entry(PANTRY, table="inventory", count=1, rows=ROWS[:1]),
            STOCK,
            "read",
        ),  # a part first
        (read_entry(STOCK, table="inventory", count=2, rows=ROWS, notes=[CUT]), PANTRY, "read"),
        (read_entry(STOCK, table="inventory", error="bad column"), PANTRY, "read"),  # refused
        (
            read_entry(STOCK, table="inventory", count=2, rows=ROWS),
            {**PANTRY, "columns": ["expiry_date"]},
            "read",
        ),
        (
            read_entry(STOCK, table="inventory", count=2, rows=ROWS),
            {**PANTRY, "columns": None},
            "read",
        ),
        (
            read_entry(STOCK, table="inventory", count=2, rows=ROWS),
            {**PANTRY, "table": "shopping_list"},
            "read",
        ),
        (
            read_entry(STOCK, table="inventory", count=2, rows=ROWS),
            PANTRY,
            "write",
        ),  # a write step reads to aim
    ],
)
def test_a_read_that_can_show_what_the_step_has_not_seen_runs(
    earlier: ToolEntry, params: dict, kind: str
):
    facts = ActFacts(step=step(kind, subdomain="inventory"))
    call = ToolCall(tool="db_read", params=params)
    assert read_within(call, [earlier], facts.step) is None


def test_only_tool_calls_are_held():
    done = ActDecision(action="step_complete", result_summary="Two recipes")
    assert hold_act(done, [read_entry(READ.params, count=2)], ActFacts()) == done


# --- a recipe saved inline comes from somewhere --------------------------------------------

EXAMPLE = ToolCall(
    tool="db_create", params={"table": "recipes", "data": [{"name": "Example Recipe"}]}
)


def test_creating_a_recipe_nothing_named_blocks_the_step_with_nothing_to_save():
    held = hold_act(
        ActDecision(action="tool_call", tool_call=EXAMPLE), [], ActFacts("save it", ("save it",))
    )
    assert held.action == "blocked" and held.reason_code == "nothing_to_save"
    assert "'Example Recipe'" in (held.details or "")


def test_what_a_saved_recipe_may_come_from():
    conversation = ConversationState(
        recent_turns=[TurnRecord(turn=1, user_message="ideas?", assistant_response="A tagine?")],
        bypass=BypassSession(
            mode="brainstorm", started_turn=2, history=[Exchange(user="hm", assistant="Bao buns")]
        ),
        handoff=LandedHandoff(
            mode="brainstorm",
            turn=2,
            summary="Fennel risotto",
            action="save",
            recipe={"name": "Saffron Fennel Risotto"},
        ),
    )
    read = ToolEntry(tool="db_read", params={"table": "recipes"}, rows=[{"name": "Old Dal"}])
    refused = ToolEntry(tool="db_create", params=EXAMPLE.params, error="servings: required")
    facts = act_facts(
        "save it", conversation, {"gen_recipe_1": {"name": "Lime Tacos"}}, [], [read, refused]
    )
    grounds = " ".join(facts.grounds)
    for said in ("save it", "tagine", "Bao buns", "Fennel risotto", "Saffron", "Lime Tacos", "Dal"):
        assert said in grounds
    assert "Example" not in grounds  # a write it sent names nothing


def test_setting_an_amount_the_user_never_gave_asks_for_it():
    where = [{"field": "name", "op": "=", "value": "milk"}]
    update = ToolCall(
        tool="db_update", params={"table": "inventory", "filters": where, "data": {"quantity": 1}}
    )
    decision = ActDecision(action="tool_call", tool_call=update)
    held = hold_act(decision, [], ActFacts("change the amount of milk I have"))
    assert held.action == "ask_user" and held.question and "milk" in held.question
    assert hold_act(decision, [], ActFacts("change the amount of milk to 1 litre")) == decision


# --- a copy of an unsaved recipe is that recipe -----------------------------------------------

DINNER = {"name": "Quick Vegetarian Dinner for Two", "ingredients": [{"name": "spinach"}]}


@pytest.mark.parametrize(
    "name", ["Quick Vegetarian Dinner for Two", "quick vegetarian dinner for two with Feta"]
)
def test_a_create_copying_an_unsaved_recipe_saves_that_recipe_by_its_ref(name: str):
    """The 1.5B local model saved the suggested recipe as a copy, then a copy "with Feta":
    two recipes, and the suggestion still unsaved."""
    copy = ToolCall(
        tool="db_create", params={"table": "recipes", "data": [{**DINNER, "name": name}]}
    )
    facts = ActFacts("great, save it", unsaved={"gen_recipe_1": DINNER})
    held = hold_act(ActDecision(action="tool_call", tool_call=copy), [], facts)
    assert held.tool_call is not None
    assert held.tool_call.params == {"table": "recipes", "data": [{"id": "gen_recipe_1"}]}


def test_rows_that_copy_no_unsaved_recipe_stay_as_they_are():
    unsaved = {"gen_recipe_1": DINNER, "gen_meal_1": {"name": "Lentil Soup"}}
    rows = [{"name": "Lentil Soup"}, {"id": "gen_recipe_1", "name": DINNER["name"]}]
    call = ToolCall(tool="db_create", params={"table": "recipes", "data": rows})
    assert by_ref(call, unsaved) == call
    shopping = ToolCall(tool="db_create", params={"table": "shopping_list", "data": [DINNER]})
    assert by_ref(shopping, unsaved) == shopping


MONDAY = {"date": "2026-11-30", "meal_type": "dinner", "recipe_id": "recipe_1", "servings": 2}
TUESDAY = {**MONDAY, "date": "2026-12-01", "recipe_id": "recipe_2"}


def meal_rows(*rows: dict) -> ToolCall:
    return ToolCall(tool="db_create", params={"table": "meal_plans", "data": list(rows)})


def test_meal_plan_rows_copying_unsaved_meals_save_those_meals_by_their_refs():
    """The 1.5B local model wrote a week of chosen dinners out again with
    ``recipe_id: gen_meal_1`` (a meal is no recipe), was refused, sent the same, and
    saved none."""
    unsaved = {"gen_meal_1": MONDAY, "gen_meal_2": TUESDAY}
    confused = meal_rows(
        {**MONDAY, "recipe_id": "gen_meal_1"}, {**TUESDAY, "recipe_id": "gen_meal_1"}
    )
    assert by_ref(confused, unsaved).params["data"] == [{"id": "gen_meal_1"}, {"id": "gen_meal_2"}]
    copied = meal_rows(dict(MONDAY), {k: v for k, v in TUESDAY.items() if k != "recipe_id"})
    assert by_ref(copied, unsaved).params["data"] == [{"id": "gen_meal_1"}, {"id": "gen_meal_2"}]


def test_meal_plan_rows_that_choose_otherwise_or_match_no_one_meal_stay_as_written():
    unsaved = {"gen_meal_1": MONDAY, "gen_meal_2": TUESDAY}
    other_recipe = meal_rows({**MONDAY, "recipe_id": "recipe_2"})  # a change of choice
    lunch = meal_rows({**MONDAY, "meal_type": "lunch"})  # no meal of that date and type
    assert by_ref(other_recipe, unsaved) == other_recipe
    assert by_ref(lunch, unsaved) == lunch
    twice = {"gen_meal_1": MONDAY, "gen_meal_3": {**MONDAY, "recipe_id": "recipe_3"}}
    assert by_ref(meal_rows(dict(MONDAY)), twice) == meal_rows(dict(MONDAY))  # which one?


# --- a revision changes something --------------------------------------------------------------


def completion(*contents: dict) -> ActDecision:
    artifacts = [{"type": "recipe", "content": c} for c in contents]
    return ActDecision.model_validate(
        {"action": "step_complete", "result_summary": "Revised", "artifacts": artifacts}
    )


def test_a_completion_that_gives_back_unsaved_content_as_it_was_changed_nothing():
    unsaved = {"gen_recipe_1": DINNER, "gen_recipe_2": {"name": "Lentil Soup"}}
    feta = "add feta to it"
    assert unchanged(completion(DINNER), unsaved, feta) == ["gen_recipe_1"]
    with_feta = {**DINNER, "ingredients": [{"name": "spinach"}, {"name": "feta"}]}
    assert unchanged(completion(with_feta), unsaved, feta) == []
    assert unchanged(completion(DINNER, {"name": "New Salad"}), unsaved, feta) == []  # one new
    assert unchanged(ActDecision(action="step_complete", result_summary="x"), unsaved, feta) == []
    assert unchanged(completion(DINNER), unsaved, "show me that recipe again") == []
    blocked = unchanged_block(["gen_recipe_1"], unsaved)
    assert blocked.action == "blocked" and blocked.reason_code == "unchanged"
    assert blocked.details == (
        "The change you asked for was not made: Quick Vegetarian Dinner for Two is as it was"
    )


def test_a_revision_given_back_unchanged_is_told_what_it_still_lacks():
    """Told only that the change was not made, the 1.5B local model gave the dinner back
    without the feta a second time."""
    note = completion_note(completion(DINNER), {"gen_recipe_1": DINNER}, "add feta to it", ())
    assert note is not None and note.startswith(
        "not complete: gen_recipe_1 came back exactly as it was: the change this step asks "
        "for was not made (Quick Vegetarian Dinner for Two leaves out feta, which the user "
        "asked to add)."
    )
    plain = completion_note(completion(DINNER), {"gen_recipe_1": DINNER}, "make it nicer", ())
    assert plain is not None and "was not made. Return" in plain


# --- generated content names what exists ------------------------------------------------------


def meals(*recipe_ids: str) -> ActDecision:
    artifacts = [
        {"type": "meal", "ref": f"gen_meal_{i}", "content": {"date": "2026-11-30", "recipe_id": r}}
        for i, r in enumerate(recipe_ids, 1)
    ]
    return ActDecision.model_validate(
        {"action": "step_complete", "result_summary": "Chose", "artifacts": artifacts}
    )


def test_content_naming_refs_that_do_not_exist_is_sent_back_once():
    """The 1.5B local model planned dinners on gen_recipe_1 and gen_recipe_2: no recipe had them."""
    known = {"recipe_1"}
    assert unknown_refs(meals("gen_recipe_1", "recipe_1"), known) == ["gen_recipe_1"]
    note = completion_note(meals("gen_recipe_1"), {}, "plan dinners on monday", known)
    assert note is not None and note.startswith(
        "not complete: the content names refs that do not exist: gen_recipe_1."
    )
    assert completion_note(meals("recipe_1"), {}, "plan dinners on monday", known) is None


def recipe(name: str, *ingredients: str, servings: int = 2) -> ActDecision:
    content = {
        "name": name,
        "servings": servings,
        "ingredients": [{"name": i} for i in ingredients],
    }
    artifacts = [{"type": "recipe", "content": content}]
    return ActDecision.model_validate(
        {"action": "step_complete", "result_summary": "Invented", "artifacts": artifacts}
    )


def test_a_recipe_unfit_for_the_words_or_the_profile_is_sent_back_once():
    """For "suggest a quick vegetarian dinner for two" the 1.5B local model invented a
    "Vegetarian Quinoa Bowl" with cooked chicken breast, serving 4."""
    asked = "suggest a quick vegetarian dinner for two"
    bowl = recipe("Vegetarian Quinoa Bowl", "quinoa", "cooked chicken breast", servings=4)
    assert unfit_recipes(bowl, asked, None) == {
        "Vegetarian Quinoa Bowl": [
            "holds chicken (ruled out: vegetarian)",
            "serves 4, where the user asked for 2",
        ]
    }
    assert completion_note(bowl, {}, asked, set()) == (
        "not complete: Vegetarian Quinoa Bowl holds chicken (ruled out: vegetarian) and "
        "serves 4, where the user asked for 2. Return the recipe with that put right: "
        "nothing ruled out in its name, ingredients or instructions, what the user asked "
        "to add in them, and the servings the user asked for."
    )
    assert completion_note(bowl, {}, "suggest a quick dinner", set()) is None  # nothing said
    allergic = {"allergies": ["peanuts"]}
    satay = recipe("Tofu Satay", "tofu", "peanut butter")
    assert unfit_recipes(satay, "suggest a dinner", allergic) == {
        "Tofu Satay": ["holds peanut (ruled out: the peanuts allergy)"]
    }
    assert completion_note(recipe("Tofu Stir-fry", "tofu"), {}, asked, set(), allergic) is None
    dinner = recipe("Quick Vegetarian Dinner", "chickpeas", "bell peppers")
    assert unfit_recipes(dinner, "add feta to it", None) == {  # the 1.5B's revision
        "Quick Vegetarian Dinner": ["leaves out feta, which the user asked to add"]
    }
    with_feta = recipe("Quick Vegetarian Dinner", "chickpeas", "feta cheese")
    assert unfit_recipes(with_feta, "add feta to it", None) == {}


def test_a_write_step_done_without_calling_the_database_is_sent_back():
    done = ActDecision(action="step_complete", result_summary="Marked the task done")
    note = uncalled_note(done, "write", [])
    assert note is not None and note.startswith("not complete: this step has not called")
    read = ToolEntry(tool="db_read", params={"table": "tasks"}, result={"rows": [], "count": 0})
    assert uncalled_note(done, "write", [read]) is None  # it looked: its own to judge
    assert uncalled_note(done, "analyze", []) is None  # its input is the steps before it
    schema = ToolEntry(schema_name="tasks", text="...")
    assert uncalled_note(done, "write", [schema]) is not None  # a schema is no call
    call = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_read", params={}))
    assert uncalled_note(call, "write", []) is None


def test_a_read_step_done_without_reading_is_sent_back():
    """Its read sent back unrun (``idle_read``), the 1.5B local model completed "Read the
    tasks not completed" saying there were none; two were open."""
    done = ActDecision(action="step_complete", result_summary="There are no open tasks.")
    note = uncalled_note(done, "read", [])
    assert note == (
        "not complete: this step has not read the database yet, so nothing it says was "
        "found is known. Send its db_read now, or block the step if it cannot be done."
    )
    refused = ToolEntry(tool="db_read", params={"table": "tasks"}, error="no such column")
    assert uncalled_note(done, "read", [refused]) is None  # it tried: its own to judge
    assert uncalled_note(done, "read", [ToolEntry(retrieved_step=0, result=[])]) is None
    assert uncalled_note(done, "read", [ToolEntry(archive_key="k", content={})]) is None
    assert uncalled_note(done, "generate", []) is None


def test_a_read_that_asks_whether_a_never_empty_column_is_empty_is_sent_back_unrun():
    """For "Read the tasks not completed" the 1.5B local model read ``completed
    is_not_null``: every task, the done one listed as open."""

    def read(*filters: dict, table: str = "tasks", **more) -> ActDecision:
        params = {"table": table, "filters": list(filters), **more}
        return ActDecision(action="tool_call", tool_call=ToolCall(tool="db_read", params=params))

    done = {"field": "completed", "op": "is_not_null", "value": None}
    held = idle_read(read(done))
    assert held is not None and held.tool == "db_read" and held.params["filters"] == [done]
    assert held.error == (
        "not run: completed is never empty, so is_not_null keeps every row: compare it with "
        "a value (= true or = false), then send the db_read again."
    )
    untitled = idle_read(read(or_filters=[{"field": "title", "op": "is_null"}]))
    assert untitled is not None and "title is never empty, so is_null matches no row" in (
        untitled.error or ""
    )
    assert idle_read(read({"field": "completed", "op": "=", "value": False})) is None
    assert idle_read(read({"field": "due_date", "op": "is_null"})) is None  # may be empty
    assert idle_read(read(done, table="no_such_table")) is None  # refused by the executor
    assert idle_read(read({"op": "is_null"})) is None  # no field: refused by the executor
    update = ToolCall(tool="db_update", params={"table": "tasks", "filters": [done]})
    assert idle_read(ActDecision(action="tool_call", tool_call=update)) is None


def test_a_meal_plan_row_that_names_no_meal_is_sent_back():
    def create(*rows: dict) -> ActDecision:
        params = {"table": "meal_plans", "data": list(rows)}
        return ActDecision(action="tool_call", tool_call=ToolCall(tool="db_create", params=params))

    friday = {"date": "2026-12-04", "meal_type": "dinner", "recipe_id": None, "notes": None}
    known = {"recipe_1"}
    held = unnamed_meal(create(friday), known)
    assert held is not None and held.error.startswith("not run: a meal plan row must say what")
    assert unnamed_meal(create({**friday, "notes": "pasta"}), known) is None
    assert unnamed_meal(create({**friday, "recipe_id": "recipe_1"}), known) is None
    assert unnamed_meal(create({**friday, "recipe_id": "1"}), known) is not None  # no ref
    assert unnamed_meal(create({"id": "gen_meal_1"}), known) is None  # generated, by its ref
    assert unnamed_meal(create({**friday, "notes": "pasta"}, friday), known) is not None


def test_a_meal_plan_row_linked_by_a_ref_no_row_has_is_sent_back_to_name_its_meal():
    """For "we are doing pasta on friday night", its read having found no pasta recipe,
    the 1.5B local model linked "gen_recipe_1" twice; refused each time, nothing was
    planned."""
    params = {
        "table": "meal_plans",
        "data": [{"date": "2026-12-04", "meal_type": "dinner", "recipe_id": "gen_recipe_1"}],
    }
    made_up = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_create", params=params))
    held = unnamed_meal(made_up, {"recipe_1"})
    assert held is not None
    assert held.error.startswith("not run: gen_recipe_1 is no saved recipe's ref, so a meal")
    assert "notes to the meal as the user named it" in held.error
    assert unnamed_meal(made_up, {"gen_recipe_1"}) is None  # a ref the turn knows


def test_a_create_is_sent_without_the_optional_links_it_makes_to_no_row():
    """The 0.5B local model created "Buy candles" with recipe_id and meal_plan_id both
    "1", twice, each refused: no task was made."""
    row = {"title": "Buy candles", "due_date": "2026-12-04", "recipe_id": "1"}
    params = {"table": "tasks", "data": [{**row, "meal_plan_id": "1"}]}
    candles = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_create", params=params))
    sent = unlinked(candles, {"recipe_1"})
    assert sent.tool_call.params["data"] == [{"title": "Buy candles", "due_date": "2026-12-04"}]
    linked = {**params, "data": [{**row, "recipe_id": "recipe_1"}]}
    kept = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_create", params=linked))
    assert unlinked(kept, {"recipe_1"}) == kept  # a ref the turn knows
    uuid = "3f2a4c1e-0b7d-4e8a-9c3f-1a2b3c4d5e6f"  # a row's id as the UI sends it
    by_id = {**params, "data": [{**row, "recipe_id": uuid}]}
    kept = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_create", params=by_id))
    assert unlinked(kept, set()) == kept
    part = {"table": "recipe_ingredients", "data": {"name": "salt", "recipe_id": "1"}}
    required = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_create", params=part))
    assert unlinked(required, set()) == required  # its recipe is no option: refused, with why
    cooked = {"table": "cooking_log", "data": {"recipe_id": "recipe_9", "rating": 5}}
    log = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_create", params=cooked))
    assert unlinked(log, set()) == log  # the dish cooked is what the row is about


def test_an_id_filtered_by_a_day_filters_the_days_column():
    """The 0.5B local model deleted the meal plan's ``id = 2026-11-30`` for "take the dal
    off monday", twice refused."""
    monday = {"field": "id", "op": "=", "value": "2026-11-30"}
    off = ToolCall(
        tool="db_delete",
        params={"table": "meal_plans", "filters": [monday], "or_filters": [monday]},
    )
    moved = dated_ids(off).params
    assert moved["filters"] == [{"field": "date", "op": "=", "value": "2026-11-30"}]
    assert moved["or_filters"] == moved["filters"]
    tasks = ToolCall(tool="db_read", params={"table": "tasks", "filters": [monday]})
    assert dated_ids(tasks).params["filters"][0]["field"] == "due_date"
    by_ref = ToolCall(
        tool="db_delete", params={"table": "meal_plans", "filters": [{**monday, "value": "meal_1"}]}
    )
    assert dated_ids(by_ref) == by_ref
    stock = ToolCall(tool="db_read", params={"table": "inventory", "filters": [monday]})
    assert dated_ids(stock) == stock  # no one day column: left to the whitelist's note


def test_a_meal_plan_row_is_the_one_meal_the_words_name():
    """For "put the dal down for lunch tomorrow" the 0.5B local model planned it for
    dinner, its step saying lunch."""
    row = {"date": "2026-11-29", "meal_type": "dinner", "recipe_id": "recipe_1"}
    create = ToolCall(tool="db_create", params={"table": "meal_plans", "data": [row]})
    lunch = named_meal(create, "put the dal down for lunch tomorrow").params["data"]
    assert lunch == [{**row, "meal_type": "lunch"}]
    assert named_meal(create, "we're having the chili for supper tonight") == create
    assert named_meal(create, "dal for lunch and chili for dinner") == create  # two meals
    assert named_meal(create, "plan lunches and a dinner") == create
    assert named_meal(create, "put the dal down for tomorrow") == create  # none named
    task = ToolCall(tool="db_create", params={"table": "tasks", "data": [{"title": "lunch"}]})
    assert named_meal(task, "buy lunch boxes") == task
    facts = ActFacts(message="put the dal down for lunch tomorrow")
    held = hold_act(ActDecision(action="tool_call", tool_call=create), [], facts)
    assert held.tool_call is not None and held.tool_call.params["data"][0]["meal_type"] == "lunch"


def test_a_meal_named_in_its_notes_is_planned_without_a_link_no_row_has():
    def create(data: object) -> ActDecision:
        params = {"table": "meal_plans", "data": data}
        return ActDecision(action="tool_call", tool_call=ToolCall(tool="db_create", params=params))

    pasta = {
        "date": "2026-12-04",
        "meal_type": "dinner",
        "recipe_id": "gen_recipe_1",
        "notes": "pasta",
    }
    sent = unlinked(create([pasta]), {"recipe_1"})
    assert sent.tool_call.params["data"] == [
        {"date": "2026-12-04", "meal_type": "dinner", "notes": "pasta"}
    ]
    assert unlinked(create(pasta), set()).tool_call.params["data"] == {
        "date": "2026-12-04",
        "meal_type": "dinner",
        "notes": "pasta",
    }
    kept = [
        create([pasta]),
        create([{**pasta, "notes": None}]),
        create([{**pasta, "recipe_id": "recipe_1"}]),
    ]
    assert unlinked(kept[0], {"gen_recipe_1"}) == kept[0]  # a ref the turn knows
    assert unlinked(kept[1], set()) == kept[1]  # no notes: the link is all it says
    assert unlinked(kept[2], {"recipe_1"}) == kept[2]


def test_an_item_of_the_same_answer_is_a_ref_that_exists():
    recipe = {"type": "recipe", "ref": "gen_recipe_1", "content": {"name": "Dal"}}
    meal = {"type": "meal", "ref": "gen_meal_1", "content": {"recipe_id": "gen_recipe_1"}}
    both = ActDecision.model_validate(
        {"action": "step_complete", "result_summary": "x", "artifacts": [recipe, meal]}
    )
    assert unknown_refs(both, set()) == []


def test_a_write_that_matched_nothing_sent_again_blocks_the_step_with_what_is_there():
    params = {
        "table": "inventory",
        "filters": [{"field": "name", "op": "=", "value": "leftover rice"}],
    }
    note = "no row matches the filters, so nothing was deleted; rows whose name shares a word: "
    note += "'cooked rice'"
    missed = ToolEntry(
        tool="db_delete", params=params, table="inventory", count=0, rows=[], notes=[note]
    )
    again = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_delete", params=params))
    held = hold_act(again, [missed], ActFacts())
    assert (held.action, held.reason_code) == ("blocked", "nothing_matched")
    assert held.details == note
    # asked once first, in the act activity, with what is there
    sent_back = unmatched_note(again, [missed])
    assert sent_back is not None and sent_back.startswith(
        f"not run: this exact db_delete matched no row a moment ago ({note})."
    )
    assert "naming the row as it is (the name the note gives, or its ref)" in sent_back


def test_a_write_that_matched_nothing_sent_again_after_the_step_wrote_completes_it():
    """ "got the paper towels and the bread": the step ticked both off, then sent a write
    whose filters no row meets, twice; blocking told the user "Say which one"."""
    bread = [{"field": "name", "op": "=", "value": "bread"}]
    towels = [{"field": "name", "op": "=", "value": "paper towels"}]
    ticked = {"table": "shopping_list", "changes": [{"column": "is_purchased", "value": True}]}
    done = ToolEntry(
        tool="db_update",
        params={**ticked, "filters": towels},
        table="shopping_list",
        count=1,
        rows=[{"id": "shop_1", "name": "paper towels", "is_purchased": True}],
    )
    crossed = {**ticked, "filters": bread, "or_filters": towels}
    missed = ToolEntry(tool="db_update", params=crossed, table="shopping_list", count=0, rows=[])
    again = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_update", params=crossed))
    held = hold_act(again, [done, missed], ActFacts())
    assert held.action == "step_complete"
    assert held.result_summary == (
        "Updated 1 item on your shopping list: paper towels. "
        "A further change matched no row and changed nothing."
    )


def test_a_changed_write_or_one_that_matched_rows_is_not_sent_back():
    params = {"table": "recipes", "filters": [{"field": "name", "op": "=", "value": "chili"}]}
    delete = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_delete", params=params))
    done = ToolEntry(tool="db_delete", params=params, table="recipes", count=1, rows=[{}])
    other = ToolEntry(tool="db_delete", params={**params, "filters": []}, count=0, rows=[])
    assert unmatched_note(delete, [done]) is None
    assert unmatched_note(delete, [other]) is None
    assert unmatched_note(delete, []) is None


def test_a_recipe_saved_by_its_gen_ref_and_sent_again_written_out_completes_the_step():
    """The 1.5B local model saved the suggestion (its copy, sent by ref), then sent the
    same recipe written out again: a second row of the same name."""
    saved = ToolEntry(
        tool="db_create",
        params={"table": "recipes", "data": [{"id": "gen_recipe_1"}]},
        table="recipes",
        count=1,
        rows=[{"id": "recipe_1", "name": "Quick Vegetarian Dinner for Two"}],
    )
    written_out = ToolCall(tool="db_create", params={"table": "recipes", "data": [DINNER]})
    held = hold_act(ActDecision(action="tool_call", tool_call=written_out), [saved], ActFacts())
    assert held.action == "step_complete"


def _create(table: str, rows: list[dict]) -> ActDecision:
    call = ToolCall(tool="db_create", params={"table": table, "data": rows})
    return ActDecision(action="tool_call", tool_call=call)


@pytest.mark.parametrize(
    "description",
    [
        "Mark the paper towels as bought in the shopping list",
        "Tick off the bread",
        "Set the eggs' quantity to 2",
        "Update the task 'Call the plumber' as completed",
    ],
)
def test_a_create_in_a_step_that_changes_rows_already_there_is_sent_back(description: str):
    step = ThinkStep(description=description, step_type="write", subdomain="shopping", group=0)
    note = created_for_a_change(_create("shopping_list", [{"name": "bread"}]), step)
    assert note is not None and f'the step is "{description}"' in note and "db_update" in note


@pytest.mark.parametrize(
    "description", ["Add bread to the shopping list", "Set up a task to call the plumber"]
)
def test_a_create_in_a_step_that_adds_rows_stands(description: str):
    step = ThinkStep(description=description, step_type="write", subdomain="shopping", group=0)
    assert created_for_a_change(_create("shopping_list", [{"name": "bread"}]), step) is None
    update = ActDecision(
        action="tool_call",
        tool_call=ToolCall(
            tool="db_update",
            params={"table": "shopping_list", "filters": [], "changes": []},
        ),
    )
    mark = step.model_copy(update={"description": "Mark the bread as bought"})
    assert created_for_a_change(update, mark) is None


def test_an_update_in_a_step_that_adds_rows_is_sent_back():
    """For "add a teaspoon of cumin to the dal", planned as "Add a teaspoon of cumin to the
    Red Lentil Dal recipe, one row", the 1.5B local model set one of the dal's ingredients
    to 1, and the reply said the cumin was added."""
    step = ThinkStep(
        description="Add a teaspoon of cumin to the Red Lentil Dal recipe, one row",
        step_type="write",
        subdomain="recipes",
        group=0,
    )
    update = ActDecision(
        action="tool_call",
        tool_call=ToolCall(
            tool="db_update",
            params={"table": "recipe_ingredients", "filters": [], "changes": []},
        ),
    )
    note = updated_for_an_add(update, step)
    assert note is not None and "which adds rows" in note and "db_create" in note
    assert updated_for_an_add(_create("recipe_ingredients", [{"name": "cumin"}]), step) is None
    for change in ("Set the quantity of the spinach to 150 g", "Rename the dal to Tarka Dal"):
        assert updated_for_an_add(update, step.model_copy(update={"description": change})) is None
    assert updated_for_an_add(update, step.model_copy(update={"step_type": "read"})) is None
    eggs = step.model_copy(
        update={"description": "Add 6 eggs to the inventory", "subdomain": "inventory"}
    )
    assert updated_for_an_add(update, eggs) is None  # an add to the stock may grow a row
    steps = ToolCall(tool="db_update", params={"table": "recipes", "filters": [], "changes": []})
    instructions = ActDecision(action="tool_call", tool_call=steps)
    assert updated_for_an_add(instructions, step) is None  # "add a step": the recipe's row


def test_an_update_in_a_step_that_removes_rows_is_sent_back():
    """For "the dal recipe shouldnt have onion in it, remove it", planned as "Remove the onion
    row from the Red Lentil Dal recipe", the 1.5B local model set the onion optional."""
    step = ThinkStep(
        description="Remove the onion row from the Red Lentil Dal recipe",
        step_type="write",
        subdomain="recipes",
        group=1,
    )
    update = ActDecision(
        action="tool_call",
        tool_call=ToolCall(
            tool="db_update",
            params={"table": "recipe_ingredients", "filters": [], "changes": []},
        ),
    )
    note = updated_for_a_removal(update, step)
    assert note is not None and "which removes rows" in note and "db_delete" in note
    delete = ActDecision(
        action="tool_call",
        tool_call=ToolCall(tool="db_delete", params={"table": "recipe_ingredients"}),
    )
    assert updated_for_a_removal(delete, step) is None
    change = step.model_copy(update={"description": "Set the onion to 2 pieces"})
    assert updated_for_a_removal(update, change) is None
    assert updated_for_a_removal(update, step.model_copy(update={"step_type": "read"})) is None
    dislikes = ActDecision(  # the profile is one row: its lists lose an item by an update
        action="tool_call",
        tool_call=ToolCall(tool="db_update", params={"table": "preferences", "changes": []}),
    )
    coriander = step.model_copy(
        update={"description": "Remove coriander from the dislikes", "subdomain": "preferences"}
    )
    assert updated_for_a_removal(dislikes, coriander) is None


def test_a_read_of_recipes_for_a_step_that_names_their_ingredients_reads_them():
    """For "what can I cook with what I have?" the recipes were read without ingredients,
    and the next step said both could be cooked."""
    columns = ["name", "cuisine", "cook_time_minutes"]
    read = ToolCall(tool="db_read", params={"table": "recipes", "columns": columns})
    step = ThinkStep(
        description="Read every recipe with its ingredient list",
        step_type="read",
        subdomain="recipes",
        group=0,
    )
    decision = ActDecision(action="tool_call", tool_call=read)
    held = hold_act(decision, [], ActFacts(step=step))
    assert held.tool_call is not None
    assert held.tool_call.params["columns"] == [*columns, "ingredients"]
    plain = step.model_copy(update={"description": "Read the recipes"})
    assert with_ingredients(read, plain) == read
    every = ToolCall(tool="db_read", params={"table": "recipes", "columns": None})
    assert with_ingredients(every, step).params["columns"] == ["*", "ingredients"]


def test_a_recipe_named_by_one_word_and_more_is_another_recipe():
    made = [{"name": "Dal"}]
    created = ToolEntry(tool="db_create", params={"table": "recipes", "data": made}, rows=made)
    call = ToolCall(
        tool="db_create", params={"table": "recipes", "data": [{"name": "Dal Makhani"}]}
    )
    decision = ActDecision(action="tool_call", tool_call=call)
    said = ActFacts(message="save the dal and the dal makhani", grounds=("dal makhani",))
    assert hold_act(decision, [created], said) == decision


def test_a_read_steps_read_of_another_read_steps_table_is_sent_back_unrun():
    """For "want to make the dal this week, put what it needs on my groceries" the 1.5B
    local model read the inventory in the step that reads the dal recipe."""
    dal = ThinkStep(description="Read the dal recipe", step_type="read", subdomain="recipes")
    stock = ThinkStep(description="Read the inventory", step_type="read", subdomain="inventory")
    inventory = ActDecision(
        action="tool_call", tool_call=ToolCall(tool="db_read", params={"table": "inventory"})
    )
    note = others_read(inventory, [dal, stock], 0)
    assert note is not None and note.error == (
        "not run: step 2 reads inventory. This step is 'Read the dal recipe': send its db_read "
        "of recipes."
    )
    assert others_read(inventory, [dal, stock], 1) is None  # its own table
    read_dal = read_entry({"table": "recipes"}, table="recipes", count=1, rows=[{}])
    assert others_read(inventory, [dal, stock], 0, [read_dal]) is None  # it read its own
    assert others_read(inventory, [dal], 0) is None  # no other step reads it
    write = dal.model_copy(update={"step_type": "write"})
    assert others_read(inventory, [write, stock], 0) is None  # a write reads what it needs


def test_a_read_step_that_has_read_its_own_completes_when_it_reads_another_steps_table():
    """The 1.5B local model read the dal, then in the same step the inventory's eggs, milk
    and rice, which the next step took for the dal's ingredients."""
    dal = ThinkStep(description="Read the dal recipe", step_type="read", subdomain="recipes")
    stock = ThinkStep(description="Read the inventory", step_type="read", subdomain="inventory")
    inventory = ActDecision(
        action="tool_call", tool_call=ToolCall(tool="db_read", params={"table": "inventory"})
    )
    read_dal = read_entry({"table": "recipes"}, table="recipes", count=1, rows=[{}])
    held = read_its_own(inventory, [dal, stock], 0, [read_dal])
    assert held == ActDecision(action="step_complete", result_summary="Read 1 row(s) from recipes.")
    assert read_its_own(inventory, [dal, stock], 0) == inventory  # not read its own yet
    failed = read_dal.model_copy(update={"error": "refused", "count": None, "rows": None})
    assert read_its_own(inventory, [dal, stock], 0, [failed]) == inventory
    assert read_its_own(inventory, [dal], 0, [read_dal]) == inventory  # no other step reads it
    assert read_its_own(inventory, [dal, stock], 1, [read_dal]) == inventory  # its own table
    write = stock.model_copy(update={"step_type": "write"})
    assert read_its_own(inventory, [dal, write], 0, [read_dal]) == inventory  # a write's read


def test_a_read_step_whose_answer_is_unusable_ends_with_its_own_read():
    """For "plan the dal for the day after tomorrow" the 1.5B local model read the dal,
    then wrote a summary past the read step's cap three times, and the plan's write
    never ran."""
    dal = ThinkStep(description="Read the dal recipe", step_type="read", subdomain="recipes")
    read_dal = read_entry({"table": "recipes"}, table="recipes", count=1, rows=[{}])
    plans = read_entry({"table": "meal_plans"}, table="meal_plans", count=0, rows=[])
    made = ActDecision(action="step_complete", result_summary="Read 1 row(s) from recipes.")
    assert read_made([read_dal, plans], dal) == made  # its own table's read, not the last
    assert read_made([plans], dal) is None  # nothing of its own read: blocked
    assert read_made([], dal) is None
    write = dal.model_copy(update={"step_type": "write"})
    assert read_made([read_dal], write) is None  # a write step's reads are no result


def test_a_step_the_system_wrote_its_read_for_is_decided_without_a_model():
    """For "what else is in the dal apart from lentils", given "Read the recipe Red Lentil
    Dal with its ingredients" (a step the system added), the 1.5B local model read the
    inventory, then ended the step with ingredients it made up."""
    named = Filter(field="name", op="=", value="Red Lentil Dal")
    ours = DbRead(table="recipes", or_filters=[named], columns=["*", "recipe_ingredients"])
    dal = ThinkStep(
        description="Read the recipe Red Lentil Dal with its ingredients",
        step_type="read",
        subdomain="recipes",
        read=ours,
    )
    first = system_read(dal, [])
    assert first is not None and first.tool_call is not None
    assert first.tool_call.tool == "db_read"
    assert DbRead(tool="db_read", **first.tool_call.params) == ours
    found = read_entry(first.tool_call.params, table="recipes", count=1, rows=[{}])
    assert system_read(dal, [found]) == ActDecision(
        action="step_complete", result_summary="Read 1 row(s) from recipes."
    )
    refused = read_entry(first.tool_call.params, table="recipes", error="refused")
    assert system_read(dal, [refused]) is None  # failed: Act is asked, shown the error
    assert system_read(dal.model_copy(update={"read": None}), []) is None  # the model's step


@pytest.mark.parametrize(
    "message",
    [
        "add a step to the dal: squeeze lemon over before serving",
        "swap the spinach in the dal for kale",
        "the dal needs a squeeze of lemon",
    ],
)
def test_a_saved_recipe_copied_for_a_change_to_it_is_sent_back(message: str):
    """For "add a step to the dal: squeeze lemon over before serving" the 1.5B local model
    saved "Red Lentil Dal with Lemon" beside the dal."""
    copy = _create("recipes", [{"name": "Red Lentil Dal with Lemon", "instructions": ["…"]}])
    note = created_a_copy(copy, ["Red Lentil Dal"], message)
    assert note is not None
    assert note.startswith("not made: Red Lentil Dal is a saved recipe") and "db_update" in note


def test_a_recipe_made_beside_a_saved_one_when_the_words_ask_for_it_stands():
    copy = _create("recipes", {"name": "Red Lentil Dal with Lemon"})
    dal = ["Red Lentil Dal"]
    assert created_a_copy(copy, dal, "save a lemony version of the dal") is None
    assert created_a_copy(copy, dal, "add a new dal recipe with lemon") is None
    assert created_a_copy(copy, dal, "suggest a twist on the dal") is None
    assert created_a_copy(copy, dal, "what's in the dal?") is None  # no change asked
    assert created_a_copy(copy, [], "add lemon to the dal") is None  # no saved recipe named
    other = _create("recipes", {"name": "Lemon Rice"})
    assert created_a_copy(other, dal, "add lemon to the dal") is None  # not the dal's name
    listed = _create("shopping_list", [{"name": "Red Lentil Dal"}])
    assert created_a_copy(listed, dal, "add the dal to the list") is None


def test_an_update_that_moves_a_date_elsewhere_than_the_words_say_is_sent_back():
    row = {"id": "task_1", "title": "Call the plumber", "due_date": "2026-12-05"}
    reads = [read("tasks", [row])]
    plumber = [{"field": "title", "op": "=", "value": "Call the plumber"}]

    def moved(day: str, table: str = "tasks") -> ActDecision:
        params = {"table": table, "filters": plumber, "data": {"due_date": day}}
        return ActDecision(action="tool_call", tool_call=ToolCall(tool="db_update", params=params))

    words = "push everything on my todo list back a week"
    assert "not Thu 2026-12-10" in (moved_elsewhere(moved("2026-12-10"), reads, words) or "")
    assert moved_elsewhere(moved("2026-12-12"), reads, words) is None
    assert moved_elsewhere(moved("2026-12-10"), reads, "move the plumber to thursday") is None
    create = _create("tasks", [{"title": "Call the plumber", "due_date": "2026-12-10"}])
    assert moved_elsewhere(create, reads, words) is None  # a new row has no date to move


def test_a_date_sent_again_elsewhere_than_the_words_move_it_is_written_where_they_do():
    """Told "it is Sat 2026-12-12 (7 days later), not Thu 2026-12-10", the 1.5B local model
    sent Thu 2026-12-10 again."""
    row = {"id": "task_1", "title": "Call the plumber", "due_date": "2026-12-05"}
    reads = [read("tasks", [row])]
    plumber = [{"field": "title", "op": "=", "value": "Call the plumber"}]

    def moved(day: str) -> ActDecision:
        params = {"table": "tasks", "filters": plumber, "data": {"due_date": day}}
        return ActDecision(action="tool_call", tool_call=ToolCall(tool="db_update", params=params))

    words = "push everything on my todo list back a week"
    held = moved_as_said(moved("2026-12-10"), reads, words)
    assert held.tool_call is not None
    assert held.tool_call.params["data"] == {"due_date": "2026-12-12"}
    assert moved_as_said(moved("2026-12-12"), reads, words) == moved("2026-12-12")
    both = "push the plumber back a week or forward a day"  # two amounts: not the system's
    assert moved_as_said(moved("2026-12-10"), reads, both) == moved("2026-12-10")


@pytest.mark.parametrize(
    "message",
    [
        "the eggs actually go off on thursday",
        "we have 12 eggs now",
        "the eggs are in the pantry now",
    ],
)
def test_an_item_held_created_again_for_words_that_add_none_is_sent_back(message: str):
    """For "the eggs actually go off on thursday" the 1.5B local model added a carton of
    eggs to the pantry beside the six in the fridge."""
    carton = _create("inventory", [{"name": "eggs", "quantity": 1, "unit": "carton"}])
    note = created_beside(carton, ["eggs"], message)
    assert note is not None
    assert note.startswith("not made: the inventory holds eggs already") and "db_update" in note


def test_an_item_held_created_again_for_words_that_add_it_stands():
    carton = _create("inventory", {"name": "eggs", "quantity": 6})
    assert created_beside(carton, ["eggs"], "bought 6 more eggs") is None
    assert created_beside(carton, ["eggs"], "put 6 eggs in the fridge") is None
    assert created_beside(carton, ["eggs"], "got eggs, they're in the fridge") is None
    assert created_beside(carton, [], "the eggs go off on thursday") is None  # none held
    milk = _create("inventory", {"name": "milk"})
    assert created_beside(milk, ["eggs"], "the eggs go off on thursday") is None  # not held
    listed = _create("shopping_list", {"name": "eggs"})
    assert created_beside(listed, ["eggs"], "the eggs go off on thursday") is None
