"""The user's profile is one row: an update sets it, whether or not it exists yet."""

from __future__ import annotations

import pytest

from domain.crud.calls import DbCreate, DbRead, DbUpdate
from domain.errors import CrudValidationError
from tests.kitchen_helper import Kitchen, f


async def profile(kitchen: Kitchen) -> list[dict]:
    return (await kitchen.run(DbRead(table="preferences"))).rows


async def test_an_update_of_a_profile_not_saved_yet_saves_it(kitchen: Kitchen):
    """ "I'm vegetarian from now on" in a new kitchen: an update with no row to name."""
    done = await kitchen.run(
        DbUpdate(table="preferences", data={"dietary_restrictions": ["vegetarian"]})
    )
    assert done.tool == "db_update" and done.count == 1
    (row,) = await profile(kitchen)
    assert row["dietary_restrictions"] == ["vegetarian"]


async def test_an_update_sets_only_the_columns_it_names(kitchen: Kitchen):
    await kitchen.run(DbCreate(table="preferences", data={"allergies": ["peanut"]}))
    await kitchen.run(DbUpdate(table="preferences", data={"dietary_restrictions": ["vegetarian"]}))
    (row,) = await profile(kitchen)
    assert row["allergies"] == ["peanut"] and row["dietary_restrictions"] == ["vegetarian"]


async def test_the_profile_read_as_the_users_own_row_is_found(kitchen: Kitchen):
    """ "What am I allergic to?", read by the 1.5B local model with a filter on user_id:
    the only value it could give was an invented ref."""
    await kitchen.run(DbCreate(table="preferences", data={"allergies": ["peanut"]}))
    read = await kitchen.run(
        DbRead(table="preferences", filters=[f("user_id", "=", "gen_user_id")])
    )
    assert [r["allergies"] for r in read.rows] == [["peanut"]]


async def test_rows_named_by_filters_are_still_checked(kitchen: Kitchen):
    bad = DbUpdate(table="preferences", filters=[f("id", "=", "user_id")], data={"allergies": []})
    with pytest.raises(CrudValidationError, match="'user_id' is not a ref"):
        await kitchen.run(bad)
    assert await profile(kitchen) == []


async def test_other_tables_still_need_filters_to_change_rows(kitchen: Kitchen):
    await kitchen.run(DbCreate(table="tasks", data={"title": "shop"}))
    with pytest.raises(CrudValidationError, match="needs filters"):
        await kitchen.run(DbUpdate(table="tasks", data={"completed": True}))
