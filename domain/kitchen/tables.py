"""What the model may touch: tables, columns and their kinds, derived from the ORM models.

The CRUD executor checks every table, column and value against this whitelist; anything
not listed here never reaches SQL. The subdomain schemas that Act's ``request_schema``
returns are rendered from the same data, so the model is told exactly what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import ARRAY, Boolean, Date, DateTime, Integer, Numeric, Table, Text
from sqlalchemy.dialects.postgresql import JSONB, UUID

from domain.db import models
from domain.kitchen.entities import BY_TABLE

Kind = Literal["text", "integer", "number", "boolean", "date", "datetime", "uuid", "array", "json"]

HIDDEN = frozenset({"user_id"})
"""Never shown to the model, never accepted from it: the executor sets it, RLS enforces it."""
SYSTEM_SET = frozenset({"id", "user_id", "created_at"})
"""Assigned by the database; a write that names one of these is refused."""
LINKED_TABLES = frozenset({"inventory", "shopping_list", "recipe_ingredients"})
"""Rows whose name the system links to the ingredient catalog (exact name or alias) when
written: their ``ingredient_id`` is the system's, never a model's to write."""
ONE_ROW_TABLES = frozenset({"preferences"})
"""One row per user: a create or an update sets the user's row (creating it if absent),
so an update names no rows (no filters)."""


@dataclass(frozen=True)
class Column:
    name: str
    kind: Kind
    nullable: bool
    has_default: bool
    fk: str | None = None
    """Entity type an FK column points at (its values are refs for the model)."""
    text_default: str | None = None
    """A text column's constant server default (``preferences.timezone``: ``UTC``)."""

    @property
    def required_on_create(self) -> bool:
        return not self.nullable and not self.has_default and self.name not in SYSTEM_SET


@dataclass(frozen=True)
class TableSpec:
    name: str
    subdomain: str
    columns: dict[str, Column]
    writable: bool
    nested: dict[str, str]
    """Nested relation key -> child table (a recipe's ``recipe_ingredients``)."""
    description: str

    @property
    def readable(self) -> tuple[str, ...]:
        return tuple(c for c in self.columns if c not in HIDDEN)

    @property
    def writable_columns(self) -> tuple[str, ...]:
        return tuple(c for c in self.columns if c not in SYSTEM_SET)


def _kind(column_type: object) -> Kind:
    for sa_type, kind in (
        (ARRAY, "array"),
        (JSONB, "json"),
        (UUID, "uuid"),
        (Boolean, "boolean"),
        (DateTime, "datetime"),
        (Date, "date"),
        (Integer, "integer"),
        (Numeric, "number"),
        (Text, "text"),
    ):
        if isinstance(column_type, sa_type):
            return kind  # type: ignore[return-value]
    raise TypeError(f"no CRUD kind for column type {column_type!r}")


def _text_default(column: Any) -> str | None:
    default = column.server_default
    arg = getattr(default, "arg", None)
    return arg if isinstance(arg, str) and _kind(column.type) == "text" else None


def _spec(table: Table, *, subdomain: str, writable: bool, description: str) -> TableSpec:
    entity = BY_TABLE.get(table.name)
    fks = dict(entity.fk_fields) if entity else {}
    columns = {
        c.name: Column(
            name=c.name,
            kind=_kind(c.type),
            nullable=bool(c.nullable),
            has_default=c.server_default is not None or c.default is not None,
            fk=fks.get(c.name),
            text_default=_text_default(c),
        )
        for c in table.columns
    }
    nested = {key: BY_TYPE_TABLE[child] for key, child in (entity.nested if entity else {}).items()}
    return TableSpec(table.name, subdomain, columns, writable, nested, description)


BY_TYPE_TABLE = {e.type_name: e.table for e in BY_TABLE.values()}

_DEFS: tuple[tuple[type[models.Base], str, bool, str], ...] = (
    (models.Inventory, "inventory", True, "What the user has: pantry, fridge, freezer."),
    (models.Ingredient, "inventory", False, "Global ingredient catalog (read only)."),
    (models.Recipe, "recipes", True, "Saved recipes; create with nested recipe_ingredients."),
    (models.RecipeIngredient, "recipes", True, "Ingredients of a saved recipe."),
    (models.CookingLog, "recipes", True, "When the user cooked a recipe, with a rating."),
    (models.ShoppingListItem, "shopping", True, "The shopping list."),
    (models.MealPlan, "meal_plans", True, "Planned meals by date and meal type."),
    (models.Task, "tasks", True, "Kitchen tasks: prep, shopping, cleanup."),
    (
        models.Preferences,
        "preferences",
        True,
        "The user's profile, one row per user: an update sets the columns it names.",
    ),
)

TABLES: dict[str, TableSpec] = {
    model.__table__.name: _spec(model.__table__, subdomain=sub, writable=w, description=d)
    for model, sub, w, d in _DEFS
}

SUBDOMAINS: dict[str, tuple[str, ...]] = {}
for _spec_item in TABLES.values():
    SUBDOMAINS.setdefault(_spec_item.subdomain, ())
    SUBDOMAINS[_spec_item.subdomain] += (_spec_item.name,)

ENUMS: dict[tuple[str, str], tuple[str, ...]] = {
    ("meal_plans", "meal_type"): ("breakfast", "lunch", "dinner", "snack", "other"),
    ("tasks", "category"): ("prep", "shopping", "cleanup", "other"),
}
"""Closed value sets the database checks; listed in the schema so the model knows them."""


def schema_for_subdomain(subdomain: str) -> str:
    """The Markdown schema Act's ``request_schema`` returns for ``subdomain``."""
    if subdomain not in SUBDOMAINS:
        known = ", ".join(sorted(SUBDOMAINS))
        raise KeyError(f"unknown subdomain {subdomain!r}; known: {known}")
    parts: list[str] = []
    for name in SUBDOMAINS[subdomain]:
        spec = TABLES[name]
        access = "read/write" if spec.writable else "read only"
        parts.append(f"### {name} ({access})\n{spec.description}")
        for column in spec.columns.values():
            if column.name in HIDDEN:
                continue
            notes = []
            kind = "ref" if column.kind == "uuid" else column.kind
            if column.name == "id":
                notes.append("this row")
            if column.fk:
                notes.append(f"to {column.fk}")
            if column.required_on_create:
                notes.append("required")
            if (name, column.name) in ENUMS:
                notes.append("one of " + "|".join(ENUMS[(name, column.name)]))
            suffix = f" ({', '.join(notes)})" if notes else ""
            parts.append(f"- {column.name}: {kind}{suffix}")
        for key, child in spec.nested.items():
            parts.append(f"- {key}: list of {child} rows (nested; read and create together)")
    return "\n".join(parts)
