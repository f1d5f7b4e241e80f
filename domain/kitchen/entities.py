"""The kitchen's entity types: how each table is named in refs, labelled, and linked.

This is the domain configuration the SessionIdRegistry and the CRUD executor share
(seed 001, "DomainConfig Hooks"): ref type names, FK fields, nested relations, labels
and detail levels. Everything here is deterministic and free of I/O.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class EntityType:
    """One kind of entity the model can refer to by ref (``recipe_1``, ``inv_3`` ...)."""

    type_name: str
    """Ref prefix: ``recipe`` gives ``recipe_1`` and ``gen_recipe_1``."""
    table: str
    label: Callable[[Mapping[str, Any]], str]
    """Human-readable label from a record (the record may hold refs, not UUIDs)."""
    fk_fields: Mapping[str, str] = field(default_factory=dict)
    """FK column -> type_name of the entity it points at."""
    nested: Mapping[str, str] = field(default_factory=dict)
    """Key of a nested list in a read record -> type_name of its items."""
    detail_tracking: bool = False
    subdomain: str = ""


def _field(name: str) -> Callable[[Mapping[str, Any]], str]:
    def label(record: Mapping[str, Any]) -> str:
        value = record.get(name)
        return str(value) if value not in (None, "") else ""

    return label


def _meal_label(record: Mapping[str, Any]) -> str:
    """``Mon Dinner (2026-11-23)`` from a meal plan's date and meal type."""
    raw_date = record.get("date")
    meal_type = str(record.get("meal_type") or "meal").capitalize()
    if isinstance(raw_date, str):
        try:
            raw_date = dt.date.fromisoformat(raw_date[:10])
        except ValueError:
            return f"{meal_type} {raw_date}"
    if isinstance(raw_date, dt.date):
        return f"{raw_date.strftime('%a')} {meal_type} ({raw_date.isoformat()})"
    return meal_type


def _log_label(record: Mapping[str, Any]) -> str:
    cooked = str(record.get("cooked_at") or "")[:10]
    recipe = record.get("_recipe_id_label") or record.get("recipe_id") or "a recipe"
    return f"cooked {recipe} {cooked}".strip()


ENTITY_TYPES: tuple[EntityType, ...] = (
    EntityType(
        "recipe",
        "recipes",
        _field("name"),
        fk_fields={"parent_recipe_id": "recipe"},
        nested={"recipe_ingredients": "ri"},
        detail_tracking=True,
        subdomain="recipes",
    ),
    EntityType(
        "ri",
        "recipe_ingredients",
        _field("name"),
        fk_fields={"recipe_id": "recipe", "ingredient_id": "ing"},
        subdomain="recipes",
    ),
    EntityType(
        "inv",
        "inventory",
        _field("name"),
        fk_fields={"ingredient_id": "ing"},
        subdomain="inventory",
    ),
    EntityType(
        "shop",
        "shopping_list",
        _field("name"),
        fk_fields={"ingredient_id": "ing"},
        subdomain="shopping",
    ),
    EntityType(
        "meal",
        "meal_plans",
        _meal_label,
        fk_fields={"recipe_id": "recipe"},
        subdomain="meal_plans",
    ),
    EntityType(
        "task",
        "tasks",
        _field("title"),
        fk_fields={"recipe_id": "recipe", "meal_plan_id": "meal"},
        subdomain="tasks",
    ),
    EntityType("pref", "preferences", lambda _record: "preferences", subdomain="preferences"),
    EntityType("ing", "ingredients", _field("name"), subdomain="inventory"),
    EntityType(
        "log",
        "cooking_log",
        _log_label,
        fk_fields={"recipe_id": "recipe"},
        subdomain="recipes",
    ),
)

BY_TYPE: dict[str, EntityType] = {e.type_name: e for e in ENTITY_TYPES}
BY_TABLE: dict[str, EntityType] = {e.table: e for e in ENTITY_TYPES}


def compute_label(type_name: str, record: Mapping[str, Any]) -> str:
    """The display label of a record of ``type_name`` (empty when nothing names it)."""
    return BY_TYPE[type_name].label(record)


def detect_detail_level(type_name: str, record: Mapping[str, Any]) -> str | None:
    """``"full"`` or ``"summary"`` for detail-tracked types, ``None`` for the others.

    A recipe counts as read in full when the record carries its instructions and its
    ingredients; any narrower column set is a summary (seed 001, "Detail Tracking").
    """
    if not BY_TYPE[type_name].detail_tracking:
        return None
    if type_name == "recipe":
        has_all = "instructions" in record and "recipe_ingredients" in record
        return "full" if has_all else "summary"
    return "summary"
