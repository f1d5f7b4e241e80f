"""An item added where it already is: the quantity grows, no second row.

"Add 2 milk" when 1 l of milk is already on the open shopping list is 3 l of milk, not two
rows; the same for the inventory in the same place. Same item means the same catalog
ingredient (or, for a name the catalog does not know, the same name), the same unit, and,
on the shopping list, not yet bought (for the model's writes, under any unit: the item is
already there); in the inventory, the same location. An open task
with the same title and due date, or a meal on the same day, meal and recipe, is already
there (``KEPT``): nothing is added, and the row there is returned, marked ``ALREADY``.
Used by the CRUD executor (the model's writes) and the kitchen repository (the UI's), in
the caller's transaction, after the row has been linked to the catalog.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from domain.crud.rows import row_to_json, to_json, visible_columns

MERGED = ("shopping_list", "inventory")
GROWN_FROM = "_grown_from"
"""The key of a merged row that holds its quantity before the merge: a write's confirmation
says "eggs (now 12 piece)", not only "Added 1 item", so Reply does not guess the total
(told "Added 1 item to your inventory: eggs" for "bought 6 more eggs", the 1.5B local
model said there were now 7)."""


KEPT: dict[str, tuple[str, ...]] = {
    "tasks": ("title", "due_date"),
    "meal_plans": ("date", "meal_type", "recipe_id"),
}
"""Tables whose rows have no amount to grow: the columns that make a new row one already
there (a task only while it is open). In a step that ticked the oven off, the 1.5B local
model created "Call the plumber", due the day the open plumber task was due."""
ALREADY = "_already_there"
"""The key of a row a create found already there: its confirmation says nothing was
added."""


def _same(column: Any, value: Any) -> Any:
    if value is None:
        return column.is_(None)
    if isinstance(value, str):
        return func.lower(func.trim(column)) == value.strip().lower()
    return column == value


async def merge_into_existing(
    session: AsyncSession, table: Table, values: dict[str, Any], *, any_unit: bool = False
) -> dict[str, Any] | None:
    """The row ``values`` adds to, its quantity grown by theirs (and the quantity it had,
    ``GROWN_FROM``), or the row already there (``KEPT``, marked ``ALREADY``); None when
    there is none (the caller inserts a new row). ``any_unit`` (the model's writes): an
    item open on the shopping list under another unit is already there, marked
    ``ALREADY`` and left as it is: for "out of olive oil, stick it on the list", the oil
    listed as 1 bottle, the 1.5B local model listed it again as 1 ml. (The UI's add says
    its unit itself: another unit is another row.)"""
    if table.name in KEPT:
        return await _kept(session, table, values)
    if table.name not in MERGED or not values.get("name"):
        return None
    if values.get("ingredient_id") is not None:
        item = [table.c.ingredient_id == values["ingredient_id"]]
    else:
        item = [table.c.ingredient_id.is_(None), _same(table.c.name, values["name"])]
    if table.name == "shopping_list":
        item.append(table.c.is_purchased.is_(False))
    else:
        item.append(_same(table.c.location, values.get("location")))
    existing = (
        await session.execute(
            select(table.c.id, table.c.quantity)
            .where(*item, _same(table.c.unit, values.get("unit")))
            .order_by(table.c.created_at, table.c.id)
            .limit(1)
            .with_for_update()
        )
    ).first()
    if existing is None:
        listed = any_unit and table.name == "shopping_list"
        return await _first(session, table, item) if listed else None
    added = values.get("quantity")
    quantity = existing.quantity
    if added is not None:
        quantity = added if quantity is None else quantity + added
    merged = await session.execute(
        update(table)
        .where(table.c.id == existing.id)
        .values(quantity=quantity)
        .returning(*visible_columns(table))
    )
    return {**row_to_json(merged.one()), GROWN_FROM: to_json(existing.quantity)}


async def _kept(
    session: AsyncSession, table: Table, values: dict[str, Any]
) -> dict[str, Any] | None:
    """The row of ``table`` that ``values`` would add again (``KEPT``), or None."""
    columns = KEPT[table.name]
    if values.get(columns[0]) is None:
        return None
    if table.name == "meal_plans" and values.get("recipe_id") is None:
        columns = (*columns, "notes")  # a meal without a recipe is told by its notes
    conditions = [_same(table.c[c], values.get(c)) for c in columns]
    if table.name == "tasks":
        conditions.append(table.c.completed.is_(False))
    return await _first(session, table, conditions)


async def _first(
    session: AsyncSession, table: Table, conditions: list[Any]
) -> dict[str, Any] | None:
    """The first row of ``table`` that meets ``conditions``, marked ``ALREADY``; or None."""
    there = (
        await session.execute(
            select(*visible_columns(table))
            .where(*conditions)
            .order_by(table.c.created_at, table.c.id)
            .limit(1)
        )
    ).first()
    return None if there is None else {**row_to_json(there), ALREADY: True}
