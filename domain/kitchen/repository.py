"""All SQL of the kitchen resource routes: one user's inventory, recipes, shopping list, meal
plans, tasks and preferences, listed, read, created, updated and deleted.

Every function takes the caller's session, opened with ``user_transaction``: row-level
security shows it only that user's rows (another user's row is simply not found), and the
caller owns the commit. Values go through the CRUD whitelist (``check_row``); ids of other
rows are checked to exist *for this user* before a write, so a foreign or unknown id is a
validation error naming the field, and anything the database still refuses (a CHECK, a race)
is a validation error too, never a server error. Every write is noted in ``kitchen_changes``
in the same transaction: the user's next turn receives it as a UI change.

Rows are plain JSON dicts (``row_to_json``) without ``user_id``; a recipe carries its
ingredients under ``ingredients``.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from sqlalchemy import (
    Table,
    case,
    delete,
    func,
    insert,
    literal,
    literal_column,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from domain.crud.ingredients import link_ingredient
from domain.crud.merge import ALREADY, GROWN_FROM, merge_into_existing
from domain.crud.rows import execute_checked, row_to_json, visible_columns
from domain.crud.validate import check_row, table_spec
from domain.db.models import Base
from domain.errors import CrudValidationError
from domain.kitchen.entities import BY_TYPE
from domain.kitchen.tables import ENUMS, LINKED_TABLES, TABLES, TableSpec
from domain.turn_store import record_kitchen_change

Row = dict[str, Any]

INGREDIENTS = "ingredients"
"""Key of a recipe's ingredient list, in request data and in returned rows."""
WHERE = "body"
"""Prefix of validation messages: the fields are those of the request body."""


def _table(name: str) -> Table:
    return Base.metadata.tables[name]


def _visible(table: Table) -> list[Any]:
    return visible_columns(table)


async def _run(session: AsyncSession, stmt: Any) -> Any:
    return await execute_checked(session, stmt, where=WHERE)


# --- reads ----------------------------------------------------------------------------------


async def _list(
    session: AsyncSession,
    name: str,
    conditions: list[Any],
    order: list[Any],
    limit: int,
    offset: int,
) -> list[Row]:
    table = _table(name)
    query = (
        select(*_visible(table))
        .where(*conditions)
        .order_by(*order, table.c.id)
        .limit(limit)
        .offset(offset)
    )
    rows = [row_to_json(r) for r in (await _run(session, query)).all()]
    if name == "recipes":
        await _attach_ingredients(session, rows)
    return rows


async def list_rows(session: AsyncSession, name: str, *, limit: int = 500) -> list[Row]:
    """Every row of one of the user's tables, oldest first where the table keeps the time
    (a recipe with its ingredients)."""
    t = _table(table_spec(name).name)
    order = [t.c.created_at] if "created_at" in t.c else []
    return await _list(session, t.name, [], order, limit, 0)


async def rows_named_in(
    session: AsyncSession, name: str, text: str, *, limit: int = 5
) -> list[Row]:
    """Rows of ``name`` (inventory, open shopping items) whose name occurs in ``text``
    (case-insensitive; the text is a bound parameter, never SQL)."""
    t = _table(name)
    conditions = [
        func.strpos(func.lower(literal(text)), func.lower(t.c.name)) > 0,
        func.length(t.c.name) >= 3,
    ]
    if "is_purchased" in t.c:
        conditions.append(t.c.is_purchased.is_(False))
    return await _list(session, name, conditions, [func.lower(t.c.name)], limit, 0)


async def list_inventory(
    session: AsyncSession, *, location: str | None = None, limit: int, offset: int = 0
) -> list[Row]:
    """By name; ``location`` matches case-insensitively (``Fridge`` finds ``fridge``)."""
    t = _table("inventory")
    conditions = [] if location is None else [func.lower(t.c.location) == location.lower()]
    return await _list(session, t.name, conditions, [func.lower(t.c.name)], limit, offset)


async def list_recipes(session: AsyncSession, *, limit: int, offset: int = 0) -> list[Row]:
    t = _table("recipes")
    return await _list(session, t.name, [], [func.lower(t.c.name)], limit, offset)


async def list_shopping_list(
    session: AsyncSession, *, is_purchased: bool | None = None, limit: int, offset: int = 0
) -> list[Row]:
    """Still to buy first, then in the order items were added."""
    t = _table("shopping_list")
    conditions = [] if is_purchased is None else [t.c.is_purchased == is_purchased]
    return await _list(
        session, t.name, conditions, [t.c.is_purchased, t.c.created_at], limit, offset
    )


async def list_meal_plans(
    session: AsyncSession,
    *,
    date_from: dt.date | None = None,
    date_to: dt.date | None = None,
    limit: int,
    offset: int = 0,
) -> list[Row]:
    """By date (both bounds inclusive), then breakfast, lunch, dinner, snack, other."""
    t = _table("meal_plans")
    conditions = []
    if date_from is not None:
        conditions.append(t.c.date >= date_from)
    if date_to is not None:
        conditions.append(t.c.date <= date_to)
    meal_order = case(
        {meal: i for i, meal in enumerate(ENUMS[("meal_plans", "meal_type")])},
        value=t.c.meal_type,
    )
    return await _list(
        session, t.name, conditions, [t.c.date, meal_order, t.c.created_at], limit, offset
    )


async def list_tasks(
    session: AsyncSession, *, completed: bool | None = None, limit: int, offset: int = 0
) -> list[Row]:
    """Open tasks first, by due date (undated last), then in the order they were added."""
    t = _table("tasks")
    conditions = [] if completed is None else [t.c.completed == completed]
    order = [t.c.completed, t.c.due_date.asc().nulls_last(), t.c.created_at]
    return await _list(session, t.name, conditions, order, limit, offset)


async def get_row(session: AsyncSession, name: str, row_id: uuid.UUID) -> Row | None:
    """One row by id (a recipe with its ingredients); ``None`` when this user has no such row."""
    table = _table(table_spec(name).name)
    found = (await _run(session, select(*_visible(table)).where(table.c.id == row_id))).first()
    if found is None:
        return None
    row = row_to_json(found)
    if name == "recipes":
        await _attach_ingredients(session, [row])
    return row


async def _attach_ingredients(session: AsyncSession, recipes: list[Row]) -> None:
    """Each recipe's ingredients, by name (the schema keeps no position), in one query."""
    for recipe in recipes:
        recipe[INGREDIENTS] = []
    if not recipes:
        return
    child = _table("recipe_ingredients")
    query = (
        select(*_visible(child))
        .where(child.c.recipe_id.in_([uuid.UUID(r["id"]) for r in recipes]))
        .order_by(child.c.recipe_id, func.lower(child.c.name), child.c.id)
    )
    by_id = {r["id"]: r for r in recipes}
    for found in (await _run(session, query)).all():
        item = row_to_json(found)
        by_id[item["recipe_id"]][INGREDIENTS].append(item)


# --- writes ---------------------------------------------------------------------------------


def _split_ingredients(name: str, data: Row) -> tuple[Row, list[Row] | None]:
    """The row's own values, and the recipe's ingredient rows when given (validated)."""
    data = dict(data)
    items = data.pop(INGREDIENTS, None)
    if items is None:
        return data, None
    if name != "recipes":
        raise CrudValidationError(f"{WHERE}.{INGREDIENTS}: only recipes have ingredients")
    if not isinstance(items, list):
        raise CrudValidationError(f"{WHERE}.{INGREDIENTS}: must be a list of ingredients")
    child = TABLES["recipe_ingredients"]
    return data, [
        check_row(
            child,
            {k: v for k, v in item.items() if k != "recipe_id"} if isinstance(item, dict) else item,
            f"{WHERE}.{INGREDIENTS}[{i}]",
            partial=False,
            implied=("recipe_id",),
        )
        for i, item in enumerate(items)
    ]


async def _check_references(
    session: AsyncSession, spec: TableSpec, values: Row, where: str = WHERE
) -> None:
    """Every id the row points at names a row this user can see (RLS hides everyone else's).

    The composite foreign keys would refuse the write anyway; checking first turns that into
    a message naming the field.
    """
    for name, value in values.items():
        col = spec.columns.get(name)
        if col is None or col.fk is None or value is None:
            continue
        target = _table(BY_TYPE[col.fk].table)
        if await session.scalar(select(target.c.id).where(target.c.id == value)) is None:
            owner = (
                "the ingredient catalog" if target.name == "ingredients" else f"your {target.name}"
            )
            raise CrudValidationError(f"{where}.{name}: {value} is not in {owner}")


async def _link(session: AsyncSession, name: str, values: Row, *, creating: bool) -> None:
    """Link a written name to the catalog. A rename relinks (or unlinks) the row, unless the
    client set ``ingredient_id`` itself; the category is only ever filled when empty."""
    if name not in LINKED_TABLES or "name" not in values or "ingredient_id" in values:
        return
    if "\x00" in str(values["name"]):
        return  # the driver refuses it in any query; the insert reports it (``_run``)
    found = await link_ingredient(session, values["name"])
    if found is None:
        if not creating:
            values["ingredient_id"] = None
        return
    values["ingredient_id"] = found.id
    if creating and not values.get("category"):
        values["category"] = found.category


async def _insert_ingredients(
    session: AsyncSession, recipe_id: uuid.UUID, items: list[Row]
) -> None:
    child = _table("recipe_ingredients")
    for i, item in enumerate(items):
        values = {**item, "recipe_id": recipe_id}
        await _check_references(session, TABLES[child.name], values, f"{WHERE}.{INGREDIENTS}[{i}]")
        await _link(session, child.name, values, creating=True)
        await _run(session, insert(child).values(**values))


async def create_row(session: AsyncSession, name: str, data: Row) -> Row:
    """Insert one row (a recipe with its ``ingredients``) and note the change; the new row."""
    spec = table_spec(name, write=True)
    values, items = _split_ingredients(name, data)
    clean = check_row(spec, values, WHERE, partial=False)
    await _check_references(session, spec, clean)
    await _link(session, name, clean, creating=True)
    table = _table(name)
    merged = await merge_into_existing(session, table, clean)
    if merged is not None and merged.pop(ALREADY, False):  # the same task or meal: no change
        return merged
    if merged is not None:  # already on the list, or in the same place: more of it
        merged.pop(GROWN_FROM)  # the row as it is, for the UI
        await record_kitchen_change(
            session, table=name, row_id=uuid.UUID(merged["id"]), action="updated", data=merged
        )
        return merged
    row = row_to_json(
        (await _run(session, insert(table).values(**clean).returning(*_visible(table)))).one()
    )
    if name == "recipes":
        await _insert_ingredients(session, uuid.UUID(row["id"]), items or [])
        await _attach_ingredients(session, [row])
    await record_kitchen_change(
        session, table=name, row_id=uuid.UUID(row["id"]), action="created", data=row
    )
    return row


async def update_row(session: AsyncSession, name: str, row_id: uuid.UUID, data: Row) -> Row | None:
    """Change only the given columns (a recipe's ``ingredients``, when given, are replaced).

    ``None`` when this user has no such row.
    """
    spec = table_spec(name, write=True)
    values, items = _split_ingredients(name, data)
    if not values and items is None:
        raise CrudValidationError(f"{WHERE}: nothing to update")
    clean = check_row(spec, values, WHERE, partial=True) if values else {}
    table = _table(name)
    locked = select(table.c.id).where(table.c.id == row_id).with_for_update()
    if await session.scalar(locked) is None:
        return None
    await _check_references(session, spec, clean)
    await _link(session, name, clean, creating=False)
    if clean:
        await _run(session, update(table).where(table.c.id == row_id).values(**clean))
    if items is not None:
        child = _table("recipe_ingredients")
        await _run(session, delete(child).where(child.c.recipe_id == row_id))
        await _insert_ingredients(session, row_id, items)
    row = await get_row(session, name, row_id)
    if row is not None:  # always: the row is locked in this transaction
        await record_kitchen_change(session, table=name, row_id=row_id, action="updated", data=row)
    return row


async def delete_row(session: AsyncSession, name: str, row_id: uuid.UUID) -> Row | None:
    """Delete one row (a recipe's ingredients go with it); the deleted row, or ``None``."""
    table = _table(table_spec(name, write=True).name)
    row = await get_row(session, name, row_id)
    if row is None:
        return None
    await _run(session, delete(table).where(table.c.id == row_id))
    await record_kitchen_change(session, table=name, row_id=row_id, action="deleted", data=row)
    return row


# --- preferences (one row per user) ---------------------------------------------------------


async def get_preferences(session: AsyncSession) -> Row | None:
    table = _table("preferences")
    found = (await _run(session, select(*_visible(table)))).first()
    return row_to_json(found) if found is not None else None


async def put_preferences(session: AsyncSession, data: Row) -> Row:
    """Create the profile or change the given fields of it; the profile after the write."""
    spec = table_spec("preferences", write=True)
    clean = check_row(spec, data, WHERE, partial=True) if data else {}
    table = _table("preferences")
    inserted = literal_column("(xmax = 0)").label("inserted")  # PostgreSQL: a fresh row
    stmt = (
        pg_insert(table)
        .values(**clean)
        .on_conflict_do_update(index_elements=["user_id"], set_=clean or {"id": table.c.id})
        .returning(*_visible(table), inserted)
    )
    row = row_to_json((await _run(session, stmt)).one())
    action = "created" if row.pop("inserted") else "updated"
    await record_kitchen_change(
        session, table="preferences", row_id=uuid.UUID(row["id"]), action=action, data=row
    )
    return row
