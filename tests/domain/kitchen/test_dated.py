"""Specification of the days from today of the dates this turn's reads found
(``domain.kitchen.dated``)."""

from __future__ import annotations

import datetime as dt

from domain.kitchen.dated import dates_counted, dates_moved, moved_wrong
from tests.domain.kitchen.reads import read

SUNDAY = dt.date(2026, 11, 29)


def test_a_tasks_due_date_is_counted_in_days_from_today():
    """Asked "how many days till the plumber" with the task due Wednesday, the 1.5B local
    model's analyze step said 2 days."""
    plumber = {"id": "task_1", "title": "Call the plumber", "due_date": "2026-12-02"}
    assert dates_counted([read("tasks", [plumber])], SUNDAY) == (
        "- Call the plumber (task): due Wed 2026-12-02, in 3 days"
    )


def test_every_dated_row_read_is_listed_soonest_first_and_a_done_task_is_not():
    tasks = [
        {"id": "task_1", "title": "Call the plumber", "due_date": "2026-12-02"},
        {"id": "task_2", "title": "Clean the oven", "due_date": "2026-11-28", "completed": True},
        {"id": "task_3", "title": "Sharpen the knives"},  # no date: nothing to count
    ]
    stock = [
        {"id": "inv_1", "name": "milk", "expiry_date": "2026-11-30"},
        {"id": "inv_2", "name": "eggs", "expiry_date": "2026-11-27"},
        {"id": "inv_3", "name": "rice"},
    ]
    meals = [
        {
            "id": "meal_1",
            "date": "2026-11-29",
            "meal_type": "dinner",
            "_recipe_id_label": "Red Lentil Dal",
        },
        {"id": "meal_2", "date": "2026-12-05", "meal_type": "lunch", "notes": "leftovers"},
    ]
    counted = dates_counted(
        [read("tasks", tasks), read("inventory", stock, 1), read("meal_plans", meals, 2)], SUNDAY
    )
    assert counted.splitlines() == [
        "- eggs (in stock): expires Fri 2026-11-27, 2 days ago",
        "- dinner: Red Lentil Dal (meal plan): planned Sun 2026-11-29, today",
        "- milk (in stock): expires Mon 2026-11-30, tomorrow",
        "- Call the plumber (task): due Wed 2026-12-02, in 3 days",
        "- lunch: leftovers (meal plan): planned Sat 2026-12-05, in 6 days",
    ]


def test_a_row_read_twice_is_counted_once_and_nothing_undated_or_unread_is_counted():
    plumber = {"id": "task_1", "title": "Call the plumber", "due_date": "2026-12-02"}
    twice = dates_counted([read("tasks", [plumber]), read("tasks", [plumber], 1)], SUNDAY)
    assert twice == "- Call the plumber (task): due Wed 2026-12-02, in 3 days"
    assert dates_counted([read("recipes", [{"id": "recipe_1", "name": "Dal"}])], SUNDAY) == ""
    assert dates_counted([read("tasks", [{"id": "task_1", "due_date": "soon"}])], SUNDAY) == ""
    assert dates_counted([read("tasks", [plumber])], None) == ""  # no clock, no count


def test_a_write_that_moves_dates_is_shown_each_date_of_its_table_moved():
    """Asked to "push everything on my todo list back a week", the 1.5B local model set
    each task the date it already had."""
    tasks = [
        {"id": "task_1", "title": "Call the plumber", "due_date": "2026-12-05"},
        {"id": "task_2", "title": "Clean the oven", "due_date": "2026-12-03"},
        {"id": "task_3", "title": "Mop", "due_date": "2026-12-01", "completed": True},
        {"id": "task_4", "title": "Sharpen the knives"},
    ]
    milk = {"id": "inv_1", "name": "milk", "expiry_date": "2026-12-04"}
    reads = [read("tasks", tasks), read("inventory", [milk], 1)]
    assert dates_moved(reads, "tasks", [7]).splitlines() == [
        "- Clean the oven (task): due Thu 2026-12-03; 7 days later: Thu 2026-12-10",
        "- Call the plumber (task): due Sat 2026-12-05; 7 days later: Sat 2026-12-12",
    ]
    assert dates_moved(reads, "tasks", [-1, 2]).splitlines()[0] == (
        "- Clean the oven (task): due Thu 2026-12-03; 1 day earlier: Wed 2026-12-02;"
        " 2 days later: Sat 2026-12-05"
    )
    assert dates_moved(reads, "tasks", []) == ""  # no words that move a date
    assert dates_moved(reads, "recipes", [7]) == ""  # no dates there
    assert dates_moved(reads, "meal_plans", [7]) == ""  # none read


def test_a_date_set_elsewhere_than_the_words_move_it_says_where_they_do():
    """Asked to "push everything on my todo list back a week", shown each task's date
    moved, the 1.5B local model set the plumber's to the oven's."""
    tasks = [
        {"id": "task_1", "title": "Call the plumber", "due_date": "2026-12-05"},
        {"id": "task_2", "title": "Clean the oven", "due_date": "2026-12-03"},
    ]
    reads = [read("tasks", tasks)]
    plumber = [{"field": "title", "op": "=", "value": "Call the plumber"}]
    assert moved_wrong(reads, "tasks", plumber, "2026-12-10", [7]) == (
        "not made: Call the plumber was due Sat 2026-12-05 when read; moved as the user's "
        "words say, it is Sat 2026-12-12 (7 days later), not Thu 2026-12-10. Send this "
        "db_update again with that date."
    )
    assert moved_wrong(reads, "tasks", plumber, "2026-12-12", [7]) is None  # where they say
    by_ref = [{"field": "id", "op": "=", "value": "task_2"}]
    assert moved_wrong(reads, "tasks", by_ref, "2026-12-04", [1]) is None
    assert moved_wrong(reads, "tasks", by_ref, "2026-12-05", [1]) is not None
    # no one row read by those filters, no date, no move: not for the system to say
    assert moved_wrong(reads, "tasks", [], "2026-12-10", [7]) is None
    mop = [{"field": "title", "op": "=", "value": "Mop"}]
    assert moved_wrong(reads, "tasks", mop, "2026-12-10", [7]) is None
    assert moved_wrong(reads, "tasks", plumber, "saturday", [7]) is None
    assert moved_wrong(reads, "tasks", plumber, "2026-12-10", []) is None
