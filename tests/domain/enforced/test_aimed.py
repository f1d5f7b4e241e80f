"""Specification of a missed call aimed where its note leaves one meaning
(``domain.enforced.aimed``), as Act's decision is held to it (``act_rules.hold_act``)."""

from __future__ import annotations

import pytest

from domain.enforced.act_rules import ActFacts, hold_act, repeated_call, reread_note, unmatched_note
from domain.enforced.aimed import aimed
from domain.nodes import ActDecision, ThinkStep, ToolCall
from domain.tool_results import ToolEntry
from tests.domain.enforced.helpers import read_entry, step


def missed_by_name(tool: str, name: str, note: str) -> ToolEntry:
    params = {"table": "inventory", "filters": [{"field": "name", "op": "=", "value": name}]}
    return ToolEntry(tool=tool, params=params, table="inventory", count=0, rows=[], notes=[note])


def test_a_missed_write_sent_again_is_aimed_at_the_one_row_its_name_can_mean():
    """The 1.5B local model deleted "yogurt" twice for "the yogurt's gone off, chuck it",
    told each time that 'greek yogurt' was the row; the step was blocked."""
    note = "no row matches the filters, so nothing was deleted; inventory holds 3 row(s) in "
    note += "all; rows whose name shares a word: 'greek yogurt', 'milk yogurt drink'"
    missed = missed_by_name("db_delete", "Yogurts", note.replace(", 'milk yogurt drink'", ""))
    again = ActDecision(
        action="tool_call", tool_call=ToolCall(tool="db_delete", params=missed.params)
    )
    held = hold_act(again, [missed], ActFacts())
    assert held.action == "tool_call" and held.tool_call is not None
    assert held.tool_call.params["filters"] == [
        {"field": "name", "op": "=", "value": "greek yogurt"}
    ]
    assert unmatched_note(again, [missed]) is None  # run at once, not asked about first
    # two rows hold the word: which one is the user's to say
    two = missed_by_name("db_delete", "yogurt", note)
    held = hold_act(
        again.model_copy(update={"tool_call": ToolCall(tool="db_delete", params=two.params)}),
        [two],
        ActFacts(),
    )
    assert (held.action, held.reason_code) == ("blocked", "nothing_matched")


def test_a_missed_write_is_aimed_after_other_calls_and_not_when_the_note_may_leave_rows_out():
    note = "no row matches the filters; rows whose name shares a word: 'greek yogurt'"
    missed = missed_by_name("db_delete", "yogurt", note)
    read = ToolEntry(tool="db_read", params={"table": "inventory"}, count=3, rows=[{}] * 3)
    again = ActDecision(
        action="tool_call", tool_call=ToolCall(tool="db_delete", params=missed.params)
    )
    held = hold_act(again, [missed, read], ActFacts())
    assert held.tool_call is not None and held.tool_call.params["filters"][0]["value"] == (
        "greek yogurt"
    )
    many = ", ".join(repr(f"yogurt {n}") for n in range(9))
    full = missed_by_name("db_delete", "greek yogurt", f"{note}, {many}")  # ten names: a cap
    assert aimed(ToolCall(tool="db_delete", params=full.params), full) is None


def test_a_missed_write_is_not_aimed_when_its_words_are_not_all_in_one_row():
    cooked = "no row matches the filters; rows whose name shares a word: 'cooked rice'"
    missed = missed_by_name("db_update", "leftover rice", cooked)
    again = ActDecision(
        action="tool_call", tool_call=ToolCall(tool="db_update", params=missed.params)
    )
    assert hold_act(again, [missed], ActFacts()).reason_code == "nothing_matched"
    assert aimed(again.tool_call, missed) is None
    by_two = {**missed.params, "or_filters": [{"field": "location", "op": "=", "value": "fridge"}]}
    rice = missed_by_name("db_update", "rice", cooked)
    assert aimed(ToolCall(tool="db_update", params=rice.params), rice) is not None
    assert aimed(ToolCall(tool="db_update", params=by_two), rice) is None


def test_a_missed_read_by_name_sent_again_is_aimed_at_the_one_row_its_name_can_mean():
    """For "put the dal down for lunch tomorrow" the 1.5B local model read name = "dal"
    twice in the read step and twice in the write step, each time told 'Red Lentil Dal',
    and put the lunch on the meal plan with no recipe."""
    params = {"table": "recipes", "filters": [{"field": "name", "op": "=", "value": "dal"}]}
    note = "no recipes row matches the filters; rows whose name shares a word: 'Red Lentil Dal'"
    missed = read_entry(params, table="recipes", count=0, rows=[], notes=[note])
    again = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_read", params=params))
    for kind in ("read", "write"):
        facts = ActFacts(step=step(kind))
        held = hold_act(again, [missed], facts)
        assert held.tool_call is not None and held.tool_call.params["filters"] == [
            {"field": "name", "op": "=", "value": "Red Lentil Dal"}
        ]
        assert repeated_call(again, [missed], step(kind)) is None  # not sent back first
    two = read_entry(params, count=0, rows=[], notes=[note + ", 'Tadka Dal'"])
    assert hold_act(again, [two], ActFacts(step=step("read"))).action == "step_complete"


def test_a_missed_recipe_read_by_an_ingredient_sent_again_reads_the_recipes_made_with_it():
    """For "which recipes use spinach" the 1.5B local model read recipes by ``name ilike
    spinach`` twice, the note naming 'Red Lentil Dal', and the user was told no saved
    recipe matched."""
    by = {"field": "name", "op": "ilike", "value": "spinach"}
    params = {"table": "recipes", "filters": [by], "limit": 10}
    note = "no recipes row matches the filters; recipes holds 2 row(s) in all; "
    note += "recipes with an ingredient that shares a word: 'Red Lentil Dal', 'Saag Paneer'"
    missed = read_entry(params, table="recipes", count=0, rows=[], notes=[note])
    again = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_read", params=params))
    held = hold_act(again, [missed], ActFacts(step=step("read")))
    assert held.tool_call is not None and held.tool_call.params == {
        "table": "recipes",
        "filters": [{"field": "name", "op": "in", "value": ["Red Lentil Dal", "Saag Paneer"]}],
        "limit": 10,
    }
    ran = read_entry(held.tool_call.params, table="recipes", count=2, rows=[{}, {}])
    assert hold_act(again, [missed, ran], ActFacts(step=step("read"))).action == "step_complete"
    # two words: the note lists recipes sharing either, so nothing is aimed
    two = {**params, "filters": [{**by, "value": "baby spinach"}]}
    missed_two = read_entry(two, table="recipes", count=0, rows=[], notes=[note])
    assert aimed(ToolCall(tool="db_read", params=two), missed_two) is None
    # a name some recipe shares a word with is aimed by name, or not at all
    named = (
        "no recipes row matches; rows whose name shares a word: 'Spinach Soup', 'Spinach Pie'; "
        + note
    )
    near = read_entry(params, table="recipes", count=0, rows=[], notes=[named])
    assert aimed(ToolCall(tool="db_read", params=params), near) is None
    delete = ToolCall(tool="db_delete", params=params)
    assert aimed(delete, read_entry(params, count=0, rows=[], notes=[note])) is None


def test_a_read_sent_again_by_a_column_no_row_sets_is_read_without_that_filter():
    """For "when do i need to clean the oven by" the 1.5B local model read the tasks by
    ``category = cleanup`` twice, no task having a category, and found no task."""
    by = {"field": "category", "op": "=", "value": "cleanup"}
    open_ = {"field": "completed", "op": "=", "value": False}
    params = {"table": "tasks", "filters": [by, open_], "or_filters": [by], "limit": 10}
    note = "'category' is empty in every row: a filter on it matches nothing"
    missed = read_entry(params, table="tasks", count=0, rows=[], notes=["no row matches", note])
    again = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_read", params=params))
    held = hold_act(again, [missed], ActFacts(step=step("read")))
    assert held.tool_call is not None and held.tool_call.params == {
        "table": "tasks",
        "filters": [open_],
        "or_filters": [],
        "limit": 10,
    }
    ran = read_entry(held.tool_call.params, table="tasks", count=2, rows=[{}, {}])
    assert hold_act(again, [missed, ran], ActFacts(step=step("read"))).action == "step_complete"
    # a write is never widened: it would change rows it did not name
    update = ToolCall(tool="db_update", params={**params, "data": {"completed": True}})
    assert aimed(update, read_entry(params, count=0, rows=[], notes=[note])) is None
    # no such note, no change
    plain = read_entry(params, table="tasks", count=0, rows=[], notes=["no row matches"])
    assert aimed(ToolCall(tool="db_read", params=params), plain) is None


def test_a_write_steps_read_sent_again_after_its_aimed_read_ran_is_sent_back_to_write():
    """For "actually lets have the chili on monday not the dal" the 1.5B local model read
    name = "chili" three times in the meal plan's write step: the second ran aimed at
    'Weeknight Chili', and the third ended the step with that read, nothing written."""
    params = {"table": "recipes", "filters": [{"field": "name", "op": "=", "value": "chili"}]}
    note = "no recipes row matches the filters; rows whose name shares a word: 'Weeknight Chili'"
    missed = read_entry(params, table="recipes", count=0, rows=[], notes=[note])
    aimed_params = {**params, "filters": [{"field": "name", "op": "=", "value": "Weeknight Chili"}]}
    ran = read_entry(aimed_params, table="recipes", count=1, rows=[{"id": "recipe_2"}])
    again = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_read", params=params))
    sent_back = reread_note(again, [missed, ran], step("write"))
    assert sent_back is not None and "(it found 1 row(s), shown above)" in sent_back
    assert "This step is a write to" in sent_back
    assert reread_note(again, [missed, ran], step("read")) is None  # a read step's read stands


PLAN_NOTE = (
    "no row matches the filters, so nothing was updated; meal_plans holds 3 row(s) in all; "
    "its rows: 2026-11-30 dinner: Red Lentil Dal, 2026-12-01 dinner: Weeknight Chili, "
    "2026-12-01 lunch: no recipe"
)
TODAY_ROW = [{"field": "date", "op": "=", "value": "2026-11-28"}]
MOVE = ThinkStep(
    description="Change the date of the dal's row in the meal plan to Wednesday",
    step_type="write",
    subdomain="meal_plans",
)


def missed_plan(note: str = PLAN_NOTE, **params) -> ToolEntry:
    params = {"table": "meal_plans", "filters": TODAY_ROW, "data": {"date": "2026-12-02"}}
    return ToolEntry(tool="db_update", params=params, table="meal_plans", count=0, notes=[note])


def test_a_missed_meal_plan_write_sent_again_is_aimed_at_the_row_of_the_recipe_named():
    """For "can we move the dal to wednesday instead" the 1.5B local model updated the
    row dated today five times, the note listing the dal on Monday each time."""
    missed = missed_plan()
    again = ActDecision(
        action="tool_call", tool_call=ToolCall(tool="db_update", params=missed.params)
    )
    facts = ActFacts(message="can we move the dal to wednesday instead", step=MOVE)
    held = hold_act(again, [missed], facts)
    assert held.tool_call is not None and held.tool_call.params == {
        "table": "meal_plans",
        "filters": [
            {"field": "date", "op": "=", "value": "2026-11-30"},
            {"field": "meal_type", "op": "=", "value": "dinner"},
        ],
        "or_filters": [],
        "data": {"date": "2026-12-02"},
    }
    assert repeated_call(again, [missed], MOVE, facts.message) is None  # run at once
    # the same missed write a third time, after the aimed one moved the row: done
    assert held.tool_call is not None
    moved = ToolEntry(tool="db_update", params=held.tool_call.params, count=1, rows=[{}])
    done = hold_act(again, [missed, moved], facts)
    assert (done.action, done.result_summary) == (
        "step_complete",
        "Updated 1 meal in your meal plan.",
    )


def test_a_missed_meal_plan_write_that_moves_no_row_keeps_its_day():
    """ "have the chili on monday" with nothing on Monday: the update of Monday's recipe
    is not aimed at the chili's Tuesday; a delete is."""
    params = {"table": "meal_plans", "filters": TODAY_ROW, "data": {"recipe_id": "recipe_1"}}
    missed = ToolEntry(tool="db_update", params=params, count=0, notes=[PLAN_NOTE])
    call = ToolCall(tool="db_update", params=params)
    assert aimed(call, missed, "have the chili on monday") is None
    delete = ToolCall(tool="db_delete", params={"table": "meal_plans", "filters": TODAY_ROW})
    dropped = ToolEntry(tool="db_delete", params=delete.params, count=0, notes=[PLAN_NOTE])
    assert aimed(delete, dropped, "drop the chili from the plan") is not None


@pytest.mark.parametrize(
    ("message", "note"),
    [
        ("move dinner on monday to wednesday", PLAN_NOTE),  # no recipe named
        ("swap the chili and the dal", PLAN_NOTE),  # two rows named
        ("move the dal to wednesday", PLAN_NOTE.replace("Weeknight Chili", "Tadka Dal")),
        ("move the dal to wednesday", PLAN_NOTE + ", " + ", ".join(["2026-12-09 lunch: Soup"] * 8)),
    ],
)
def test_a_missed_meal_plan_write_names_no_one_row_and_is_not_aimed(message: str, note: str):
    missed = missed_plan(note)
    call = ToolCall(tool="db_update", params=missed.params)
    step_only = MOVE.model_copy(update={"description": "Update the meal plan"})
    assert aimed(call, missed, f"{step_only.description} {message}") is None
    held = hold_act(
        ActDecision(action="tool_call", tool_call=call),
        [missed],
        ActFacts(message=message, step=step_only),
    )
    assert held.reason_code == "nothing_matched"


def test_a_call_sent_again_whose_filters_cross_its_or_filters_runs_on_any_of_them():
    """For "bin the chili recipe, never liked it" the 1.5B local model deleted ``name =
    chili recipe`` with ``or_filters`` ``name = Weeknight Chili`` three times."""
    by = {"field": "name", "op": "="}
    params = {
        "table": "recipes",
        "filters": [{**by, "value": "chili recipe"}],
        "or_filters": [{**by, "value": "Weeknight Chili"}],
    }
    note = "no row can match: filters ask for name = 'chili recipe' and or_filters for …"
    missed = ToolEntry(tool="db_delete", params=params, table="recipes", count=0, notes=[note])
    again = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_delete", params=params))
    held = hold_act(again, [missed], ActFacts(step=step("write")))
    assert held.tool_call is not None and held.tool_call.params == {
        "table": "recipes",
        "filters": [],
        "or_filters": [{**by, "value": "chili recipe"}, {**by, "value": "Weeknight Chili"}],
    }
    # no such note: the call is not the one that crossed, or it may match
    plain = missed.model_copy(update={"notes": ["no row matches the filters"]})
    assert aimed(ToolCall(tool="db_delete", params=params), plain) is None


def test_a_call_sent_again_whose_filters_hold_a_name_to_two_values_runs_on_either():
    """For "take bread and olive oil off the list" the 1.5B local model deleted ``name =
    bread`` and ``name = olive oil``, both in filters, three times."""
    by = {"field": "name", "op": "="}
    both = [{**by, "value": "bread"}, {**by, "value": "olive oil"}]
    params = {"table": "shopping_list", "filters": both}
    note = "no row can match: filters ask for name = 'bread' and 'olive oil' at once …"
    missed = ToolEntry(tool="db_delete", params=params, count=0, notes=[note])
    again = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_delete", params=params))
    held = hold_act(again, [missed], ActFacts(step=step("write", subdomain="shopping")))
    assert held.tool_call is not None
    assert held.tool_call.params == {**params, "filters": [], "or_filters": both}


def test_a_missed_read_sent_again_with_only_an_order_added_is_aimed_too():
    """For "what goes in the chili" the 1.5B local model read ``name = Chili`` again with
    an order added: not aimed at 'Weeknight Chili', its second empty read stopped the step."""
    by = [{"field": "name", "op": "=", "value": "Chili"}]
    first = {"table": "recipes", "filters": by, "columns": ["name"], "limit": 1}
    note = "no row matches the filters; rows whose name shares a word: 'Weeknight Chili'"
    missed = read_entry(first, table="recipes", count=0, rows=[], notes=[note])
    ordered = {**first, "order_by": "name", "order_dir": "asc"}
    again = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_read", params=ordered))
    held = hold_act(again, [missed], ActFacts(step=step("read")))
    assert held.tool_call is not None
    assert held.tool_call.params["filters"] == [
        {"field": "name", "op": "=", "value": "Weeknight Chili"}
    ]
    # another limit is another read: it may show other rows
    wider = ActDecision(
        action="tool_call", tool_call=ToolCall(tool="db_read", params={**first, "limit": 50})
    )
    assert hold_act(wider, [missed], ActFacts(step=step("read"))) == wider
