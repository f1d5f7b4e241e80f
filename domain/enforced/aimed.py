"""Aiming a missed call: a read or write that matched no row, sent again unchanged, run
on what its result's note says the words can only mean (``domain.enforced.act_rules``
holds Act's decision to it; seed 004: what needs no judgment is the system's).

The executor's note on an empty read or write (``domain.crud.near``) lists the rows whose
name shares a word with the name given, the recipes made with an ingredient of that name,
the meal plan's rows, or the columns the filters looked in that no row sets; sent the
same call again, the system aims it where the note leaves one meaning:

- ``aimed``: a name that is one row's ("yogurt" is the one 'greek yogurt');
- ``_made_with``: a one-word recipe name that is only an ingredient ("spinach");
- ``aimed_plan``: a meal-plan move or delete by the recipe the words name;
- ``_unset_left_out``: a read without its filters on columns no row sets;
- ``_uncrossed``: a call whose filters and or_filters hold a column to different values
  at once, or whose filters alone hold a name to two, on the rows of any of them.
"""

from __future__ import annotations

from pydantic import ValidationError

from domain.crud.calls import Filter
from domain.crud.filters import CROSSED, crossed, named_twice
from domain.crud.near import (
    MADE_WITH,
    NAMES,
    NEAR_NAMES,
    name_words,
    near_names,
    only_holder,
    only_planned,
    planned_rows,
    unset_fields,
)
from domain.nodes import ThinkStep, ToolCall
from domain.tool_results import ToolEntry


def aimed(call: ToolCall, missed: ToolEntry, words: str = "") -> ToolCall | None:
    """A write by a name that matched no row, sent again unchanged, aimed at the one row
    its result's note names whose name holds every word the write named (``only_holder``:
    "yogurt" is the "greek yogurt" when no other row holds it). None when the write named
    a row another way too (or-filters, a second name), or no one row is that row. The
    1.5B local model deleted "yogurt" twice for "the yogurt's gone off, chuck it", told
    each time that 'greek yogurt' was the row, and the step was blocked. A read is aimed
    the same way (it read "dal" twice, the note naming 'Red Lentil Dal', and put no
    recipe on the meal plan). A meal-plan write has no name: it is aimed by the recipe
    ``words`` name (``aimed_plan``)."""
    if (either := _uncrossed(call, missed)) is not None:
        return either
    if call.params.get("table") == "meal_plans" and call.tool != "db_read":
        return aimed_plan(call, missed, words)
    if (wider := _unset_left_out(call, missed)) is not None:
        return wider
    filters = call.params.get("filters")
    if call.params.get("or_filters") or not isinstance(filters, list):
        return None
    named = [
        i
        for i, f in enumerate(filters)
        if isinstance(f, dict) and f.get("field") in NAMES and isinstance(f.get("value"), str)
    ]
    if len(named) != 1:
        return None
    flt = filters[named[0]]
    listed = near_names(missed.notes or [])
    if len(listed) >= NEAR_NAMES:  # the note may have left the other holders out
        return None
    said = str(flt["value"]).strip("%")
    row = only_holder(said, listed)
    if row is None:
        return _made_with(call, missed, said, named[0]) if not listed else None
    aimed_at = [*filters[: named[0]], {**flt, "op": "=", "value": row}, *filters[named[0] + 1 :]]
    return call.model_copy(update={"params": {**call.params, "filters": aimed_at}})


def _uncrossed(call: ToolCall, missed: ToolEntry) -> ToolCall | None:
    """A call sent again unchanged whose filters hold a column to one value while its
    or_filters hold it to others (``domain.crud.filters.crossed``: no row can match, and
    its result's note said so), with every one of those values in its or_filters: the
    rows of any of them, which is all the call can mean. For "bin the chili recipe, never
    liked it" the 1.5B local model deleted ``name = chili recipe`` with ``or_filters``
    ``name = Weeknight Chili`` three times, and nothing was deleted. So is a call whose
    filters alone hold a name to two values (``named_twice``)."""
    if not any(CROSSED in note for note in missed.notes or []):
        return None
    try:
        filters = [Filter.model_validate(f) for f in call.params.get("filters") or []]
        either = [Filter.model_validate(f) for f in call.params.get("or_filters") or []]
    except ValidationError:
        return None
    if crossed(filters, either) is None:
        return None
    if either:
        field = either[0].field
        held = [f for f in filters if f.field == field and f.op == "="]
    elif (twice := named_twice(filters)) is not None:
        held = twice[1]  # "take bread and olive oil off the list": name = each, in filters
    else:
        return None
    params = {
        **call.params,
        "filters": [f.model_dump() for f in filters if f not in held],
        "or_filters": [f.model_dump() for f in [*held, *either]],
    }
    return call.model_copy(update={"params": params})


def _unset_left_out(call: ToolCall, missed: ToolEntry) -> ToolCall | None:
    """A read sent again unchanged without the filters on the columns its result's note
    says no row sets (``unset_fields``): each can only match nothing. None for a write (a
    wider write changes rows it did not name) or when no such filter is there. For "when
    do i need to clean the oven by" the 1.5B local model read the tasks by ``category =
    cleanup`` twice, no task having a category, and found no task."""
    unset = set(unset_fields(missed.notes or []))
    if call.tool != "db_read" or not unset:
        return None
    params = dict(call.params)
    for key in ("filters", "or_filters"):
        given = params.get(key)
        if isinstance(given, list):
            params[key] = [
                f for f in given if not isinstance(f, dict) or f.get("field") not in unset
            ]
    return call.model_copy(update={"params": params}) if params != call.params else None


def _made_with(call: ToolCall, missed: ToolEntry, said: str, at: int) -> ToolCall | None:
    """A read of recipes by a one-word name no recipe has, sent again unchanged, aimed at
    the recipes its result's note lists as made with an ingredient of that name: the word
    can mean no recipe's name, only what it is made with. None for a write, a name of
    several words (the note lists recipes sharing any one of them) or a note that may have
    left recipes out. For "which recipes use spinach" the 1.5B local model read recipes
    by ``name ilike spinach`` twice, the note naming 'Red Lentil Dal', and the user was
    told no saved recipe matched."""
    if call.tool != "db_read" or call.params.get("table") != "recipes":
        return None
    made = near_names(missed.notes or [], MADE_WITH)
    if len(name_words(said)) != 1 or not made or len(made) >= NEAR_NAMES:
        return None
    filters = list(call.params["filters"])
    filters[at] = {"field": "name", "op": "in", "value": made}
    return call.model_copy(update={"params": {**call.params, "filters": filters}})


def naming(step: ThinkStep | None, message: str) -> str:
    """The words that may name the row a missed write means: the step's and the user's."""
    return f"{step.description if step else ''} {message}"


def aimed_plan(call: ToolCall, missed: ToolEntry, words: str) -> ToolCall | None:
    """A meal-plan write that matched no row, sent again unchanged, aimed at the one row
    its result's note lists whose recipe the step's and the user's ``words`` name
    (``only_planned``), by that row's date and meal, when it moves the row to another
    date or deletes it (a write that changes a row's recipe on a day names that day as
    the user's). None when the note may have left rows out, or no one row is that row.
    For "can we move the dal to wednesday instead" the 1.5B local model updated the row
    dated today five times, the note listing the dal on Monday each time."""
    moves = call.tool == "db_delete" or "date" in (call.params.get("data") or {})
    if not moves:  # a recipe swapped on a day with no row: the day is the user's, not a guess
        return None
    listed = planned_rows(missed.notes or [])
    if len(listed) >= NEAR_NAMES or (row := only_planned(words, listed)) is None:
        return None
    date, meal, _ = row
    at = [
        {"field": "date", "op": "=", "value": date},
        {"field": "meal_type", "op": "=", "value": meal},
    ]
    return call.model_copy(update={"params": {**call.params, "filters": at, "or_filters": []}})
