"""Specification of a read's filters held to what was said
(``domain.enforced.read_filters``; seed 004: models interpret, the system enforces)."""

from __future__ import annotations

import datetime as dt

import pytest

from domain.enforced.read_filters import (
    either,
    either_read,
    known_filters,
    one_day,
    one_day_read,
    said_names,
    said_read,
)
from domain.nodes import ActDecision, ToolCall

SATURDAY = dt.date(2026, 11, 28)


def _read(table: str, *filters: dict) -> dict:
    return {"table": table, "filters": list(filters), "or_filters": [], "limit": None}


def test_a_quick_read_from_the_one_day_the_words_name_reads_that_day():
    """For "what's planned for dinner next Monday?" the 1.5B read ``date >=`` Monday."""
    dinner = {"field": "meal_type", "op": "=", "value": "dinner"}
    onward = _read("meal_plans", {"field": "date", "op": ">=", "value": "2026-11-30"}, dinner)
    held = one_day(onward, "what's planned for dinner next Monday?", SATURDAY)
    assert held["filters"] == [{"field": "date", "op": "=", "value": "2026-11-30"}, dinner]
    due = _read("tasks", {"field": "due_date", "op": ">=", "value": "2026-11-29"})
    assert one_day(due, "anything due tomorrow", SATURDAY)["filters"][0]["op"] == "="


def test_a_steps_read_from_the_one_day_the_words_name_reads_that_day():
    """For "anything due tomorrow?" the 1.5B read ``due_date >=`` tomorrow in its read step."""
    due = _read("tasks", {"field": "due_date", "op": ">=", "value": "2026-11-29"})
    read = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_read", params=due))
    held = one_day_read(read, "anything due tomorrow?", SATURDAY)
    assert held.tool_call is not None
    assert held.tool_call.params["filters"] == [
        {"field": "due_date", "op": "=", "value": "2026-11-29"}
    ]
    assert one_day_read(read, "anything due from tomorrow on?", SATURDAY) == read  # a span
    assert one_day_read(read, "anything due tomorrow?", None) == read  # no clock, no day
    update = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_update", params=due))
    assert one_day_read(update, "anything due tomorrow?", SATURDAY) == update


@pytest.mark.parametrize(
    ("message", "read"),
    [
        ("what's planned from next Monday on?", ("meal_plans", "date", "2026-11-30")),
        ("whats planned this week", ("meal_plans", "date", "2026-11-23")),
        ("what's planned for dinner next Monday?", ("meal_plans", "date", "2026-12-01")),
        ("what's in the fridge for monday", ("inventory", "expiry_date", "2026-11-30")),
        ("what's planned?", ("meal_plans", "date", "2026-11-28")),
    ],
)
def test_a_quick_read_over_a_span_or_another_day_stands(message: str, read: tuple):
    table, column, day = read
    params = _read(table, {"field": column, "op": ">=", "value": day})
    assert one_day(params, message, SATURDAY) == params


def test_a_quick_reads_filter_by_a_name_the_words_never_said_is_dropped():
    """For "what's on my shopping list?" the 1.5B local model read the rows named like the
    recipe of the turn before, and answered that it found nothing."""
    read = {
        "table": "shopping_list",
        "filters": [{"field": "name", "op": "contains", "value": "Quick Vegetarian Dinner"}],
        "or_filters": [],
    }
    said = "what's on my shopping list?\nshow a recipe in full"
    assert said_names(read, said) == {**read, "filters": []}
    fridge = {"field": "location", "op": "=", "value": "fridge"}
    kept = {"table": "inventory", "filters": [fridge], "or_filters": []}
    assert said_names(kept, "what's in my fridge?") == kept  # not a name
    for message in ("do we have tomatoes?", "any cherry tomato left", "show me the DAL"):
        value = "%tomato%" if "tomato" in message else "dal"
        named = {
            "table": "inventory",
            "filters": [{"field": "name", "op": "ilike", "value": value}],
        }
        assert said_names(named, message) == named
    either = [
        {"field": "name", "op": "=", "value": "milk"},
        {"field": "name", "op": "=", "value": "rum"},
    ]
    assert said_names({"or_filters": either}, "any milk?") == {"or_filters": either[:1]}


def test_a_reads_filter_by_a_place_the_words_never_said_is_dropped():
    """For "where are the eggs" the 1.5B local model read the pantry's rows, and answered
    that the eggs were in the pantry (they were in the fridge)."""
    pantry = {"field": "location", "op": "=", "value": "pantry"}
    read = {"table": "inventory", "filters": [pantry], "or_filters": []}
    assert said_names(read, "where are the eggs\nread inventory") == {**read, "filters": []}
    assert said_names(read, "whats in the pantry") == read


def test_a_steps_read_keeps_what_the_words_or_the_turns_results_say():
    def reading(**params) -> ActDecision:
        call = {"tool": "db_read", "params": {"table": "inventory", **params}}
        return ActDecision(action="tool_call", tool_call=call)

    pantry = [{"field": "location", "op": "=", "value": "pantry"}]
    said = "where are the eggs\nRead the inventory"
    assert said_read(reading(filters=pantry), said) == reading(filters=[])
    lentils = [{"field": "name", "op": "in", "value": ["red lentils", "onion"]}]
    read_before = '{"rows": [{"name": "red lentils"}, {"name": "onion"}]}'
    kept = reading(filters=lentils)  # names a recipe read earlier in the turn gave
    assert said_read(kept, f"put what the dal needs on my list\n{read_before}") == kept
    write = ActDecision(
        action="tool_call",
        tool_call={"tool": "db_update", "params": {"table": "inventory", "filters": pantry}},
    )
    assert said_read(write, said) == write  # reads only


def test_a_reads_filter_by_a_ref_nothing_issued_is_dropped():
    """For "when are we having the dal" the 1.5B local model read the meal plans of
    ``recipe_id = gen_recipe_1`` (no such recipe) twice, refused each time."""

    def reading(*filters: dict) -> ActDecision:
        call = {"tool": "db_read", "params": {"table": "meal_plans", "filters": list(filters)}}
        return ActDecision(action="tool_call", tool_call=call)

    made_up = {"field": "recipe_id", "op": "=", "value": "gen_recipe_1"}
    dated = {"field": "date", "op": ">=", "value": "2026-11-30"}
    assert known_filters(reading(made_up, dated), {"recipe_1"}) == reading(dated)
    known = {**made_up, "value": "recipe_1"}
    assert known_filters(reading(known), {"recipe_1"}) == reading(known)
    some = {"field": "recipe_id", "op": "in", "value": ["recipe_1", "recipe_9"]}
    assert known_filters(reading(some), {"recipe_1"}) == reading({**some, "value": ["recipe_1"]})
    words = {"field": "notes", "op": "=", "value": "leftovers"}  # no ref: as it is
    assert known_filters(reading(words), set()) == reading(words)
    write = ActDecision(
        action="tool_call",
        tool_call={"tool": "db_delete", "params": {"table": "meal_plans", "filters": [made_up]}},
    )
    assert known_filters(write, set()) == write  # a write's filters are refused, not widened


def test_a_read_of_one_column_equal_to_two_values_reads_either():
    """For "we're low on everything in the fridge, add it all to the list" the 1.5B local
    model read the inventory where ``location = fridge`` and ``location = pantry``,
    twice: no row can be in both, and nothing from the fridge was listed."""
    fridge = {"field": "location", "op": "=", "value": "fridge"}
    pantry = {**fridge, "value": "pantry"}
    milk = {"field": "name", "op": "=", "value": "milk"}
    read = {"table": "inventory", "filters": [fridge, milk, pantry]}
    either_place = {"field": "location", "op": "in", "value": ["fridge", "pantry"]}
    assert either(read)["filters"] == [either_place, milk]
    same = {"table": "inventory", "filters": [fridge, fridge]}  # one value: as it is
    assert either(same) == same
    names = {"table": "inventory", "filters": [milk, {**milk, "value": "eggs"}]}
    assert either(names) == names  # names are matched by their words, one filter each
    call = ToolCall(tool="db_read", params=read)
    held = either_read(ActDecision(action="tool_call", tool_call=call))
    assert held.tool_call is not None and held.tool_call.params["filters"][0] == either_place
    write = ActDecision(action="tool_call", tool_call=ToolCall(tool="db_delete", params=read))
    assert either_read(write) == write  # a write's filters are as the model sent them
