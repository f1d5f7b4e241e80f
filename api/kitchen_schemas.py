"""Request and response bodies of the kitchen routes (``XCreate / XUpdate / XPublic``).

The models are generated from the CRUD whitelist (``domain/kitchen/tables.py``) rather than
written out six times: the same columns, kinds, required flags and closed value sets the
model is held to are what the UI is held to. They are real pydantic classes with real field
names and types, so /docs shows them as written models would be shown. ``user_id`` is never a
field (it is not readable nor writable in the whitelist), and unknown keys are refused.

Pydantic checks shapes and types here (a 422 naming the field); the repository then runs the
whitelist's ``check_row`` on what is left, which coerces values to what the columns store.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from api.schemas import SafeJson, SafeText
from domain.kitchen.entities import BY_TYPE
from domain.kitchen.tables import ENUMS, TABLES, Column

INT4 = 2**31 - 1
"""Integer columns are PostgreSQL ``integer``: bigger values are refused here, by name."""


_PY_TYPES: dict[str, Any] = {
    "text": SafeText,  # what PostgreSQL can store: no NUL, no lone surrogates
    "integer": int,
    "number": float,
    "boolean": bool,
    "date": dt.date,
    "datetime": dt.datetime,
    "uuid": uuid.UUID,
    "array": list[SafeText],
    "json": SafeJson,
}


class _Body(BaseModel):
    """A request body: keys that are not columns (``user_id``, ``id``, typos) are a 422."""

    model_config = ConfigDict(extra="forbid")


def _type(table: str, col: Column) -> Any:
    allowed = ENUMS.get((table, col.name))
    return Literal[allowed] if allowed else _PY_TYPES[col.kind]  # type: ignore[valid-type]


def _server_default(col: Column) -> Any:
    """What the database stores when a NOT NULL column with a default is left out."""
    if col.kind == "text":
        return col.text_default
    return {"array": [], "json": {}, "boolean": False}[col.kind]


def _drop_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def _field(col: Column, default: Any, *, show_default: bool = True) -> Any:
    extra: dict[str, Any] = {}
    if col.kind == "integer":
        extra.update(ge=-INT4 - 1, le=INT4)
    if col.kind == "number":
        extra["allow_inf_nan"] = False
    if col.fk:
        target = BY_TYPE[col.fk].table
        owner = "the ingredient catalog" if target == "ingredients" else f"your {target}"
        extra["description"] = f"id of a row of {owner}"
    if not show_default:
        # Optional in a PATCH, but never null: "left out" is not a value to document.
        extra["json_schema_extra"] = _drop_default
    return Field(default, **extra)


def _create_fields(table: str, *, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    spec = TABLES[table]
    fields: dict[str, Any] = {}
    for name in spec.writable_columns:
        if name in skip:
            continue
        col = spec.columns[name]
        kind = _type(table, col)
        if col.required_on_create:
            fields[name] = (kind, _field(col, ...))
        elif col.nullable:
            fields[name] = (kind | None, _field(col, None))
        else:
            fields[name] = (kind, _field(col, _server_default(col)))
    return fields


def _update_fields(table: str) -> dict[str, Any]:
    spec = TABLES[table]
    fields: dict[str, Any] = {}
    for name in spec.writable_columns:
        col = spec.columns[name]
        kind = _type(table, col)
        if col.nullable:
            fields[name] = (kind | None, _field(col, None))
        else:  # optional, but an explicit null is a 422: the column is NOT NULL
            fields[name] = (kind, _field(col, None, show_default=False))
    return fields


def _public_fields(table: str) -> dict[str, Any]:
    spec = TABLES[table]
    fields: dict[str, Any] = {}
    for name in spec.readable:
        col = spec.columns[name]
        kind = _type(table, col)
        fields[name] = (kind | None if col.nullable else kind, ...)
    return fields


def _model(name: str, doc: str, base: type[BaseModel], fields: dict[str, Any]) -> Any:
    return create_model(name, __base__=base, __module__=__name__, __doc__=doc, **fields)


# --- inventory ------------------------------------------------------------------------------

InventoryItemCreate = _model(
    "InventoryItemCreate",
    "A new inventory item. Its name is linked to the ingredient catalog when it matches.",
    _Body,
    _create_fields("inventory"),
)
InventoryItemUpdate = _model(
    "InventoryItemUpdate",
    "Changes to an inventory item: only the given fields change.",
    _Body,
    _update_fields("inventory"),
)
InventoryItemPublic = _model(
    "InventoryItemPublic", "An inventory item.", BaseModel, _public_fields("inventory")
)

# --- recipes --------------------------------------------------------------------------------

RECIPE_INGREDIENT_FIELDS = ("name", "quantity", "unit", "notes", "is_optional")
"""What a client writes for a recipe's ingredient; the catalog link and category are filled in."""

RecipeIngredientCreate = _model(
    "RecipeIngredientCreate",
    "An ingredient of a recipe being written.",
    _Body,
    {
        k: v
        for k, v in _create_fields("recipe_ingredients").items()
        if k in RECIPE_INGREDIENT_FIELDS
    },
)
RecipeIngredientPublic = _model(
    "RecipeIngredientPublic",
    "An ingredient of a recipe.",
    BaseModel,
    _public_fields("recipe_ingredients"),
)
RecipeCreate = _model(
    "RecipeCreate",
    "A new recipe, with its ingredients (written in the same transaction).",
    _Body,
    {
        **_create_fields("recipes"),
        "ingredients": (list[RecipeIngredientCreate], Field(default_factory=list)),
    },
)
RecipeUpdate = _model(
    "RecipeUpdate",
    "Changes to a recipe: only the given fields change. ``ingredients``, when given, "
    "replaces the whole ingredient list.",
    _Body,
    {
        **_update_fields("recipes"),
        "ingredients": (
            list[RecipeIngredientCreate],
            Field(None, json_schema_extra=_drop_default),
        ),
    },
)
RecipePublic = _model(
    "RecipePublic",
    "A recipe with its ingredients.",
    BaseModel,
    {**_public_fields("recipes"), "ingredients": (list[RecipeIngredientPublic], ...)},
)

# --- shopping list --------------------------------------------------------------------------

ShoppingListItemCreate = _model(
    "ShoppingListItemCreate",
    "A new shopping-list item.",
    _Body,
    _create_fields("shopping_list"),
)
ShoppingListItemUpdate = _model(
    "ShoppingListItemUpdate",
    "Changes to a shopping-list item: only the given fields change.",
    _Body,
    _update_fields("shopping_list"),
)
ShoppingListItemPublic = _model(
    "ShoppingListItemPublic",
    "A shopping-list item.",
    BaseModel,
    _public_fields("shopping_list"),
)

# --- meal plans -----------------------------------------------------------------------------

MealPlanCreate = _model("MealPlanCreate", "A planned meal.", _Body, _create_fields("meal_plans"))
MealPlanUpdate = _model(
    "MealPlanUpdate",
    "Changes to a planned meal: only the given fields change.",
    _Body,
    _update_fields("meal_plans"),
)
MealPlanPublic = _model(
    "MealPlanPublic", "A planned meal.", BaseModel, _public_fields("meal_plans")
)

# --- tasks ----------------------------------------------------------------------------------

TaskCreate = _model("TaskCreate", "A new kitchen task.", _Body, _create_fields("tasks"))
TaskUpdate = _model(
    "TaskUpdate",
    "Changes to a task: only the given fields change.",
    _Body,
    _update_fields("tasks"),
)
TaskPublic = _model("TaskPublic", "A kitchen task.", BaseModel, _public_fields("tasks"))

# --- preferences ----------------------------------------------------------------------------

PreferencesUpdate = _model(
    "PreferencesUpdate",
    "Changes to the profile (created on first write): only the given fields change.",
    _Body,
    _update_fields("preferences"),
)
PreferencesPublic = _model(
    "PreferencesPublic",
    "The user's profile. ``id`` is null until the profile is first written.",
    BaseModel,
    {**_public_fields("preferences"), "id": (uuid.UUID | None, ...)},
)


def empty_preferences() -> dict[str, Any]:
    """The profile of a user who has not written one: every column at its default."""
    spec = TABLES["preferences"]
    profile: dict[str, Any] = {}
    for name in spec.readable:
        col = spec.columns[name]
        profile[name] = None if col.nullable or name == "id" else _server_default(col)
    return profile
