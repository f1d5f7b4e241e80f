"""Deterministic replies: the branches of Reply's priority cascade that need no LLM (seed 000).

Everything here is a pure function of its arguments. Rows are what the CRUD executor hands
the model: refs instead of UUIDs (``inv_3``, ``recipe_2``), ``_<fk>_label`` next to FK refs,
JSON values, and any column possibly missing. Refs are for the model, never for the user:
no formatter prints an ``id`` or an FK value, only names and labels.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from domain.crud.merge import ALREADY, GROWN_FROM
from domain.crud.near import near_names, planned_rows
from domain.kitchen.tables import ENUMS, TABLES
from domain.tool_results import ToolEntry

MAX_LIST_ITEMS = 50
"""A quick read can return up to 200 rows; a chat reply lists this many and counts the rest."""
MAX_NAMES = 10
"""Names listed in a write confirmation before "and N more"."""

MEAL_TYPE_ORDER: tuple[str, ...] = ENUMS[("meal_plans", "meal_type")]
LOCATION_ORDER: tuple[str, ...] = ("fridge", "freezer", "pantry", "other")

Row = Mapping[str, Any]

# --- Values ---------------------------------------------------------------------------------


def _text(value: Any) -> str:
    """A display string for a scalar; "" for None, empty values and booleans."""
    if value is None or isinstance(value, bool):
        return ""
    return " ".join(str(value).split())


def _quantity(value: Any) -> str:
    """``2`` not ``2.0``; ``0.5``; at most three decimals; "" when absent."""
    if value is None or isinstance(value, bool) or value == "":
        return ""
    if not isinstance(value, str | int | float | Decimal):
        return _text(value)
    if isinstance(value, str):
        try:
            value = Decimal(value.strip())
        except ArithmeticError:
            return _text(value)
    number = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
    if not number.is_finite():
        return ""
    if number == number.to_integral_value():
        return str(int(number))
    return f"{number:.3f}".rstrip("0").rstrip(".")


def _amount(row: Row) -> str:
    """``500 g`` from quantity and unit, omitting whichever is missing."""
    return _join(_quantity(row.get("quantity")), _text(row.get("unit")))


def _date(value: Any) -> str:
    """``YYYY-MM-DD`` from a date or datetime ISO string; "" when absent."""
    return _text(value)[:10]


def _weekday_date(value: Any) -> str:
    """``Mon 2026-11-23``; just the text when it is not an ISO date."""
    day = _date(value)
    try:
        return f"{dt.date.fromisoformat(day).strftime('%a')} {day}"
    except ValueError:
        return day


def _join(*parts: str, sep: str = " ") -> str:
    return sep.join(p for p in parts if p)


def _plural(count: int, singular: str, plural: str | None = None) -> str:
    return f"{count} {singular if count == 1 else (plural or singular + 's')}"


def _name(row: Row, fallback: str, key: str = "name") -> str:
    return _text(row.get(key)) or fallback


def _rows(rows: Sequence[Any]) -> list[Row]:
    return [r for r in rows if isinstance(r, Mapping)]


def _capped(lines: list[str]) -> list[str]:
    if len(lines) <= MAX_LIST_ITEMS:
        return lines
    return [*lines[:MAX_LIST_ITEMS], f"- …and {len(lines) - MAX_LIST_ITEMS} more"]


def _lines(header: str, items: list[str]) -> str:
    return "\n".join([header, *_capped(items)])


# --- Empty results --------------------------------------------------------------------------

_EMPTY: dict[str, tuple[str, str]] = {
    # subdomain -> (nothing there at all, nothing matched the read's filters)
    "inventory": (
        "Your inventory is empty.",
        "I couldn't find anything matching in your inventory.",
    ),
    "shopping": ("Your shopping list is empty.", "I couldn't find that on your shopping list."),
    "recipes": (
        "You don't have any saved recipes yet.",
        "I couldn't find a matching saved recipe.",
    ),
    "meal_plans": ("You have no meals planned.", "I couldn't find any matching planned meals."),
    "tasks": ("You have no tasks.", "I couldn't find any matching tasks."),
    "preferences": (
        "You haven't set any preferences yet.",
        "You haven't set any preferences yet.",
    ),
}
_EMPTY_GENERIC = ("I didn't find anything.", "I didn't find anything matching that.")
_EMPTY_BY_TABLE: dict[str, tuple[str, str]] = {
    # Tables whose emptiness is not their subdomain's ("no cooking log" is not "no recipes").
    "shopping_list": _EMPTY["shopping"],
    "ingredients": ("The ingredient catalog is empty.", "No ingredient in the catalog matched."),
    "recipe_ingredients": (
        "No ingredients are saved for that recipe.",
        "I couldn't find any matching recipe ingredients.",
    ),
    "cooking_log": ("You haven't logged any cooked meals yet.", "No cooking log entries matched."),
}


def empty_response(subdomain: str, *, filtered: bool = False) -> str:
    """What to say when a read of ``subdomain`` returned no rows.

    ``filtered`` says the read had filters, so "empty" only means nothing matched.
    """
    key = "shopping" if subdomain == "shopping_list" else subdomain
    whole, matched = _EMPTY.get(key, _EMPTY_GENERIC)
    return matched if filtered else whole


# --- Per-table list formatters --------------------------------------------------------------


def _inventory_line(row: Row, today: dt.date | None = None) -> str:
    line = f"- {_name(row, 'Unnamed item')}"
    amount = _amount(row)
    if amount:
        line += f" — {amount}"
    expires = _weekday_date(row.get("expiry_date"))
    if expires:
        line += f" (expires {_join(expires, days_from(row.get('expiry_date'), today), sep=', ')})"
    return line


def _location_key(location: str) -> tuple[int, str]:
    """Known locations in kitchen order, then others alphabetically, then no location."""
    if location in LOCATION_ORDER:
        return (0, f"{LOCATION_ORDER.index(location)}")
    if location:
        return (1, location)
    return (2, "")


def _items(rows: list[Row], matching: bool) -> str:
    """ "2 items", or for a read with filters "2 matching items": told "1 item on your
    shopping list" of a read by name, the 1.5B local model said the list held one item
    (it held three)."""
    return _plural(len(rows), "matching item" if matching else "item")


def _format_inventory(rows: list[Row], matching: bool = False, today: dt.date | None = None) -> str:
    header = f"{_items(rows, matching)} in your inventory:"
    if not any(_text(r.get("location")) for r in rows):
        return _lines(header, [_inventory_line(r, today) for r in rows])
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(_text(row.get("location")).lower(), []).append(row)
    parts = [header]
    shown = 0
    for location in sorted(groups, key=_location_key):
        if shown >= MAX_LIST_ITEMS:
            break
        items = groups[location][: MAX_LIST_ITEMS - shown]
        shown += len(items)
        title = location.capitalize() if location else "No location"
        parts.append(f"\n**{title}**")
        parts.extend(_inventory_line(r, today) for r in items)
    if shown < len(rows):
        parts.append(f"- …and {len(rows) - shown} more")
    return "\n".join(parts)


def _checkbox(done: Any) -> str:
    """``[x] `` / ``[ ] `` when the status is known, nothing when the column was not read.
    A row checked off also says so in words ("(done)", "(bought)"): shown "- [x] Clean the
    fridge" among the rows of "what's still on my to-do list?", the 1.5B local model
    listed it as still to do."""
    if done is None:
        return ""
    return "[x] " if done else "[ ] "


def _format_shopping(rows: list[Row], matching: bool = False) -> str:
    def line(row: Row) -> str:
        amount = _amount(row)
        text = _name(row, "Unnamed item") + (f" ({amount})" if amount else "")
        bought = " (bought)" if row.get("is_purchased") is True else ""
        return f"- {_checkbox(row.get('is_purchased'))}{text}{bought}"

    to_buy = [r for r in rows if r.get("is_purchased") is False]
    unknown = [r for r in rows if r.get("is_purchased") is None]
    bought = [r for r in rows if r.get("is_purchased") not in (False, None)]
    header = f"{_items(rows, matching)} on your shopping list"
    if not unknown:
        header += f", {len(to_buy)} still to buy"
    return _lines(header + ":", [line(r) for r in [*to_buy, *unknown, *bought]])


def _minutes(row: Row) -> int | None:
    times = [row.get("prep_time_minutes"), row.get("cook_time_minutes")]
    known = [t for t in times if isinstance(t, int | float) and not isinstance(t, bool)]
    return int(sum(known)) if known else None


def _recipe_facts(row: Row) -> list[str]:
    minutes = _minutes(row)
    servings = _quantity(row.get("servings"))
    return [
        p
        for p in (
            _text(row.get("cuisine")),
            f"{minutes} min" if minutes is not None else "",
            f"serves {servings}" if servings else "",
        )
        if p
    ]


def _recipe_summary_line(row: Row) -> str:
    facts = _recipe_facts(row)
    line = f"- **{_name(row, 'Untitled recipe')}**"
    return line + (f" — {', '.join(facts)}" if facts else "")


def _ingredient_line(row: Row) -> str:
    line = f"- {_name(row, 'Unnamed ingredient')}"
    amount = _amount(row)
    if amount:
        line += f" — {amount}"
    extras = [_text(row.get("notes")), "optional" if row.get("is_optional") is True else ""]
    extras = [e for e in extras if e]
    return line + (f" ({', '.join(extras)})" if extras else "")


_STEP_NUMBER = re.compile(r"^\s*(?:step\s*)?\d+\s*[.):-]\s*", re.IGNORECASE)


def _instructions(value: Any) -> list[str]:
    """Instruction steps without any numbering the text already carries."""
    if isinstance(value, str):
        value = value.splitlines()
    if not isinstance(value, list):
        return []
    steps = [_STEP_NUMBER.sub("", _text(step)) for step in value]
    return [s for s in steps if s]


def _recipe_ingredients(row: Row) -> list[Row]:
    nested = row.get("recipe_ingredients")
    return _rows(nested) if isinstance(nested, list) else []


def _format_full_recipe(row: Row) -> str:
    parts = [f"**{_name(row, 'Untitled recipe')}**"]
    facts = _recipe_facts(row)
    difficulty = _text(row.get("difficulty"))
    if difficulty:
        facts.append(difficulty)
    if facts:
        parts.append(" · ".join(facts))
    description = _text(row.get("description"))
    if description:
        parts.append(f"\n{description}")
    ingredients = _recipe_ingredients(row)
    if ingredients:
        parts.append("\n**Ingredients**")
        parts.extend(_ingredient_line(i) for i in ingredients)
    steps = _instructions(row.get("instructions"))
    if steps:
        parts.append("\n**Instructions**")
        parts.extend(f"{n}. {step}" for n, step in enumerate(steps, start=1))
    return "\n".join(parts)


def format_generated_recipe(content: Row) -> str:
    """A generated (unsaved) recipe in full, from its content (``ingredients`` lines)."""
    return _format_full_recipe({**content, "recipe_ingredients": content.get("ingredients") or []})


def _format_recipes(rows: list[Row]) -> str:
    if len(rows) == 1 and (
        _recipe_ingredients(rows[0]) or _instructions(rows[0].get("instructions"))
    ):
        return _format_full_recipe(rows[0])
    return _lines(f"{_plural(len(rows), 'recipe')}:", [_recipe_summary_line(r) for r in rows])


def _format_recipe_ingredients(rows: list[Row]) -> str:
    groups: dict[str, list[Row]] = {}
    for row in rows:  # first-appearance order of recipes
        groups.setdefault(_text(row.get("_recipe_id_label")), []).append(row)
    if len(groups) == 1:
        (recipe,) = groups
        header = f"{_plural(len(rows), 'ingredient')}" + (f" in {recipe}" if recipe else "") + ":"
        return _lines(header, [_ingredient_line(r) for r in rows])
    parts = [f"{_plural(len(rows), 'recipe ingredient')}:"]
    for recipe, items in groups.items():
        parts.append(f"\n**{recipe or 'Other recipes'}**")
        parts.extend(_capped([_ingredient_line(r) for r in items]))
    return "\n".join(parts)


def _meal_type(row: Row) -> str:
    return _text(row.get("meal_type")).lower()


def _meal_what(row: Row) -> str:
    recipe = _text(row.get("_recipe_id_label"))
    notes = _text(row.get("notes"))
    if recipe:
        return _join(recipe, notes, sep=" — ")
    if notes:
        return notes
    return "a recipe" if row.get("recipe_id") else "nothing planned"


def _meal_key(row: Row) -> tuple[Any, ...]:
    meal_type = _meal_type(row)
    rank = (
        MEAL_TYPE_ORDER.index(meal_type) if meal_type in MEAL_TYPE_ORDER else len(MEAL_TYPE_ORDER)
    )
    day = _date(row.get("date"))
    return (day == "", day, rank, meal_type, _meal_what(row))


def _format_meal_plans(rows: list[Row]) -> str:
    def line(row: Row) -> str:
        when = _join(_weekday_date(row.get("date")), _meal_type(row).capitalize(), sep=" · ")
        return f"- {when or 'Meal'}: {_meal_what(row)}"

    ordered = sorted(rows, key=_meal_key)
    return _lines(f"{_plural(len(rows), 'planned meal')}:", [line(r) for r in ordered])


def days_from(day: Any, today: dt.date | None) -> str:
    """How far ``day`` (an ISO date) is from ``today``: "today", "tomorrow", "in 3 days",
    "yesterday", "2 days ago"; "" when either is unknown. Counted here, not by a model: for
    "how many days till the plumber", told the task was due Wed 2026-12-02 on Sunday
    2026-11-29, the 1.5B local model answered 7 days."""
    try:
        days = (dt.date.fromisoformat(_date(day)) - today).days if today else None
    except ValueError:
        days = None
    if days is None:
        return ""
    if days in (0, 1, -1):
        return {0: "today", 1: "tomorrow", -1: "yesterday"}[days]
    return f"in {days} days" if days > 0 else f"{-days} days ago"


def _format_tasks(rows: list[Row], today: dt.date | None = None) -> str:
    def line(row: Row) -> str:
        due = _weekday_date(row.get("due_date"))
        text = _name(row, "Untitled task", key="title")
        if due and row.get("completed") is not True:
            text += f" (due {_join(due, days_from(row.get('due_date'), today), sep=', ')})"
        done = " (done)" if row.get("completed") is True else ""
        return f"- {_checkbox(row.get('completed'))}{text}{done}"

    def due_key(row: Row) -> tuple[bool, str]:
        due = _date(row.get("due_date"))
        return (due == "", due)

    open_ = sorted([r for r in rows if r.get("completed") is False], key=due_key)
    unknown = [r for r in rows if r.get("completed") is None]
    done = [r for r in rows if r.get("completed") not in (False, None)]
    header = _plural(len(rows), "task")
    if not unknown:
        header += f", {len(open_)} open"
    return _lines(header + ":", [line(r) for r in [*open_, *unknown, *done]])


_PREFERENCE_LABELS: tuple[tuple[str, str], ...] = (
    ("dietary_restrictions", "Dietary restrictions"),
    ("allergies", "Allergies"),
    ("disliked_ingredients", "Disliked ingredients"),
    ("favorite_cuisines", "Favorite cuisines"),
    ("nutrition_goals", "Nutrition goals"),
    ("available_equipment", "Equipment"),
    ("cooking_skill_level", "Cooking skill"),
    ("cooking_frequency", "Cooking frequency"),
    ("time_budget_minutes", "Time budget"),
    ("preferred_complexity", "Preferred complexity"),
    ("planning_rhythm", "Planning rhythm"),
    ("current_vibes", "Current vibes"),
)
_HOUSEHOLD = (
    ("household_adults", "adult"),
    ("household_kids", "kid"),
    ("household_babies", "baby"),
)
_NOT_PREFERENCES = frozenset({"id", "user_id", "created_at", "subdomain_guidance"})


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(t for t in (_text(v) for v in value) if t)
    if isinstance(value, Mapping):
        return "; ".join(_join(_text(k), _value(v), sep=": ") for k, v in sorted(value.items()))
    if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        return _quantity(value)
    return _text(value)


def _preference_lines(row: Row) -> list[str]:
    lines: list[str] = []
    for key, label in _PREFERENCE_LABELS:
        value = _value(row.get(key))
        if value and key == "time_budget_minutes":
            value += " min"
        if value:
            lines.append(f"- {label}: {value}")
    household = [
        _plural(int(n), noun, "babies" if noun == "baby" else None)
        for key, noun in _HOUSEHOLD
        if isinstance(n := row.get(key), int) and not isinstance(n, bool) and n > 0
    ]
    if household:
        lines.append(f"- Household: {', '.join(household)}")
    guidance = row.get("subdomain_guidance")
    if isinstance(guidance, Mapping):
        for area, note in sorted(guidance.items()):
            text = _value(note)
            if text:
                lines.append(f"- Notes for {_text(area).replace('_', ' ')}: {text}")
    known = {k for k, _ in _PREFERENCE_LABELS} | {k for k, _ in _HOUSEHOLD} | _NOT_PREFERENCES
    for key in sorted(k for k in row if k not in known and not k.startswith("_")):
        value = _value(row.get(key))
        if value:
            lines.append(f"- {key.replace('_', ' ').capitalize()}: {value}")
    return lines


def _format_preferences(rows: list[Row]) -> str:
    lines = [line for row in rows for line in _preference_lines(row)]
    if not lines:
        return empty_response("preferences")
    return "\n".join(["Your preferences:", *lines])


def _format_ingredients(rows: list[Row]) -> str:
    def line(row: Row) -> str:
        category = _text(row.get("category"))
        return f"- {_name(row, 'Unnamed ingredient')}" + (f" ({category})" if category else "")

    return _lines(f"{_plural(len(rows), 'ingredient')} in the catalog:", [line(r) for r in rows])


def _format_cooking_log(rows: list[Row]) -> str:
    def line(row: Row) -> str:
        text = f"- {_text(row.get('_recipe_id_label')) or 'A recipe'}"
        cooked = _date(row.get("cooked_at"))
        if cooked:
            text += f" on {cooked}"
        rating = _quantity(row.get("rating"))
        if rating:
            text += f" (rating {rating}/5)"
        notes = _text(row.get("notes"))
        return text + (f" — {notes}" if notes else "")

    return _lines(
        f"{_plural(len(rows), 'cooking log entry', 'cooking log entries')}:",
        [line(r) for r in rows],
    )


_MATCHING_FORMATTERS: dict[str, Callable[[list[Row], bool], str]] = {
    "inventory": _format_inventory,
    "shopping_list": _format_shopping,
}
"""Tables whose header names the place ("on your shopping list"), and so says "matching"
for a read with filters: the rows are not all the place holds."""
_TABLE_FORMATTERS: dict[str, Callable[[list[Row]], str]] = {
    "recipes": _format_recipes,
    "recipe_ingredients": _format_recipe_ingredients,
    "meal_plans": _format_meal_plans,
    "tasks": _format_tasks,
    "preferences": _format_preferences,
    "ingredients": _format_ingredients,
    "cooking_log": _format_cooking_log,
}


def format_quick_result(
    subdomain: str,
    table: str,
    rows: list[dict],
    *,
    filtered: bool = False,
    today: dt.date | None = None,
) -> str | None:
    """Markdown for a quick read's rows, or None when no deterministic formatter fits.

    None sends the caller to a light LLM reply. No rows gives the empty response (the
    table's own when its emptiness is not its subdomain's, as for the cooking log).
    ``filtered`` says the read had filters, so no rows means nothing matched; ``today``
    counts the days to a task's due date and a stock item's expiry (``days_from``).
    """
    rows_ = _rows(rows)
    if not rows_:
        if table in _EMPTY_BY_TABLE:
            whole, matched = _EMPTY_BY_TABLE[table]
            return matched if filtered else whole
        return empty_response(subdomain, filtered=filtered)
    if table == "inventory":
        return _format_inventory(rows_, filtered, today)
    if table in _MATCHING_FORMATTERS:
        return _MATCHING_FORMATTERS[table](rows_, filtered)
    if table == "tasks":
        return _format_tasks(rows_, today)
    formatter = _TABLE_FORMATTERS.get(table)
    return formatter(rows_) if formatter else None


# --- Write confirmations --------------------------------------------------------------------

_WRITE_NOUNS: dict[str, tuple[str, str, str, str, str]] = {
    # table -> (singular, plural, "to ...", "in ...", "from ...")
    "inventory": ("item", "items", "to your inventory", "in your inventory", "from your inventory"),
    "shopping_list": (
        "item",
        "items",
        "to your shopping list",
        "on your shopping list",
        "from your shopping list",
    ),
    "recipes": ("recipe", "recipes", "", "", ""),
    "recipe_ingredients": ("recipe ingredient", "recipe ingredients", "", "", ""),
    "meal_plans": (
        "meal",
        "meals",
        "to your meal plan",
        "in your meal plan",
        "from your meal plan",
    ),
    "tasks": ("task", "tasks", "", "", ""),
    "cooking_log": ("cooking log entry", "cooking log entries", "to your cooking log", "", ""),
    "ingredients": ("catalog ingredient", "catalog ingredients", "", "", ""),
}
_GENERIC_NOUNS = ("entry", "entries", "", "", "")
_VERBS = {"create": "Added", "update": "Updated", "delete": "Removed"}


def _write_label(table: str, row: Row) -> str:
    """The name a user knows a written row by; "" when the row carries none."""
    if table == "tasks":
        return _text(row.get("title"))
    if table == "meal_plans":
        when = _join(_meal_type(row).capitalize(), _weekday_date(row.get("date")), sep=" on ")
        what = _text(row.get("_recipe_id_label")) or _text(row.get("notes"))  # no recipe
        return _join(when, f"({what})" if what and when else what)
    if table == "cooking_log":
        recipe = _text(row.get("_recipe_id_label"))
        cooked = _date(row.get("cooked_at"))
        return _join(recipe, f"on {cooked}" if recipe and cooked else "")
    if GROWN_FROM in row and (now := _amount(row)):  # added to the row already there
        return f"{_text(row.get('name'))} (now {now})"
    if row.get(ALREADY) and (there := _amount(row)):  # listed already, as it is
        return f"{_text(row.get('name'))} ({there})"
    if table in AMOUNTED and (amount := _amount(row)):  # as much as the row says
        return f"{_text(row.get('name'))} ({amount})"
    return _text(row.get("name"))


AMOUNTED = frozenset({"inventory", "shopping_list"})
"""The tables whose written rows are named with their amount ("eggs (3 piece)"): told
"Added 1 item to your shopping list: eggs." for "need 3 more eggs …", the 1.5B local
model said "You have already added 1 egg"."""


def _names(table: str, rows: list[Row]) -> str:
    labels = [label for label in (_write_label(table, r) for r in rows) if label]
    shown = labels[:MAX_NAMES]
    rest = len(rows) - len(shown)
    if not shown:
        return ""
    return ", ".join(shown) + (f" and {rest} more" if rest else "")


def format_write_confirmation(tool: str, table: str, rows: list[dict]) -> str:
    """One honest sentence for a write: what was added, updated or removed, by name.

    ``tool`` is ``db_create``/``db_update``/``db_delete`` (the ``db_`` prefix is optional);
    ``rows`` are the rows the write returned, so none means nothing was changed.
    """
    action = (tool or "").removeprefix("db_")
    rows_ = _rows(rows)
    there = [r for r in rows_ if r.get(ALREADY)] if action == "create" else []
    if there:  # a task or meal already there: not added again
        said = f"Already there, so not added again: {_names(table, there)}."
        rest = [r for r in rows_ if not r.get(ALREADY)]
        return f"{format_write_confirmation(tool, table, rest)} {said}" if rest else said
    count = len(rows_)
    if table == "preferences":
        if not count:
            return "No saved preferences were found, so nothing was changed."
        return {"create": "Saved your preferences.", "delete": "Cleared your preferences."}.get(
            action, "Updated your preferences."
        )
    singular, plural, to, in_, from_ = _WRITE_NOUNS.get(table, _GENERIC_NOUNS)
    if not count:
        if action == "create":
            return _join("Nothing was added", to) + "."
        return _join("No", plural, in_, "matched, so nothing was changed.")
    where = {"create": to, "delete": from_}.get(action, in_)
    verb = _VERBS.get(action, "Changed")
    if table == "recipes" and action == "create":
        verb = "Saved"
    if table == "cooking_log" and action == "create":
        verb, where = "Logged", ""
    if table == "recipe_ingredients" and action in ("create", "delete"):
        recipes = {_text(r.get("_recipe_id_label")) for r in rows_}
        if len(recipes) == 1 and "" not in recipes:
            where = ("to " if action == "create" else "from ") + min(recipes)
    sentence = _join(verb, _plural(count, singular, plural), where)
    names = _names(table, rows_)
    return f"{sentence}: {names}." if names else f"{sentence}."


# --- Conversation turns without a result ----------------------------------------------------


def format_clarification(questions: list[str]) -> str:
    """One question as is; several as a numbered list after a short lead-in."""
    asked = [q for q in (_text(q) for q in questions) if q]
    if not asked:
        return "Could you tell me a bit more about what you'd like?"
    if len(asked) == 1:
        return asked[0]
    numbered = [f"{n}. {q}" for n, q in enumerate(asked, start=1)]
    return "\n".join(["A few quick questions first:", "", *numbered])


def _step_field(step: Any, name: str) -> str:
    value = step.get(name) if isinstance(step, Mapping) else getattr(step, name, None)
    return _text(value)


def format_proposal(message: str, steps: list) -> str:
    """Think's proposal, the steps confirming would run, and how to confirm or reject.

    ``steps`` are ThinkSteps or dicts with ``description`` (and ``step_type``).
    """
    parts = [(message or "").strip() or "Here's what I'd suggest."]
    planned = [d for d in (_step_field(s, "description") for s in steps) if d]
    if planned:
        parts.append(
            "\n".join(["Here's what I'd do:", *(f"{n}. {d}" for n, d in enumerate(planned, 1))])
        )
    if parts[0].rstrip().endswith("?"):  # the message already asks: don't ask twice
        parts.append("Reply **yes** to go ahead or **no** to cancel.")
    else:
        parts.append("Shall I go ahead? Reply **yes** to confirm or **no** to cancel.")
    return "\n\n".join(parts)


def format_question(question: str) -> str:
    """Act's ``ask_user`` question, passed through."""
    return (question or "").strip() or "Could you tell me a bit more about what you'd like?"


def format_failure(user_message: str) -> str:
    """Act's ``fail`` message, passed through."""
    return (user_message or "").strip() or "Sorry, I couldn't complete that."


def format_empty_execution(goal: str) -> str:
    """A plan ran but no step produced a result (seed 000 priority 9): say so, claim nothing."""
    goal_text = _text(goal).rstrip(".")
    what = f'"{goal_text}"' if goal_text else "that"
    return (
        f"I couldn't finish {what}: the plan ran, but none of its steps produced a result, "
        "so I can't confirm that anything was done. Could you try again, perhaps rephrased?"
    )


_BREAKERS: dict[str, str] = {
    "max_tool_calls": (
        "I stopped{step} because it needed more database operations than I allow in one step."
    ),
    "schema_requests": (
        "I stopped{step} because it kept looking up how your data is organised without"
        " making progress."
    ),
    "max_steps": "I stopped because the plan grew longer than I can run in one turn.",
    "llm_call_cap": "I stopped because this turn reached its limit of model calls.",
    "pause_cap": (
        "I stopped because this request has already waited on you more times than I allow."
    ),
}
"""Each breaker in the user's words. Those that stop one step name it (``{step}``: its
description, or "one step" when it has none); the others stop the turn, and their details
(counts, modes) are for the Temporal UI and the progress, not for the user."""
STEP_BREAKERS = frozenset({"max_tool_calls", "schema_requests"})
_BREAKER_GENERIC = "I stopped because this turn hit one of my safety limits."
_BREAKER_TAIL = "Try asking again, or split the request into smaller parts."


def breaker_sentence(kind: str, step: str = "") -> str:
    """Why a circuit breaker stopped the turn or ``step`` (the description of the step a
    step breaker stopped), in the user's words; unknown kinds get a generic reason."""
    step_text = _text(step).rstrip(".")
    named = f' the step "{step_text}"' if step_text else " one step"
    return _BREAKERS.get(kind, _BREAKER_GENERIC).replace("{step}", named)


def format_breaker(kind: str, step: str = "") -> str:
    """An honest account of a tripped circuit breaker (``breaker_sentence``) and what to
    do. What the turn wrote before it stopped is said after it (``format_done``)."""
    return f"{breaker_sentence(kind, step)} {_BREAKER_TAIL}"


def format_rejection(done: Sequence[str] = ()) -> str:
    """The user said no to a proposal or a step's question (``done``: what the turn wrote
    before it asked)."""
    return f"Okay, I won't do that. {format_done(done)} Let me know what you'd like instead."


# --- A model that failed: honest words, never its exception text ------------------------------

_MODEL_PROBLEMS: dict[str, str] = {
    "invalid_output": "the model's answer could not be used",
    "refusal": "the model declined to answer",
    "timeout": "the model took too long to answer",
    "context_window": "the request no longer fits the model's context window",
}


def model_problem(kind: str, wait_seconds: float | None = None) -> str:
    """A failure kind (``invalid_output``, ``http_503``, ``timeout``...) in plain words;
    ``rate_limited`` says for how long (``wait_seconds``, the model's Retry-After)."""
    if kind == "rate_limited":
        return "the model is rate-limited" + (
            f" for {_duration(wait_seconds)}" if wait_seconds else ""
        )
    if kind in _MODEL_PROBLEMS:
        return _MODEL_PROBLEMS[kind]
    if kind.startswith("http_4") and kind not in ("http_408", "http_409", "http_429"):
        return "the model service refused the request"
    return "the model service did not answer"


def format_done(done: Sequence[str]) -> str:
    """What the turn wrote, or that it changed nothing: the one sentence every ending that
    stops short says (a failed step or model, a limit, a rejection, a failed, cancelled or
    expired turn), whatever a model said. ``done`` is the turn's record of its writes
    (``TurnState.written``): a confirmation per write that changed rows, made from the
    write's own result (``format_write_confirmation``); the same confirmation twice (two
    steps setting the same row alike) is said once."""
    if not done:
        return "Nothing was changed."
    return "Changes made: " + " ".join(dict.fromkeys(done))


def _duration(seconds: float) -> str:
    """A wait in the largest whole unit, rounded up: ``10 minutes``, ``45 seconds``."""
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= 1.5 * size:
            count = math.ceil(seconds / size)
            return f"{count} {unit}s"
    count = math.ceil(seconds)
    return f"{count} second" + ("s" if count != 1 else "")


def format_not_understood(
    stage: str, kind: str, done: Sequence[str] = (), wait_seconds: float | None = None
) -> str:
    """Understand or Think failed for good: say so, claim nothing but what was written, ask
    for another wording (or, when the model is rate-limited, to ask again once it is not)."""
    what = "work out what you meant" if stage == "understand" else "plan this"
    if kind == "rate_limited":
        again = "Please ask again after that." if wait_seconds else "Please ask again later."
    else:
        again = "Could you try again, perhaps in other words?"
    return f"I couldn't {what}: {model_problem(kind, wait_seconds)}. {format_done(done)} {again}"


def format_stopped(problem: str, done: Sequence[str]) -> str:
    """A turn that could not finish: the reason in plain words, then what was saved."""
    return f"I couldn't finish this: {problem}. {format_done(done)}"


def format_read(read: ToolEntry, today: dt.date | None = None) -> str | None:
    """A read's rows as the quick path shows them (``format_quick_result``); None for a
    table the kitchen does not have or no formatter fits."""
    params = read.params or {}
    table = read.table or str(params.get("table") or "")
    if table not in TABLES:
        return None
    filtered = bool(params.get("filters") or params.get("or_filters"))
    subdomain = TABLES[table].subdomain
    return format_quick_result(subdomain, table, read.rows or [], filtered=filtered, today=today)


def format_found(entries: Sequence[ToolEntry]) -> str | None:
    """What a read step found: its last read that ran (``format_read``); None when it ran
    none. The reply made without Reply said "Read 2 row(s) from tasks" for "what's still
    on my to-do list?"."""
    reads = [e for e in entries if e.tool == "db_read" and not e.failed]
    return format_read(reads[-1]) if reads else None


def format_outcome(summaries: Sequence[str]) -> str:
    """The reply when the reply model is unavailable: each step's own summary (what was
    written follows it: ``format_done``)."""
    parts = [s.strip().rstrip(".") + "." for s in summaries if s.strip()]
    if not parts:
        return "I couldn't finish any step of this."
    return "Here is what I got done: " + " ".join(parts)


def format_forgotten(labels: Sequence[str]) -> str:
    """The answer to "forget that recipe": what was forgotten, and that nothing was stored."""
    names = [_text(label) for label in labels if _text(label)]
    if not names:
        return "Forgotten: it was never saved, so nothing in your kitchen changed."
    what = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
    never = "They were" if len(names) > 1 else "It was"
    return f"Forgotten: {what}. {never} never saved, so nothing in your kitchen changed."


def format_unmatched(notes: str) -> str:
    """A change that matched no row, told without a model (the notes of the write that
    matched nothing, ``Executor._unchanged``, are written for Act: filters, row counts):
    that nothing had the name, then the names and planned meals the notes list."""
    text = "I found nothing by that name to change."
    if near := near_names([notes]):
        text += " Similar names: " + ", ".join(f'"{n}"' for n in near) + "."
    if planned := planned_rows([notes]):
        text += " Planned: " + "; ".join(f"{d} {meal}: {r}" for d, meal, r in planned) + "."
    return text


def format_refused(details: str) -> str:
    """A call refused twice, told without a model: only what was refused ("The lookup was
    refused twice."). The rest of the blocked step's details, the executor's words to Act
    ("filters[0].value: 'user_id' is not a ref: this column takes the ref of a row of
    preferences …"), mean nothing to the user, and reached them word for word."""
    return details.split(":", 1)[0].strip().rstrip(".") + "."


def format_nothing_changed(asked: str) -> str:
    """The honest line when the user asked for a change ("add", "I bought") and the turn
    only looked data up (seed 000 action mismatch)."""
    return (
        f'You asked me to change something ("{asked}"), but I only looked it up: '
        "nothing was added, changed or removed. Ask again and I'll make the change."
    )
