"""Amounts the user's words scale ("double the lentils", "halve the sugar"), counted by the
system from the rows this turn read.

A write step is shown each amount read, scaled (``domain.context.act_context``), as it is
shown each date moved: twice 200 g needs no judgment. For "make the dal serve 6 and
double the lentils" the 1.5B local model, which read nothing, set the dal's servings to
6, then to 12, and wrote "Double the lentils in the recipe instructions." as its
instructions; the lentils stayed 200 g.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.conversation import StepResult
from domain.crud.near import name_words
from domain.kitchen.stocked import reads_of, rows_of
from domain.tool_results import ToolEntry

_SCALES = {"double": 2.0, "triple": 3.0, "treble": 3.0, "halve": 0.5, "quadruple": 4.0}
_SCALE = re.compile(
    r"\b(?P<verb>doubl(?:e|ed|ing)|tripl(?:e|ed|ing)|trebl(?:e|ed|ing)|halv(?:e|ed|ing)|"
    r"quadrupl(?:e|ed|ing))\b(?!\s+(?:bed|room|cream|decker|check|click|time)\b)"
    r"|\b(?P<times>twice|three times|half) as much\b",
    re.IGNORECASE,
)
"""Words that scale an amount: a verb ("double the lentils", "halve the sugar"), or "twice
as much"; not a double bed, double cream or a double check."""
_AS_MUCH = {"twice": 2.0, "three times": 3.0, "half": 0.5}


def _factor(match: re.Match[str]) -> float:
    if verb := match["verb"]:
        return next(f for stem, f in _SCALES.items() if verb.lower().startswith(stem[:4]))
    return _AS_MUCH[match["times"].lower()]


def scales_said(text: str) -> list[tuple[str, float]]:
    """Each phrase of ``text`` that scales an amount (``_SCALE``), with its factor, in
    order, each factor once."""
    found: dict[float, tuple[str, float]] = {}
    for match in _SCALE.finditer(text):
        factor = _factor(match)
        found.setdefault(factor, (match.group(0), factor))
    return list(found.values())


_OBJECT_ENDS = re.compile(r"[,.;!?]|\band\b|\bbut\b", re.IGNORECASE)


def _scaled(text: str) -> list[tuple[float, set[str]]]:
    """Each factor ``text`` scales by, with the words of what it scales: those after its
    phrase, up to the next phrase, clause or "and" ("double the lentils and halve the
    rice": 2 for ``{"lentil"}``, 0.5 for ``{"rice"}``)."""
    matches = list(_SCALE.finditer(text))
    found: dict[float, set[str]] = {}
    for match, after in zip(matches, [*matches[1:], None], strict=False):
        said = text[match.end() : after.start() if after else len(text)]
        said = _OBJECT_ENDS.split(said, maxsplit=1)[0]
        found.setdefault(_factor(match), set()).update(name_words(said))
    return list(found.items())


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _shown(number: float) -> str:
    return f"{number:g}"


@dataclass(frozen=True)
class Amount:
    """An amount this turn read: ``label`` "red lentils (in Red Lentil Dal)", ``name`` "red
    lentils", the row's ``ref`` in ``table``, 200 ``unit`` "g"."""

    label: str
    name: str
    ref: str
    table: str
    number: float
    unit: str

    def shown(self, factor: float = 1.0) -> str:
        return " ".join(p for p in (_shown(self.number * factor), self.unit) if p)


def _amounts(results: Sequence[StepResult]) -> list[Amount]:
    """Each amount this turn read: a recipe's ingredients, the stock's and the list's rows."""
    found = []
    for recipe in rows_of(reads_of(results, "recipes")):
        for item in recipe.get("recipe_ingredients") or []:
            if isinstance(item, dict) and (n := _number(item.get("quantity"))) is not None:
                name = str(item.get("name"))
                label = f"{name} (in {recipe.get('name') or 'a recipe'})"
                ref = str(item.get("id") or "")
                found.append(
                    Amount(label, name, ref, "recipe_ingredients", n, str(item.get("unit") or ""))
                )
    for table, where in (("inventory", "in stock"), ("shopping_list", "on the list")):
        for row in rows_of(reads_of(results, table)):
            if (n := _number(row.get("quantity"))) is not None:
                name = str(row.get("name"))
                ref = str(row.get("id") or "")
                unit = str(row.get("unit") or "")
                found.append(Amount(f"{name} ({where})", name, ref, table, n, unit))
    return found


def _scaled_amounts(
    results: Sequence[StepResult], message: str
) -> list[tuple[Amount, list[float]]]:
    """Each amount read this turn that the words of ``message`` scale, with its factors:
    a factor whose words name an amount read ("double the lentils") scales those alone;
    one that names none ("double the dal", "triple it") scales every amount read."""
    amounts = _amounts(results)
    scales = []
    for factor, words in _scaled(message):
        hit = {a.name for a in amounts if words & name_words(a.name)}
        scales.append((factor, hit or {a.name for a in amounts}))
    found = [(a, [f for f, names in scales if a.name in names]) for a in amounts]
    return [(a, factors) for a, factors in found if factors]


def amounts_scaled(results: Sequence[StepResult], message: str) -> str:
    """One line per amount read this turn that the words of ``message`` scale
    (``_scaled_amounts``), each factor applied ("- red lentils (in Red Lentil Dal): 200 g;
    doubled: 400 g"); empty when they scale nothing or nothing was read. For "make the dal
    serve 6 and double the lentils" the 1.5B local model was shown the onion and the
    spinach doubled as well, and doubled none."""
    named = {2.0: "doubled", 3.0: "tripled", 4.0: "quadrupled", 0.5: "halved"}
    lines = []
    for amount, factors in _scaled_amounts(results, message):
        scaled = [f"{named.get(f, f'times {_shown(f)}')}: {amount.shown(f)}" for f in factors]
        lines.append(f"- {amount.label}: {amount.shown()}; {'; '.join(scaled)}")
    return "\n".join(lines)


def amounts_left(
    results: Sequence[StepResult], written: Sequence[ToolEntry], message: str, tables: Sequence[str]
) -> list[str]:
    """The amounts in ``tables`` the words of ``message`` scale by one factor that no write
    in ``written`` shows at their scaled value, each as "red lentils (in Red Lentil Dal),
    ri_2 in recipe_ingredients: 200 g, to be 400 g"."""
    left = []
    for amount, factors in _scaled_amounts(results, message):
        if amount.table not in tables or len(factors) != 1 or not amount.ref:
            continue
        target = amount.number * factors[0]
        shown = [
            row
            for entry in written
            if entry.tool in ("db_update", "db_create") and not entry.failed
            for row in entry.rows or []
            if row.get("id") == amount.ref
        ]
        if not any(_number(row.get("quantity")) == target for row in shown):
            left.append(
                f"{amount.label}, {amount.ref} in {amount.table}: {amount.shown()}, "
                f"to be {amount.shown(factors[0])}"
            )
    return left
