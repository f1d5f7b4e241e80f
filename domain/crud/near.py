"""Rows named alike: the words of a name, the note that names the rows sharing one, and
the one row a missed write's name can only mean.

The executor's note on a read or a write by a name that found nothing lists the rows whose
name shares a word with it (``near_note``); ``domain.enforced`` reads those names back
(``near_names``) when the same write is sent again, and aims it at the one row whose name
holds every word the write named (``only_holder``)."""

from __future__ import annotations

import ast
import re

NAMES = ("name", "title")
"""The columns that name a row: a task's is its title."""
NEAR = "rows whose name shares a word: "
NEAR_NAMES = 10
"""At most this many names in the note on a write or a read by name that matched nothing."""


def name_words(text: str) -> set[str]:
    """The words of a name, each without a plural ending ("lentils" is ``lentil``,
    "tomatoes" ``tomato``), so that a row's singular is found too."""
    return {re.sub(r"(?<=[a-z]{3})e?s$", "", w) for w in re.findall(r"[a-z]{3,}", text.lower())}


def near_note(names: list[str]) -> str:
    return NEAR + ", ".join(repr(n) for n in names)


MEANT = "no row is named {named!r}; this is {meant!r}, the one whose name holds every word of it"
"""The note on a read by a name no row has, served the one row whose name holds every word
of it: "the chili" is the Weeknight Chili when no other recipe's name says chili."""


def meant_note(named: str, meant: str) -> str:
    return MEANT.format(named=named, meant=meant)


MADE_WITH = "recipes with an ingredient that shares a word: "
"""Where the note on a read of recipes by a name that found nothing lists the recipes
made with an ingredient of that name."""


def made_with_note(names: list[str]) -> str:
    return MADE_WITH + ", ".join(repr(n) for n in names)


def near_names(notes: list[str], head: str = NEAR) -> list[str]:
    """The names a ``near_note`` (or, with ``head``, a ``made_with_note``) among ``notes``
    lists (none when there is none)."""
    for note in notes:
        if head not in note:
            continue
        listed = note.split(head, 1)[1].split("; ", 1)[0]
        try:
            names = ast.literal_eval(f"[{listed}]")
        except (ValueError, SyntaxError):
            return []
        return [n for n in names if isinstance(n, str)]
    return []


def only_holder(named: str, candidates: list[str]) -> str | None:
    """The one candidate whose name holds every word of ``named`` ("yogurt" is the
    "greek yogurt" when no other row holds it; "leftover rice" is not "cooked rice");
    None when no candidate does, or more than one."""
    words = name_words(named)
    holders = [c for c in candidates if words and words <= name_words(c)]
    return holders[0] if len(holders) == 1 else None


UNSET = " is empty in every row: a filter on it matches nothing"
"""What the note on an empty read says of a column it filtered on that no row sets."""
_UNSET = re.compile(rf"'(\w+)'{re.escape(UNSET)}")


def unset_note(field: str) -> str:
    return f"{field!r}{UNSET}"


def unset_fields(notes: list[str]) -> list[str]:
    """The columns the ``unset_note`` s among ``notes`` name."""
    return [m.group(1) for note in notes for m in _UNSET.finditer(note)]


PLANNED = "its rows: "
"""Where a missed meal-plan write's note lists the plan's rows (a meal plan row has no
name to suggest): ``2026-11-30 dinner: Red Lentil Dal``, each as ``planned_row`` gives."""
_PLANNED_ROW = re.compile(r"(\d{4}-\d{2}-\d{2}) (\w+): (.+?)(?=, \d{4}-\d{2}-\d{2} |$)")
NO_RECIPE = "no recipe"
PLAN_WORDS = frozenset(
    name_words(
        "the and with for from into onto our your this that its row meal plan planned dinner "
        "lunch breakfast snack date day week recipe instead move change update put set swap "
        "replace delete remove drop have let lets can want could would please new next today "
        "tomorrow monday tuesday wednesday thursday friday saturday sunday"
    )
)
"""Words of a request or a step about a meal plan that name no recipe in it."""


def planned_row(date: str, meal: str, recipe: str | None) -> str:
    return f"{date} {meal}: {recipe or NO_RECIPE}"


def planned_note(rows: list[str]) -> str:
    return PLANNED + ", ".join(rows)


def planned_rows(notes: list[str]) -> list[tuple[str, str, str]]:
    """The rows a ``planned_note`` among ``notes`` lists, as (date, meal, recipe)."""
    for note in notes:
        if PLANNED in note:
            return _PLANNED_ROW.findall(note.split(PLANNED, 1)[1].split("; ", 1)[0])
    return []


def only_planned(text: str, rows: list[tuple[str, str, str]]) -> tuple[str, str, str] | None:
    """The one row whose recipe shares a word with ``text`` (the step and the user's
    words, less ``PLAN_WORDS``: "move the dal to wednesday" is the row of "Red Lentil
    Dal"); None when no row's recipe does, or more than one."""
    words = name_words(text) - PLAN_WORDS
    holders = [r for r in rows if r[2] != NO_RECIPE and words & name_words(r[2])]
    return holders[0] if len(holders) == 1 else None
