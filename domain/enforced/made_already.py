"""Rows a step would make or set again: the checks ``act_rules.hold_act`` makes before a
write runs, so a model that sends a change it has made already ends its step instead
(seed 004: what needs no judgment is the system's).

- ``created_already`` / ``created_earlier``: a create whose rows (``SAME_ROW``) the step,
  or an earlier step of the turn, has created;
- ``holds_already``: a write of values the rows it just wrote already hold;
- ``set_before``: an update that sets again what its update of the same rows set;
- ``grown_after_made``: a made-up quantity set on rows the step has just created.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from domain.crud.calls import HELD_ALREADY
from domain.kitchen.tables import ONE_ROW_TABLES
from domain.step_checks import write_key
from domain.tool_results import ToolEntry


def starts_with(name: str, start: str) -> bool:
    return name == start or name.startswith(start + " ")


def table_of(entry: ToolEntry) -> str:
    return entry.table or str((entry.params or {}).get("table"))


SAME_ROW: dict[str, tuple[str, ...]] = {
    "recipes": ("name",),
    "meal_plans": ("date", "meal_type", "recipe_id"),
    "shopping_list": ("name",),
    "inventory": ("name", "location"),
    "tasks": ("title", "due_date"),
    "cooking_log": ("recipe_id",),
}
"""The columns that make two rows of a table the same thing: one step creating a recipe of
the same name, or the same recipe for the same meal, twice, is a duplicate. So is one turn
logging one recipe cooked twice: for "we had the chili last night, it was great" the 1.5B
local model logged the chili for last night, then again for today."""


def _identities(table: Any, rows: Any) -> list[tuple[Any, ...]]:
    columns = SAME_ROW.get(str(table))
    if columns is None or not isinstance(rows, list) or not rows:
        return []
    found = []
    for row in rows:
        if not isinstance(row, dict) or row.get(columns[0]) in (None, ""):
            return []
        values = (row.get(c) for c in columns)
        found.append(tuple(v.strip().casefold() if isinstance(v, str) else v for v in values))
    return found


def created_already(params: dict[str, Any], tool_results: list[ToolEntry]) -> ToolEntry | None:
    """The step's successful create of the same table whose rows hold every row of this
    create (``SAME_ROW``), whatever their other columns and refs say: the 1.5B local model
    saved a week's meals with their ``gen_`` refs, then without; created a meal, updated
    its notes, then created it again with the notes; and created a recipe, then the same
    recipe with its ingredients' categories filled in; and saved a suggestion by its gen
    ref, then sent it again written out. Held here, in the activity, not in
    the workflow's own check of repeated writes, so that recorded histories replay
    unchanged."""
    made = _creates_of(params.get("table"), tool_results)
    key = write_key("db_create", params)
    if any(write_key("db_create", t.params or {}) == key for t in made):
        return None  # the very same create: the last call, or answered "already done"
    return created_earlier(params, made)


EARLIER_NOTE = "Nothing more was created; an earlier step of this turn had already done it:"


def created_earlier(params: dict[str, Any], creates: Sequence[ToolEntry]) -> ToolEntry | None:
    """The last of ``creates`` (successful creates, this step's or the turn's earlier
    steps') that made a row of this create, when together they made every one
    (``SAME_ROW``). For "add call mum on saturday and book the dentist monday", planned as
    one task a step, the 1.5B local model created both tasks in the first step, then
    "Call my mother" again in the second, and the user had it twice."""
    table = params.get("table")
    new = _identities(table, params.get("data"))
    made = _creates_of(table, creates)
    if not new or not made:
        return None
    done = [_made_rows(table, t) for t in made]
    if not all(_among(i, set().union(*done), table) for i in new):
        return None
    pairs = reversed(list(zip(made, done, strict=True)))
    return next(t for t, rows in pairs if any(_among(i, rows, table) for i in new))


def _made_rows(table: Any, create: ToolEntry) -> set[tuple[Any, ...]]:
    """The identities (``SAME_ROW``) of the rows ``create`` sent or made (a create by gen
    ref names its rows only in its result)."""
    sent = _identities(table, (create.params or {}).get("data"))
    return {*sent, *_identities(table, create.rows)}


def _creates_of(table: Any, tool_results: Sequence[ToolEntry]) -> list[ToolEntry]:
    return [
        t
        for t in tool_results
        if t.tool == "db_create" and not t.failed and t.params and t.params.get("table") == table
    ]


def _among(identity: tuple[Any, ...], done: set[tuple[Any, ...]], table: Any) -> bool:
    """``identity`` is one of the rows ``done``; a recipe also when its name is a done
    recipe's name of two words or more and more words (``by_ref``'s rule): the 1.5B local
    model saved its dinner by its gen ref, then created "… with Feta" beside it. ("Dal"
    and "Dal Makhani" are two recipes.)"""
    if identity in done:
        return True
    return table == "recipes" and any(
        len(str(d[0]).split()) > 1 and starts_with(str(identity[0]), str(d[0])) for d in done
    )


def holds_already(
    tool: str, params: Mapping[str, Any], tool_results: Sequence[ToolEntry]
) -> ToolEntry | None:
    """The step's last successful write of the table when this write would set only values
    its rows already hold: an update whose every ``filters`` equality picks some of those
    rows, each holding every value it sets, or, for the one-row profile, a create or
    update of values it holds. A write that changes nothing after the step has written:
    the 1.5B local model saved an allergy to the profile, then set the same columns again
    and again until the step's call limit. Other creates are ``created_already``'s."""
    table = params.get("table")
    if tool == "db_update":
        changes, filters = params.get("data"), params.get("filters") or []
    elif tool == "db_create" and table in ONE_ROW_TABLES:
        changes, filters = _one(params.get("data")), []
    else:
        return None
    if not isinstance(changes, dict) or not changes or params.get("or_filters"):
        return None
    last = next(
        (t for t in reversed(tool_results) if t.is_write and not t.failed and table_of(t) == table),
        None,
    )
    if last is None or not last.rows:
        return None
    rows = [r for r in last.rows if all(_holds(r, f) for f in filters)]
    if table not in ONE_ROW_TABLES and (not filters or not rows):
        return None
    if rows and all(_same_value(r.get(k), v) for r in rows for k, v in changes.items()):
        return last
    return None


def set_before(
    tool: str, params: Mapping[str, Any], tool_results: Sequence[ToolEntry], message: str
) -> ToolEntry | None:
    """The step's earlier update of the same rows (the same filters) that set the same
    columns, when this update sets them again to values the user's words (``message``,
    with this turn's answers) do not give: the step's change is made, and a change said
    relative to what was read ("the quantity read less 4") is not made twice. For "used
    4 eggs for the cake" the 1.5B local model set the eggs from 6 to 2, then, shown its
    write's result, to 0. A value the user gave is a correction, and runs: the milk set
    to 1, then to the 3 the user answered when asked how much. An update that changed no
    value (``HELD_ALREADY``) made no change to repeat: for "milk's down to half" the 1.5B
    set the milk to the 1 l it held, then to 0.5."""
    if tool != "db_update" or not isinstance(changes := params.get("data"), dict) or not changes:
        return None
    if any(_said(value, message) for value in changes.values()):
        return None
    where = _where_key(params)
    return next(
        (
            t
            for t in reversed(tool_results)
            if t.tool == "db_update"
            and t.succeeded_write()
            and t.count
            and HELD_ALREADY not in (t.notes or ())
            and t.params is not None
            and _where_key(t.params) == where
            and isinstance(t.params.get("data"), dict)
            and set(t.params["data"]) == set(changes)
        ),
        None,
    )


def grown_after_made(
    tool: str, params: Mapping[str, Any], tool_results: Sequence[ToolEntry], message: str
) -> ToolEntry | None:
    """The step's create of the rows this update picks (every ``filters`` equality holds
    on some of them) when it sets their quantity to an amount the user's words do not
    give: the step has written the rows as it planned them, and a count of its own after
    that is made up. For "found a bottle of olive oil in the cupboard" the 1.5B local
    model created the oil (1 bottle), then set it to 2, then to 3; the reply said 1."""
    data = params.get("data")
    if tool != "db_update" or not isinstance(data, dict) or "quantity" not in data:
        return None
    filters = params.get("filters") or []
    if not filters or params.get("or_filters") or _said(data["quantity"], message):
        return None
    return next(
        (
            t
            for t in reversed(tool_results)
            if t.tool == "db_create"
            and t.succeeded_write()
            and table_of(t) == params.get("table")
            and any(all(_holds(r, f) for f in filters) for r in t.rows or [])
        ),
        None,
    )


def _said(value: Any, message: str) -> bool:
    """Whether ``value`` (a number written as the user would: 3, not 3.0) is a word of
    ``message``."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip().lower()
    return bool(text) and re.search(rf"(?<!\w){re.escape(text)}(?!\w)", message.lower()) is not None


def _where_key(params: Mapping[str, Any]) -> str:
    """Which rows a write names, whatever the order of its keys."""
    where = {k: params.get(k) or [] for k in ("table", "filters", "or_filters")}
    return json.dumps(where, sort_keys=True, default=str)


def _one(data: Any) -> Any:
    """A one-row create's row (a list of one, or the row)."""
    return data[0] if isinstance(data, list) and len(data) == 1 else data


def _holds(row: Mapping[str, Any], condition: Any) -> bool:
    """Whether ``row`` meets an equality filter (any other filter: not known here)."""
    if not isinstance(condition, Mapping) or condition.get("op") not in ("=", "eq", "=="):
        return False
    return _same_value(row.get(str(condition.get("field"))), condition.get("value"))


def _same_value(held: Any, value: Any) -> bool:
    """Equal as the kitchen keeps them: text ignoring case and outer spaces, numbers by
    value, lists as sets of such."""
    if isinstance(held, list) and isinstance(value, list):
        return sorted(map(plain, held)) == sorted(map(plain, value))
    return plain(held) == plain(value)


def plain(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int | float):
        return repr(float(value))
    return str(value).strip().casefold()
