"""Typed rows, filters and generated content, as a model writes them in a tool call.

Built from the CRUD whitelist (``domain.kitchen.tables``), so the schema a model is sent
names exactly the columns the executor accepts, with their kinds and closed value sets. A
null value means "not given": it is left out of the row the executor receives.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from pydantic import Field, create_model

from domain.answers.base import Answer, Text
from domain.crud.calls import OPERATORS
from domain.kitchen.entities import BY_TABLE
from domain.kitchen.tables import ENUMS, LINKED_TABLES, SYSTEM_SET, TABLES, Column
from domain.nodes import Subdomain

Scalar = str | int | float | bool
FilterValue = Scalar | list[str | int | float] | None
ChangeValue = Scalar | list[str] | None

GENERATED_TABLES = frozenset(
    e.table for e in BY_TABLE.values() if e.type_name in ("recipe", "meal", "task")
)
"""Tables whose rows can be saved from generated content (``id`` = a ``gen_`` ref)."""


class Filter(Answer):
    field: str
    """A column of the table (refs for ``id`` and foreign keys)."""
    op: Literal[OPERATORS]  # type: ignore[valid-type]
    value: FilterValue = None
    """A list for ``in`` / ``not_in``; null for ``is_null`` / ``is_not_null``."""


class Guidance(Answer):
    """One entry of ``preferences.subdomain_guidance``."""

    subdomain: Subdomain
    guidance: Text


def _column_type(table: str, column: Column) -> tuple[Any, str]:
    """(Python type, description) of a column as a model writes it."""
    closed = ENUMS.get((table, column.name))
    if closed is not None:
        return Literal[closed], ""  # type: ignore[valid-type]
    if column.kind == "json":
        return list[Guidance], "one entry per subdomain"
    return {
        "text": (str, ""),
        "integer": (int, ""),
        "number": (int | float, ""),
        "boolean": (bool, ""),
        "date": (str, "YYYY-MM-DD"),
        "datetime": (str, "ISO 8601 date and time"),
        "uuid": (str, f"a {column.fk} ref" if column.fk else "a ref"),
        "array": (list[str], ""),
    }[column.kind]


def _field(table: str, column: Column) -> tuple[Any, Any]:
    kind, description = _column_type(table, column)
    return kind | None, Field(default=None, description=description or None)


def _camel(table: str) -> str:
    return "".join(part.capitalize() for part in table.split("_"))


@cache
def row_model(
    table: str, *, nested: bool = False, saving: tuple[str, ...] | None = None
) -> type[Answer]:
    """A row to create in ``table``; ``nested``: a recipe ingredient inside its recipe;
    ``saving``: the unsaved ``gen_`` refs of the table's type a row may save (its ``id``
    names one of them, or none; with no such ref there is no ``id``); None: any text."""
    spec = TABLES[table]
    fields: dict[str, Any] = {}
    if table in GENERATED_TABLES and not nested and saving != ():
        ref: Any = str if saving is None else Literal[saving]  # type: ignore[valid-type]
        fields["id"] = (
            ref | None,
            Field(default=None, description="to save generated content: its gen_ ref"),
        )
    for name, column in spec.columns.items():
        if name in SYSTEM_SET or (nested and name == "recipe_id"):
            continue
        if table in LINKED_TABLES and name == "ingredient_id":
            continue  # the executor links the row to the catalog by its name
        fields[name] = _field(table, column)
    for key, child in spec.nested.items():
        fields[key] = (list[row_model(child, nested=True)] | None, None)  # type: ignore[misc]
    name = f"{_camel(table)}{'Nested' if nested else ''}Row"
    return create_model(name, __base__=Answer, **fields)


@cache
def change_model(table: str) -> type[Answer]:
    """One column an update sets in ``table``; a null value clears the column."""
    columns = tuple(c for c in TABLES[table].writable_columns if c not in TABLES[table].nested)
    return create_model(
        f"{_camel(table)}Change",
        __base__=Answer,
        column=(Literal[columns], ...),  # type: ignore[valid-type]
        value=(ChangeValue, None),
    )


def row_values(row: Answer) -> dict[str, Any]:
    """The executor's row: absent values left out, nested rows and guidance unfolded."""
    values: dict[str, Any] = {}
    for key, value in row:
        if value is None:
            continue
        if isinstance(value, list) and value and isinstance(value[0], Guidance):
            values[key] = {g.subdomain: g.guidance for g in value}
        elif isinstance(value, list) and value and isinstance(value[0], Answer):
            values[key] = [row_values(item) for item in value]
        else:
            values[key] = value
    return values


def row_answer(values: dict[str, Any]) -> dict[str, Any]:
    """The inverse of ``row_values``: a row as a model writes it."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, dict):
            out[key] = [{"subdomain": k, "guidance": v} for k, v in value.items()]
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            out[key] = [row_answer(item) for item in value]
        else:
            out[key] = value
    return out


# --- generated content (seed 001 "Pending Artifacts") ------------------------------------------


class IngredientLine(Answer):
    name: Text
    quantity: int | float | None = None
    unit: str | None = None
    notes: str | None = None


class RecipeContent(Answer):
    name: Text
    description: str | None = None
    cuisine: str | None = None
    difficulty: str | None = None
    servings: int | None = None
    prep_time_minutes: int | None = None
    cook_time_minutes: int | None = None
    instructions: list[str] = Field(default_factory=list)
    ingredients: list[IngredientLine] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)


class MealContent(Answer):
    date: str = Field(description="YYYY-MM-DD")
    meal_type: Literal[ENUMS[("meal_plans", "meal_type")]]  # type: ignore[valid-type]
    recipe_id: str | None = Field(default=None, description="a saved recipe's ref")
    servings: int | None = None
    notes: str | None = None


class TaskContent(Answer):
    title: Text
    due_date: str | None = Field(default=None, description="YYYY-MM-DD")
    category: Literal[ENUMS[("tasks", "category")]] | None = None  # type: ignore[valid-type]
    recipe_id: str | None = None
    meal_plan_id: str | None = None


def content_values(content: Answer) -> dict[str, Any]:
    """Generated content as the registry keeps it: absent and empty values left out."""
    return _present(content.model_dump(mode="json"))


def _present(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _present(v) for k, v in value.items() if v is not None and v != []}
    if isinstance(value, list):
        return [_present(v) for v in value]
    return value


def content_answer(model: type[Answer], values: dict[str, Any]) -> dict[str, Any]:
    """Stored content as a model writes it: the model's fields only (a saved recipe's
    ``id`` or ``user_id`` is not content)."""
    out = {k: v for k, v in values.items() if k in model.model_fields}
    if model is RecipeContent:
        lines = out.get("ingredients") or values.get("recipe_ingredients") or []
        out["ingredients"] = [
            {k: v for k, v in line.items() if k in IngredientLine.model_fields} for line in lines
        ]
    return out
