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
from typing import Any

from domain.conversation import StepResult
from domain.kitchen.stocked import reads_of, rows_of

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


def scales_said(text: str) -> list[tuple[str, float]]:
    """Each phrase of ``text`` that scales an amount (``_SCALE``), with its factor, in
    order, each factor once."""
    found: dict[float, tuple[str, float]] = {}
    for match in _SCALE.finditer(text):
        if verb := match["verb"]:
            factor = next(f for stem, f in _SCALES.items() if verb.lower().startswith(stem[:4]))
        else:
            factor = _AS_MUCH[match["times"].lower()]
        found.setdefault(factor, (match.group(0), factor))
    return list(found.values())


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _shown(number: float) -> str:
    return f"{number:g}"


def _amounts(results: Sequence[StepResult]) -> list[tuple[str, float, str]]:
    """Each amount this turn read, as ("red lentils (in Red Lentil Dal)", 200, "g"): a
    recipe's ingredients, the stock's and the list's rows."""
    found = []
    for recipe in rows_of(reads_of(results, "recipes")):
        for item in recipe.get("recipe_ingredients") or []:
            if isinstance(item, dict) and (n := _number(item.get("quantity"))) is not None:
                label = f"{item.get('name')} (in {recipe.get('name') or 'a recipe'})"
                found.append((label, n, str(item.get("unit") or "")))
    for table, where in (("inventory", "in stock"), ("shopping_list", "on the list")):
        for row in rows_of(reads_of(results, table)):
            if (n := _number(row.get("quantity"))) is not None:
                found.append((f"{row.get('name')} ({where})", n, str(row.get("unit") or "")))
    return found


def amounts_scaled(results: Sequence[StepResult], factors: Sequence[float]) -> str:
    """One line per amount read this turn with each of ``factors`` applied ("- red lentils
    (in Red Lentil Dal): 200 g; doubled: 400 g"); empty with no factor or no amount."""
    if not factors:
        return ""
    named = {2.0: "doubled", 3.0: "tripled", 4.0: "quadrupled", 0.5: "halved"}
    lines = []
    for label, number, unit in _amounts(results):
        was = " ".join(p for p in (_shown(number), unit) if p)
        scaled = [
            f"{named.get(f, f'times {_shown(f)}')}: "
            + " ".join(p for p in (_shown(number * f), unit) if p)
            for f in factors
        ]
        lines.append(f"- {label}: {was}; {'; '.join(scaled)}")
    return "\n".join(lines)
