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


def near_names(notes: list[str]) -> list[str]:
    """The names a ``near_note`` among ``notes`` lists (none when there is none)."""
    for note in notes:
        if NEAR not in note:
            continue
        listed = note.split(NEAR, 1)[1].split("; ", 1)[0]
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
