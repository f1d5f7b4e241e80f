"""A read's filters held to what was said (seed 004: what needs no judgment is the
system's): the checks ``act_rules.hold_act`` and Act Quick make before a read runs, so a
filter the words never asked for cannot hide the rows they ask about.

- ``one_day``: ``date >=`` the one day the words name reads that day (``=``);
- ``said_names``: a filter by a name, a title or a place nobody said is dropped;
- ``known_filters``: a filter by a ref nothing in the turn has issued is dropped;
- ``either``: two filters that each hold one column to another value read either value.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Container
from typing import Any

from domain.crud.near import NAMES
from domain.nodes import ActDecision
from domain.registry.refs import is_ref
from domain.relative_days import named_days
from domain.step_checks import words as words_of

DAY_COLUMNS = {"meal_plans": "date", "tasks": "due_date"}
"""The column that says which day a row is for."""
SPAN = re.compile(
    r"\b(?:from|since|after|until|till|onwards?|before|through|by|week|weekend|days)\b",
    re.IGNORECASE,
)
"""Words that make the day a user names the edge of a span: "from next Monday on"."""


def one_day(params: dict[str, Any], message: str, today: dt.date) -> dict[str, Any]:
    """A read held to the one day the words name: its filter ``date >=`` that day,
    with no other on the column, becomes ``date =`` it. For "what's planned for dinner
    next Monday?" the 1.5B local model read ``date >= 2026-11-30`` twice, with Act
    Quick's prompt saying one day is ``=``, and the user read Tuesday's dinner too. Words
    of a span ("from", "until", "this week") leave the read as it is."""
    column = DAY_COLUMNS.get(str(params.get("table")))
    if column is None or SPAN.search(message):
        return params
    lines = named_days(message, today)
    days = set(re.findall(r"\d{4}-\d{2}-\d{2}", " ".join(lines)))
    filters = params.get("filters")
    if len(lines) != 1 or len(days) != 1 or not isinstance(filters, list):
        return params
    on_column = [f for f in filters if isinstance(f, dict) and f.get("field") == column]
    edge = {"field": column, "op": ">=", "value": next(iter(days))}
    if len(on_column) != 1 or on_column[0] != edge:
        return params
    return {**params, "filters": [{**f, "op": "="} if f == edge else f for f in filters]}


def one_day_read(decision: ActDecision, message: str, today: dt.date | None) -> ActDecision:
    """A step's read held to the one day the words name, as a quick read is (``one_day``):
    for "anything due tomorrow?", planned as "Read the tasks not completed, due tomorrow",
    the 1.5B local model read ``due_date >= 2026-11-30`` twice, and the user was told a
    task due on Wednesday was due tomorrow."""
    if today is None:
        return decision
    return _read_held(decision, lambda params: one_day(params, message, today))


def _read_held(
    decision: ActDecision, hold: Callable[[dict[str, Any]], dict[str, Any]]
) -> ActDecision:
    """``decision`` with its read's params as ``hold`` leaves them; any other decision as
    it is."""
    call = decision.tool_call
    if call is None or call.tool != "db_read":
        return decision
    held = hold(call.params)
    if held == call.params:
        return decision
    return decision.model_copy(update={"tool_call": call.model_copy(update={"params": held})})


def _stems(text: str) -> set[str]:
    """The words of ``text`` of three letters or more (``step_checks.words``); a word
    that begins another is taken for the same word ("tomato", "tomatoes")."""
    return {w for w in words_of(text) if len(w) >= 3}


SAID = (*NAMES, "location")
"""The columns a read filters by what the words say: a row's name or title, and where it
is kept."""


def said_names(params: dict[str, Any], said: str) -> dict[str, Any]:
    """A read without its filters by a name, a title or a place (``SAID``) that shares no
    word with ``said`` (the user's words, and what the turn has read): such a filter can
    only hide rows. For "what's on my shopping list?" the 1.5B local model read the list's
    rows named like the recipe of the turn before, and answered "I couldn't find that on
    your shopping list"; for "where are the eggs" it read the pantry's rows, and answered
    that the eggs were in the pantry."""
    words = _stems(said)

    def unsaid(flt: Any) -> bool:
        if not isinstance(flt, dict) or flt.get("field") not in SAID:
            return False
        value = flt.get("value")
        values = value if isinstance(value, list) else [value]
        named = set().union(*(_stems(v) for v in values if isinstance(v, str)))
        return bool(named) and not any(
            a.startswith(b) or b.startswith(a) for a in named for b in words
        )

    return _each_filter(params, lambda flt: None if unsaid(flt) else flt)


def _each_filter(params: dict[str, Any], keep: Callable[[Any], Any]) -> dict[str, Any]:
    """``params`` with each filter and or-filter as ``keep`` leaves it (None: dropped)."""
    kept = {
        key: [f for f in map(keep, params[key]) if f is not None]
        for key in ("filters", "or_filters")
        if isinstance(params.get(key), list)
    }
    return {**params, **kept}


def said_read(decision: ActDecision, said: str) -> ActDecision:
    """A step's read held to what was said (``said_names``), as a quick read is: ``said``
    is the user's words, the step's description and every result the turn has."""
    return _read_held(decision, lambda params: said_names(params, said))


def known_filters(decision: ActDecision, known: Container[str]) -> ActDecision:
    """A read without its filters by a ref nothing in the turn has issued (``known``: the
    registry's refs), and a list of refs without those: such a filter can only be
    refused, and a read without it finds the rows. For "when are we having the dal" the
    1.5B local model read the meal plans of ``recipe_id = gen_recipe_1`` (no such
    recipe), was refused twice, and the step ended with nothing read."""

    def unknown(value: Any) -> bool:
        return isinstance(value, str) and is_ref(value) and value not in known

    def kept(flt: Any) -> Any:
        value = flt.get("value") if isinstance(flt, dict) else None
        if isinstance(value, list) and any(unknown(v) for v in value):
            rest = [v for v in value if not unknown(v)]
            return {**flt, "value": rest} if rest else None
        return None if unknown(value) else flt

    return _read_held(decision, lambda params: _each_filter(params, kept))


def either(params: dict[str, Any]) -> dict[str, Any]:
    """A read whose filters hold one column equal to two or more values (all filters must
    hold, so no row can) with those filters made one ``in`` filter, where the first of
    them was: the read asks for rows of either value (not for a name, which is matched by
    its words, not as it is spelled: ``crud.ingredients``). For "we're low on everything in the
    fridge, add it all to the list" the 1.5B local model read the inventory where
    ``location = fridge`` and ``location = pantry``, twice, found nothing, and listed
    nothing from the fridge."""
    filters = params.get("filters")
    if not isinstance(filters, list):
        return params
    values: dict[str, list[Any]] = {}
    for flt in filters:
        if isinstance(flt, dict) and flt.get("op") == "=" and isinstance(flt.get("field"), str):
            seen = values.setdefault(flt["field"], [])
            if flt.get("value") not in seen:
                seen.append(flt.get("value"))
    torn = {field for field, seen in values.items() if len(seen) > 1 and field not in NAMES}
    if not torn:
        return params
    held: list[Any] = []
    for flt in filters:
        field = flt.get("field") if isinstance(flt, dict) else None
        if field in torn and flt.get("op") == "=":
            if all(not (isinstance(h, dict) and h.get("field") == field) for h in held):
                held.append({**flt, "op": "in", "value": values[field]})
            continue
        held.append(flt)
    return {**params, "filters": held}


def either_read(decision: ActDecision) -> ActDecision:
    """A step's read of either value its filters hold one column to (``either``)."""
    return _read_held(decision, either)
