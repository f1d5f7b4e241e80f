"""How far from today each date this turn's reads found is, and where the user's words
move it, counted by the system.

An analyze or generate step is shown the days beside the reads
(``domain.context.act_context``), as it is shown the recipes against the inventory, and a
write step the dates moved as the user's words say: days between two dates need no
judgment. Asked "how many days till the plumber" on Sunday 2026-11-29, with the task
read as due 2026-12-02, the 1.5B local model's analyze step answered "2 days", and Reply
said so.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from domain.conversation import StepResult
from domain.formatters import days_from
from domain.kitchen.stocked import reads_of, rows_of
from domain.relative_days import moved_by

DATED: dict[str, tuple[str, str, str, str]] = {
    # table -> (date column, name column, what a row is, what its date is)
    "tasks": ("due_date", "title", "task", "due"),
    "inventory": ("expiry_date", "name", "in stock", "expires"),
    "meal_plans": ("date", "meal_type", "meal plan", "planned"),
}


def _day(value: Any) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(value or "")[:10])
    except ValueError:
        return None


def _said(day: dt.date) -> str:
    return f"{day:%a} {day.isoformat()}"


def _dated_rows(
    results: Sequence[StepResult], tables: Sequence[str] = tuple(DATED)
) -> list[tuple[dt.date, str, str]]:
    """Each dated row read this turn in ``tables``, soonest first, as (date, "Call the
    plumber (task)", "due"). A task done is left out (its due date is past use); a meal
    is named by its recipe."""
    rows: list[tuple[dt.date, str, str]] = []
    for table in tables:
        column, name, kind, said = DATED[table]
        for row in rows_of(reads_of(results, table)):
            day = _day(row.get(column))
            if day is None or row.get("completed") is True:
                continue
            label = str(row.get(name) or kind)
            if table == "meal_plans":
                label += f": {row.get('_recipe_id_label') or row.get('notes') or 'a meal'}"
            rows.append((day, f"{label} ({kind})", said))
    return sorted(rows, key=lambda row: row[0])


def dates_counted(results: Sequence[StepResult], today: dt.date | None) -> str:
    """One line per dated row read this turn (``_dated_rows``): "- Call the plumber
    (task): due Wed 2026-12-02, in 3 days". Empty when nothing read has a date, or today is
    unknown."""
    if today is None:
        return ""
    return "\n".join(
        f"- {label}: {said} {_said(day)}, {days_from(day.isoformat(), today)}"
        for day, label, said in _dated_rows(results)
    )


def dates_moved(results: Sequence[StepResult], table: str, days: Sequence[int]) -> str:
    """Each dated row of ``table`` read this turn with its date moved by each of ``days``
    (``domain.relative_days.moves_said``): "- Clean the oven (task): due Thu 2026-12-03;
    7 days later: Thu 2026-12-10". A write step that moves dates is shown it: asked to
    "push everything on my todo list back a week", the 1.5B local model set each task the
    date it already had. Empty for a table with no date, or no moves."""
    if table not in DATED or not days:
        return ""
    lines = []
    for day, label, said in _dated_rows(results, (table,)):
        moved = [f"{moved_by(by)}: {_said(day + dt.timedelta(days=by))}" for by in days]
        lines.append(f"- {label}: {said} {_said(day)}; {'; '.join(moved)}")
    return "\n".join(lines)


def _row_named(results: Sequence[StepResult], table: str, filters: Any) -> dict[str, Any] | None:
    """The one row of ``table`` read this turn that ``filters`` name (``=`` on its ref,
    name or title), or None."""
    if table not in DATED or not isinstance(filters, list):
        return None
    name = DATED[table][1]
    named = {
        str(f.get("value")).strip().lower()
        for f in filters
        if isinstance(f, dict) and f.get("op") == "=" and f.get("field") in ("id", name)
    }
    rows = [
        row
        for row in rows_of(reads_of(results, table))
        if named & {str(row.get("id")).lower(), str(row.get(name) or "").strip().lower()}
    ]
    return rows[0] if len(rows) == 1 else None


def moved_date(results: Sequence[StepResult], table: str, filters: Any, days: int) -> str | None:
    """The ISO date the one row ``filters`` name (``_row_named``) moves to, ``days`` from
    the date this turn read for it; None when no one row, or it had no date."""
    row = _row_named(results, table, filters)
    old = _day(row.get(DATED[table][0])) if row is not None else None
    return (old + dt.timedelta(days=days)).isoformat() if old is not None else None


def moved_wrong(
    results: Sequence[StepResult], table: str, filters: Any, value: Any, days: Sequence[int]
) -> str | None:
    """Why a date set on the one row of ``table`` that ``filters`` name (``=`` on its ref,
    name or title) is not where the words move it (each of ``days`` from the date this
    turn read for it), or None: the row read no date, the filters name no one row read,
    or the date is one the words give. Asked to "push everything on my todo list back a
    week", shown each task's date moved, the 1.5B local model set the plumber's to the
    oven's."""
    row = _row_named(results, table, filters) if days else None
    if row is None:
        return None
    column, name, kind, said = DATED[table]
    new = _day(value)
    if new is None or (old := _day(row.get(column))) is None:
        return None
    wanted = [old + dt.timedelta(days=by) for by in days]
    if new in wanted:
        return None
    pairs = zip(wanted, days, strict=True)
    moved = " or ".join(f"{_said(day)} ({moved_by(by)})" for day, by in pairs)
    return (
        f"not made: {row.get(name) or kind} was {said} {_said(old)} when read; moved as "
        f"the user's words say, it is {moved}, not {_said(new)}. Send this db_update again "
        "with that date."
    )
