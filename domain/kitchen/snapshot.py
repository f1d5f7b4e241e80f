"""The reads behind a turn's ``TurnContext``: profile, dashboard counts, fresh rows.

Every function takes a session opened with ``user_transaction``, so row-level security
limits it to the user's own rows: a mention of someone else's recipe finds nothing.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid

from sqlalchemy import Table, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from domain.clock import DEFAULT_TIMEZONE, local_date
from domain.crud.near import name_words
from domain.db.models import Base
from domain.formatters import days_from
from domain.intent import unplaced_delete
from domain.kitchen import repository
from domain.kitchen.entities import BY_TABLE
from domain.kitchen.tables import TABLES
from domain.mentions import parse_mentions
from domain.plan_examples import content_stems, stem, words
from domain.turn_context import NO_RECIPE, FreshEntity, KitchenDashboard, TurnContext

EXPIRING_DAYS = 3
PLAN_DAYS = 7
TOP_CUISINES = 8
TASKS_SHOWN = 5
"""Open tasks named in the dashboard, those due first."""
MAX_FRESH = 12
"""Fresh rows per turn (UI changes and mentions together); the newest changes win."""


def _t(name: str) -> Table:
    return Base.metadata.tables[name]


NAMED_IN = ("inventory", "shopping_list")
"""The tables whose rows a request names by their name: the stock and the list, where a
named item decides the change ("got the bread" ticks it off the list; "milk is finished"
is a row of the fridge) and "the eggs" may be in either."""
OPEN_TASKS_READ = 50
"""Open tasks whose titles a request is matched against (``names_task``)."""
RECIPES_READ = 500
"""Recipes whose names a request is matched against (``names_recipe``)."""
Named = dict[str, list[dict]]
"""Table of ``NAMED_IN``, or ``tasks`` -> its rows the request names."""


def names_task(message: str, title: str) -> bool:
    """Whether ``message`` names the task ``title`` in its own words: every content word
    of the title is there in some form ("forget about the oven cleaning" names "Clean the
    oven"), or the thing the title acts on, said as what the message is about ("tick off
    the plumber", "plumber is coming tuesday now" name "Call the plumber"; "what can I
    cook in the oven?" says "oven" as a place and names no task). The 1.5B local model,
    told nothing of the task, deleted "the oven cleaning" as a recipe and put "plumber is
    coming tuesday now" on the shopping list."""
    wanted = set(content_stems(title))
    if wanted and wanted <= set(content_stems(message)):
        return True
    thing = _THING.search(title.lower())
    if thing is None:
        return False
    said = words(message)
    return any(
        stem(word) == stem(thing.group(1)) and not _placed(said[:at])
        for at, word in enumerate(said)
    )


_THING = re.compile(r"\b(?:the|my|our)\s+([a-z]+)\s*$")
"""The thing a task's title acts on: its last word, after "the" ("Call the plumber")."""
_PLACES = frozenset({"in", "into", "inside", "on", "onto", "at", "under", "from", "with", "using"})
_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "this", "that"})


def _placed(before: list[str]) -> bool:
    """Whether the word after ``before`` is the object of a preposition ("in the oven")."""
    while before and before[-1] in _DETERMINERS:
        before = before[:-1]
    return bool(before) and before[-1] in _PLACES


async def rows_named(session: AsyncSession, message: str) -> Named:
    """Table -> its rows (open shopping items) whose name ``message`` holds as whole
    words, the open tasks it names (``names_task``) and the recipes, by name only
    (``names_recipe``)."""
    named: Named = {}
    for table in NAMED_IN:
        for row in await repository.rows_named_in(session, table, message):
            name = str(row.get("name") or "").lower()
            if re.search(rf"\b{re.escape(name)}\b", message.lower()):
                named.setdefault(table, []).append(row)
    tasks = await repository.list_tasks(session, completed=False, limit=OPEN_TASKS_READ)
    if said := [row for row in tasks if names_task(message, str(row.get("title") or ""))]:
        named["tasks"] = said
    recipes = await session.scalars(select(_t("recipes").c.name).limit(RECIPES_READ))
    if said := [{"name": name} for name in recipes.all() if names_recipe(message, name)]:
        named["recipes"] = said
    return named


def names_recipe(message: str, name: str) -> bool:
    """Whether ``message`` names the recipe ``name`` by its last word, the dish ("dal
    for dinner friday" names "Red Lentil Dal"; "chili tonight" "Weeknight Chili"). Told
    nothing of it, the 1.5B local model planned a new dinner for "dal for dinner friday"."""
    last = re.findall(r"[a-z]{3,}", name.lower())
    return bool(last) and name_words(last[-1]) <= name_words(message)


async def kitchen_dashboard(
    session: AsyncSession, today: dt.date, message: str = "", named: Named | None = None
) -> KitchenDashboard:
    """Counts of the user's kitchen, the open tasks due first, and the names of the rows
    the ``message`` names (``named``, when the caller has read them: ``rows_named``)."""
    if named is None:
        named = await rows_named(session, message) if message else {}
    inv, rec, meal = _t("inventory"), _t("recipes"), _t("meal_plans")
    shop, task = _t("shopping_list"), _t("tasks")
    location = func.coalesce(func.lower(inv.c.location), "unspecified")
    by_location = (
        await session.execute(select(location, func.count()).group_by(location).order_by(location))
    ).all()
    expiring = await session.scalar(
        select(func.count()).where(inv.c.expiry_date <= today + dt.timedelta(days=EXPIRING_DAYS))
    )
    cuisine = func.coalesce(func.lower(rec.c.cuisine), "unspecified")
    by_cuisine = (
        await session.execute(
            select(cuisine, func.count())
            .group_by(cuisine)
            .order_by(func.count().desc(), cuisine)
            .limit(TOP_CUISINES)
        )
    ).all()
    recipes = await session.scalar(select(func.count()).select_from(rec))
    slots = (
        await session.execute(
            select(meal.c.date, meal.c.meal_type, rec.c.name)
            .select_from(meal.outerjoin(rec, rec.c.id == meal.c.recipe_id))
            .where(meal.c.date >= today, meal.c.date < today + dt.timedelta(days=PLAN_DAYS))
            .order_by(meal.c.date, meal.c.meal_type, meal.c.id)
            .limit(PLAN_DAYS * 4)
        )
    ).all()
    shopping = await session.scalar(select(func.count()).where(shop.c.is_purchased.is_(False)))
    open_tasks = await session.scalar(select(func.count()).where(task.c.completed.is_(False)))
    overdue = await session.scalar(
        select(func.count()).where(task.c.completed.is_(False), task.c.due_date < today)
    )
    next_tasks = (
        await session.execute(
            select(task.c.title, task.c.due_date)
            .where(task.c.completed.is_(False))
            .order_by(task.c.due_date.asc().nulls_last(), task.c.created_at, task.c.id)
            .limit(TASKS_SHOWN)
        )
    ).all()
    return KitchenDashboard(
        inventory_by_location={name: n for name, n in by_location},
        inventory_expiring_soon=expiring or 0,
        recipes_by_cuisine={name: n for name, n in by_cuisine},
        recipe_count=recipes or 0,
        meal_plan_next_7_days=[
            f"{day.isoformat()} {meal_type}: {name or NO_RECIPE}" for day, meal_type, name in slots
        ],
        shopping_open=shopping or 0,
        named={
            table: [str(r.get("name") or r.get("title")) for r in rows]
            for table, rows in named.items()
        },
        tasks_open=open_tasks or 0,
        tasks_overdue=overdue or 0,
        tasks_next=[
            title + (f" (due {due:%a} {due.isoformat()}, {days_from(due, today)})" if due else "")
            for title, due in next_tasks
        ],
    )


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


async def fresh_row(session: AsyncSession, table: str, row_id: str) -> dict | None:
    """The row as stored now (a recipe with its ingredients), or None."""
    return await repository.get_row(session, table, uuid.UUID(row_id))


def delete_candidates(named: Named) -> list[FreshEntity]:
    """The rows named in the request (``rows_named``) whose name occurs in more than one of
    ``NAMED_IN``: "the eggs" in the fridge and on the list."""
    found: dict[str, list[FreshEntity]] = {}
    for table, rows in named.items():
        for row in rows if table in NAMED_IN else ():
            entity = FreshEntity(table=table, id=str(row["id"]), action="read", data=row)
            found.setdefault(str(row.get("name") or "").lower(), []).append(entity)
    return [
        entity
        for entities in found.values()
        if len({e.table for e in entities}) > 1
        for entity in entities
    ]


async def turn_context(
    session: AsyncSession,
    *,
    today: dt.date,
    message: str,
    ui_changes: list[FreshEntity],
    now: dt.datetime | None = None,
) -> TurnContext:
    """Profile, dashboard, and fresh rows for the UI changes and the message's mentions.

    With ``now`` (the workflow's time), "today" is the user's local date in their timezone.

    ``ui_changes`` carry table, id and action; their data is re-read here (the client's
    copy may be stale). A change whose row is gone counts as deleted.
    """
    latest: dict[tuple[str, str], FreshEntity] = {}
    for change in ui_changes:  # the last change of a row wins; unknown tables are skipped
        if change.table not in TABLES or change.table not in BY_TABLE or not _is_uuid(change.id):
            continue
        latest.pop((change.table, change.id), None)
        latest[(change.table, change.id)] = change
    entities: list[FreshEntity] = []
    for change in list(latest.values())[-MAX_FRESH:]:
        data = None
        if change.action != "deleted:user":
            data = await fresh_row(session, change.table, change.id)
        action = change.action if data is not None else "deleted:user"
        entities.append(change.model_copy(update={"data": data, "action": action}))
    parsed = parse_mentions(message)
    unresolved = list(parsed.invalid)
    for mention in parsed.mentions:
        if (mention.table, mention.id) in latest:
            continue
        data = await fresh_row(session, mention.table, mention.id)
        if data is None:
            unresolved.append(f"@[{mention.label}]({mention.table}:{mention.id})")
            continue
        if len(entities) < MAX_FRESH:
            entities.append(
                FreshEntity(table=mention.table, id=mention.id, action="mentioned:user", data=data)
            )
    named = await rows_named(session, message) if message else {}
    candidates = delete_candidates(named) if unplaced_delete(message) else []
    profile = await repository.get_preferences(session)
    timezone = (profile or {}).get("timezone") or DEFAULT_TIMEZONE
    if now is not None:  # the user's local date, not UTC's, decides "today"
        today = local_date(now, timezone)
    return TurnContext(
        profile=profile,
        dashboard=await kitchen_dashboard(session, today, named=named),
        entities=entities,
        unresolved_mentions=unresolved,
        delete_candidates=candidates,
        timezone=timezone,
    )
