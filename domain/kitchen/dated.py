"""How far from today each date this turn's reads found is, counted by the system.

An analyze or generate step is shown it beside the reads (``domain.context.act_context``),
as it is shown the recipes against the inventory: days between two dates need no
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


def dates_counted(results: Sequence[StepResult], today: dt.date | None) -> str:
    """One line per dated row read this turn, soonest first: "- Call the plumber (task):
    due Wed 2026-12-02, in 3 days". A task done is left out (its due date is past use);
    a meal is named by its recipe. Empty when nothing read has a date, or today is unknown."""
    if today is None:
        return ""
    lines: list[tuple[dt.date, str]] = []
    for table, (column, name, kind, said) in DATED.items():
        for row in rows_of(reads_of(results, table)):
            day = _day(row.get(column))
            if day is None or row.get("completed") is True:
                continue
            label = str(row.get(name) or kind)
            if table == "meal_plans":
                label += f": {row.get('_recipe_id_label') or row.get('notes') or 'a meal'}"
            when = f"{said} {day:%a} {day.isoformat()}, {days_from(day.isoformat(), today)}"
            lines.append((day, f"- {label} ({kind}): {when}"))
    return "\n".join(line for _, line in sorted(lines, key=lambda pair: pair[0]))
