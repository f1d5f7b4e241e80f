"""A filtered read that finds nothing says how many rows the filters left out, so that
"none match" is not read as "there are none" (the 1.5B local model read the shopping list
filtered on created_at = now, found nothing, and told the user the list was empty)."""

from __future__ import annotations

from domain.crud.calls import DbRead
from domain.registry import SessionIdRegistry
from tests.kitchen_helper import Kitchen, f


async def test_a_filtered_read_that_finds_nothing_counts_the_rows_it_left_out(kitchen: Kitchen):
    await kitchen.create("shopping_list", [{"name": "milk"}, {"name": "olive oil"}])
    read = await kitchen.run(
        DbRead(table="shopping_list", filters=[f("created_at", "=", "2026-11-26T16:51:00")])
    )
    assert read.rows == []
    assert read.notes == ["no row matches the filters; shopping_list holds 2 row(s) in all"]


async def test_only_the_users_own_rows_are_counted(kitchen: Kitchen, executor, other_user):
    await Kitchen(executor, other_user, SessionIdRegistry()).create("tasks", {"title": "theirs"})
    read = await kitchen.run(DbRead(table="tasks", filters=[f("title", "=", "mine")]))
    assert read.notes == ["tasks is empty"]


async def test_a_read_that_finds_rows_or_has_no_filters_adds_no_note(kitchen: Kitchen):
    await kitchen.create("tasks", {"title": "defrost"})
    assert (await kitchen.run(DbRead(table="tasks"))).notes == []
    assert (await kitchen.run(DbRead(table="recipes"))).notes == []
    found = await kitchen.run(DbRead(table="tasks", filters=[f("title", "=", "defrost")]))
    assert len(found.rows) == 1 and found.notes == []
