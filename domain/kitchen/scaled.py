"""Amounts the user's words scale ("double the lentils", "halve the sugar") or set ("dal
should be 250g lentils not 200"), counted by the system from the rows this turn read.

A write step is shown each amount read, scaled (``domain.context.act_context``), as it is
shown each date moved: twice 200 g needs no judgment. For "make the dal serve 6 and
double the lentils" the 1.5B local model, which read nothing, set the dal's servings to
6, then to 12, and wrote "Double the lentils in the recipe instructions." as its
instructions; the lentils stayed 200 g. For "dal should be 250g lentils not 200" it set the
dal's description to "Red Lentil Dal with 250g lentils instead of 200g", twice, and the reply
said the recipe now used 250 g.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.conversation import StepResult
from domain.crud.near import name_words
from domain.intent import corrects, dish_wants, requested_change
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


_STATED = re.compile(r"(?<![\w.])(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>[a-z]+\b)?", re.IGNORECASE)
_NOT_THIS = re.compile(r"\b(?:not|from|instead of|rather than|than|by)\s*$", re.IGNORECASE)
"""Words before a number that make it the old value or a change by ("not 200", "from 200",
"by 50"), not the value the amount should have."""
_UNITS = {
    "g": "g", "gram": "g", "kg": "kg", "kilo": "kg", "kilogram": "kg", "ml": "ml",
    "millilitre": "ml", "milliliter": "ml", "l": "l", "litre": "l", "liter": "l",
    "cup": "cup", "tbsp": "tbsp", "tablespoon": "tbsp", "tsp": "tsp", "teaspoon": "tsp",
    "piece": "piece", "clove": "clove", "tin": "tin", "can": "can", "bottle": "bottle",
}  # fmt: skip
SETS = frozenset({"change", "set", "update", "edit", "increase", "decrease", "reduce"})
"""The change verbs by which words set an amount ("change the lentils in the dal to 250g")."""


def _unit(word: str | None) -> str:
    """The unit a word names, one spelling each ("grams" is ``g``); empty for none."""
    word = (word or "").lower()
    return _UNITS.get(word) or _UNITS.get(word.removesuffix("s"), "")


def amounts_said(text: str) -> list[tuple[float, str, set[str]]]:
    """Each amount ``text`` says a thing should have, with its unit (empty when none is
    said) and the words of its clause: for a correction ("dal should be 250g lentils not
    200": 250, ``g``, ``{"dal", "lentil", …}``) or words that set a value ("change the
    lentils to 250g"); not the old value ("not 200") nor a change by ("by 50")."""
    wants = dish_wants(text)
    if not (wants and corrects(wants)) and requested_change(text) not in SETS:
        return []
    found = []
    for clause in _OBJECT_ENDS.split(text):
        stated = [m for m in _STATED.finditer(clause) if not _NOT_THIS.search(clause[: m.start()])]
        if len(stated) == 1:
            match = stated[0]
            found.append((float(match["number"]), _unit(match["unit"]), name_words(clause)))
    return found


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

    def shown(self) -> str:
        return " ".join(p for p in (_shown(self.number), self.unit) if p)


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


_NAMED = {2.0: "doubled", 3.0: "tripled", 4.0: "quadrupled", 0.5: "halved"}


@dataclass(frozen=True)
class Target:
    """A value the user's words give an amount: ``how`` "doubled" or "as said", 400 ``unit``
    "g" (the amount's own when the words name none)."""

    how: str
    number: float
    unit: str

    def shown(self) -> str:
        return " ".join(p for p in (_shown(self.number), self.unit) if p)


def _targets(results: Sequence[StepResult], message: str) -> list[tuple[Amount, list[Target]]]:
    """Each amount read this turn that the words of ``message`` scale or set, with the
    values they give it. A factor whose words name an amount read ("double the lentils")
    scales those alone; one that names none ("double the dal", "triple it") scales every
    amount read. An amount said (``amounts_said``) sets the one amount of a table its clause
    names ("250g lentils"), and none when it names several."""
    amounts = _amounts(results)
    found: list[list[Target]] = [[] for _ in amounts]
    for factor, words in _scaled(message):
        hit = [i for i, a in enumerate(amounts) if words & name_words(a.name)]
        for i in hit or range(len(amounts)):
            how = _NAMED.get(factor, f"times {_shown(factor)}")
            found[i].append(Target(how, amounts[i].number * factor, amounts[i].unit))
    for number, unit, words in amounts_said(message):
        hit = [i for i, a in enumerate(amounts) if words & name_words(a.name)]
        for i in hit:
            if [amounts[j].table for j in hit].count(amounts[i].table) == 1:
                found[i].append(Target("as said", number, unit or amounts[i].unit))
    return [(a, targets) for a, targets in zip(amounts, found, strict=True) if targets]


def amounts_scaled(results: Sequence[StepResult], message: str) -> str:
    """One line per amount read this turn that the words of ``message`` scale or set
    (``_targets``), with each value they give it ("- red lentils (in Red Lentil Dal): 200 g;
    doubled: 400 g"); empty when they give none or nothing was read. For "make the dal
    serve 6 and double the lentils" the 1.5B local model was shown the onion and the
    spinach doubled as well, and doubled none."""
    lines = []
    for amount, targets in _targets(results, message):
        given = "; ".join(f"{t.how}: {t.shown()}" for t in targets)
        lines.append(f"- {amount.label}: {amount.shown()}; {given}")
    return "\n".join(lines)


def _holds(row: dict[str, Any], amount: Amount, target: Target) -> bool:
    """Whether a row written shows ``amount`` at ``target``, in the target's unit."""
    unit = row.get("unit") or amount.unit
    return _number(row.get("quantity")) == target.number and (_unit(str(unit)) or str(unit)) == (
        _unit(target.unit) or target.unit
    )


def amounts_unset(
    results: Sequence[StepResult], written: Sequence[ToolEntry], message: str, tables: Sequence[str]
) -> list[tuple[Amount, Target]]:
    """The amounts in ``tables`` the words of ``message`` give one value (``_targets``)
    that no write in ``written`` shows at that value, each with that value."""
    unset = []
    for amount, targets in _targets(results, message):
        if amount.table not in tables or len(targets) != 1 or not amount.ref:
            continue
        shown = [
            row
            for entry in written
            if entry.tool in ("db_update", "db_create") and not entry.failed
            for row in entry.rows or []
            if row.get("id") == amount.ref
        ]
        if not any(_holds(row, amount, targets[0]) for row in shown):
            unset.append((amount, targets[0]))
    return unset


def amounts_left(
    results: Sequence[StepResult], written: Sequence[ToolEntry], message: str, tables: Sequence[str]
) -> list[str]:
    """The amounts not yet set (``amounts_unset``), each as Act is shown it: "red lentils
    (in Red Lentil Dal), ri_2 in recipe_ingredients: 200 g, to be 400 g"."""
    return [
        f"{amount.label}, {amount.ref} in {amount.table}: {amount.shown()}, to be {target.shown()}"
        for amount, target in amounts_unset(results, written, message, tables)
    ]
