"""Anything outside the whitelist is a clear validation error naming the bad part."""

from __future__ import annotations

import pytest

from domain.crud.calls import DbCreate, DbDelete, DbRead, DbUpdate
from domain.crud.executor import SCOPED
from domain.errors import CrudValidationError, MissingIdempotencyKey
from domain.kitchen.tables import TABLES
from domain.registry import SessionIdRegistry
from tests.kitchen_helper import Kitchen, f


async def refused(kitchen: Kitchen, request, match: str) -> None:
    with pytest.raises(CrudValidationError, match=match):
        await kitchen.run(request)


async def test_unknown_table_is_named(kitchen: Kitchen):
    await refused(kitchen, DbRead(table="users"), "unknown table 'users'")
    await refused(kitchen, DbRead(table="pg_authid"), "unknown table 'pg_authid'")


async def test_unknown_column_is_named_with_its_position(kitchen: Kitchen):
    await refused(
        kitchen,
        DbRead(table="inventory", filters=[f("name", "=", "x"), f("colour", "=", "red")]),
        r"filters\[1\]\.field: unknown column 'colour' in table 'inventory'",
    )
    await refused(kitchen, DbRead(table="inventory", order_by="price"), "order_by")


async def test_a_read_of_columns_the_table_lacks_leaves_them_out_and_says_so(kitchen: Kitchen):
    """A projection changes which fields come back, never which rows: the read is served
    without the names that are no column (or the hidden owner), with a note naming
    them and the table's columns; "*" reads them all."""
    await kitchen.create("inventory", {"name": "salt", "location": "pantry"})
    read = await kitchen.run(DbRead(table="inventory", columns=["name", "colour", "user_id"]))
    assert [sorted(row) for row in read.rows] == [["id", "name"]]
    note = "columns 'colour', 'user_id' are not columns of inventory and were left out; "
    assert read.notes == [note + "its columns: " + ", ".join(TABLES["inventory"].readable)]
    everything = await kitchen.run(DbRead(table="inventory", columns=["*"]))
    assert everything.rows[0]["location"] == "pantry" and everything.notes == []


async def test_a_recipe_read_may_ask_for_its_ingredients_by_either_name(kitchen: Kitchen):
    await kitchen.create(
        "recipes", {"name": "Dal", "recipe_ingredients": [{"name": "red lentils"}]}
    )
    for key in ("ingredients", "recipe_ingredients"):
        read = await kitchen.run(DbRead(table="recipes", columns=["name", key]))
        assert [i["name"] for i in read.rows[0]["recipe_ingredients"]] == ["red lentils"]
        assert read.notes == []


async def test_user_id_is_never_accepted_from_the_model(kitchen: Kitchen, other_user, executor):
    theirs = Kitchen(executor, other_user, SessionIdRegistry())
    await theirs.create("inventory", {"name": "caviar"})
    await kitchen.create("inventory", {"name": "salt"})

    # a read's filter on the owner only ever means "mine": it is dropped, and said so
    read = await kitchen.run(
        DbRead(table="inventory", filters=[f("user_id", "=", str(other_user))])
    )
    assert [r["name"] for r in read.rows] == ["salt"] and SCOPED in read.notes
    await refused(
        kitchen,
        DbRead(table="inventory", or_filters=[f("user_id", "=", str(other_user))]),
        "unknown column 'user_id'",
    )
    await refused(
        kitchen,
        DbDelete(table="inventory", filters=[f("user_id", "=", str(other_user))]),
        "unknown column 'user_id'",
    )
    await refused(
        kitchen,
        DbCreate(table="inventory", data={"name": "salt", "user_id": str(other_user)}),
        "user_id",
    )


async def test_unknown_operator_is_named(kitchen: Kitchen):
    await refused(
        kitchen,
        DbRead(table="inventory", or_filters=[f("name", "like", "x")]),
        r"or_filters\[0\]\.op: unknown operator 'like'",
    )


async def test_operator_must_fit_the_column(kitchen: Kitchen):
    await refused(
        kitchen,
        DbRead(table="inventory", filters=[f("quantity", "ilike", "2")]),
        "applies to text columns",
    )
    await refused(
        kitchen, DbRead(table="inventory", filters=[f("location", "in", "fridge")]), "needs a list"
    )
    await refused(kitchen, DbRead(table="inventory", filters=[f("name", "=")]), "needs a value")


async def test_values_must_fit_the_column_type(kitchen: Kitchen):
    await refused(
        kitchen,
        DbRead(table="inventory", filters=[f("quantity", ">", "lots")]),
        r"'lots' is not a valid number for column 'quantity'",
    )
    await refused(
        kitchen,
        DbCreate(table="inventory", data={"name": "x", "expiry_date": "soon"}),
        r"data\[0\]\.expiry_date",
    )
    await refused(
        kitchen,
        DbRead(table="meal_plans", filters=[f("date", ">=", "{this monday}")]),
        r"'\{this monday\}' is not a valid date for column 'date' \(a date is written YYYY-MM-DD\)",
    )
    await refused(
        kitchen,
        DbCreate(table="meal_plans", data={"date": "2026-11-23", "meal_type": "brunch"}),
        "'brunch' is not allowed for 'meal_type'",
    )


async def test_missing_required_columns_are_named(kitchen: Kitchen):
    await refused(
        kitchen,
        DbCreate(table="meal_plans", data={"meal_type": "dinner"}),
        "missing required column.*date",
    )


async def test_system_columns_are_not_writable(kitchen: Kitchen):
    await refused(
        kitchen,
        DbCreate(table="tasks", data={"title": "x", "created_at": "2020-01-01"}),
        "set by the system",
    )
    await refused(
        kitchen,
        DbCreate(table="tasks", data={"title": "x", "id": "task_1"}),
        "ids are assigned by the database",
    )


async def test_catalog_is_read_only(kitchen: Kitchen):
    await refused(kitchen, DbCreate(table="ingredients", data={"name": "unobtainium"}), "read only")


async def test_update_and_delete_without_filters_are_refused(pantry: Kitchen):
    await refused(pantry, DbUpdate(table="inventory", data={"quantity": 0}), "needs filters")
    await refused(pantry, DbDelete(table="inventory"), "needs filters")
    assert len(await pantry.names("inventory")) == 4


async def test_writes_need_an_idempotency_key(kitchen: Kitchen):
    with pytest.raises(MissingIdempotencyKey):
        await kitchen.executor.execute(
            DbCreate(table="tasks", data={"title": "x"}),
            user_id=kitchen.user,
            registry=kitchen.registry,
        )


async def test_unknown_ref_is_an_error_not_a_pass_through(kitchen: Kitchen):
    await refused(
        kitchen,
        DbRead(table="recipes", filters=[f("id", "=", "recipe_9")]),
        r"filters\[0\]\.value: unknown ref 'recipe_9'; no row of this conversation has it: "
        r"use a ref a read or the entities show, or filter by its name instead, in the "
        r"user's words$",
    )
    await refused(  # a link to another table's row is no name of this one
        kitchen,
        DbRead(table="meal_plans", filters=[f("recipe_id", "=", "recipe_9")]),
        r"filters\[0\]\.value: unknown ref 'recipe_9'; no row of this conversation has it: "
        r"use a ref a read or the entities show$",
    )
    await refused(
        kitchen,
        DbCreate(
            table="meal_plans",
            data={"date": "2026-11-23", "meal_type": "dinner", "recipe_id": "recipe_4"},
        ),
        r"data\[0\]\.recipe_id: unknown ref 'recipe_4'; no row of this conversation has it: "
        r"use a ref a read or the entities show, or leave it out",
    )


async def test_a_made_up_ref_is_told_what_the_column_takes(kitchen: Kitchen):
    """The 1.5B local model filtered a meal plan's recipe by "gen_red_lentil_dal": told it
    was "not a valid uuid" (a word it never sees), it sent the same call again."""
    message = (
        r"filters\[0\]\.value: 'gen_red_lentil_dal' is not a ref: this column takes the ref "
        r"of a row of recipes, such as recipe_1, as a read or the entities show it"
    )
    await refused(
        kitchen,
        DbRead(table="meal_plans", filters=[f("recipe_id", "=", "gen_red_lentil_dal")]),
        message,
    )
    await refused(
        kitchen,
        DbCreate(
            table="meal_plans",
            data={"date": "2026-11-23", "meal_type": "dinner", "recipe_id": "dal"},
        ),
        r"data\[0\]\.recipe_id: 'dal' is not a ref",
    )
    await refused(  # its own id: the 0.5B local model updated recipe "1" for "the chili"
        kitchen,
        DbUpdate(table="recipes", filters=[f("id", "=", "1")], data={"servings": 8}),
        r"filters\[0\]\.value: '1' is not a ref: this column takes the ref of a row of "
        r"recipes, such as recipe_1, as a read or the entities show it; read that row "
        r"first, or filter by its name instead$",
    )
    unset = DbRead(table="meal_plans", filters=[f("recipe_id", "is_null")])
    read = await kitchen.executor.execute(unset, user_id=kitchen.user, registry=kitchen.registry)
    assert read.count == 0  # no value: nothing to be a ref


async def test_a_refused_batch_writes_nothing(kitchen: Kitchen):
    await refused(
        kitchen,
        DbCreate(table="tasks", data=[{"title": "ok"}, {"title": "x", "category": "fun"}]),
        r"data\[1\]\.category",
    )
    assert await kitchen.names("tasks") == []


async def test_text_with_a_nul_character_is_refused_before_the_database(kitchen: Kitchen):
    await refused(
        kitchen,
        DbCreate(table="shopping_list", data={"name": "milk\x00"}),
        r"data\[0\]\.name: text cannot contain a NUL character",
    )


async def test_every_column_and_the_ingredients_read_together(kitchen: Kitchen):
    await kitchen.create(
        "recipes", [{"name": "Dal", "recipe_ingredients": [{"name": "red lentils"}]}]
    )
    read = await kitchen.run(DbRead(table="recipes", columns=["*", "ingredients"]))
    (dal,) = read.rows
    assert dal["name"] == "Dal" and "cuisine" in dal
    assert [i["name"] for i in dal["recipe_ingredients"]] == ["red lentils"]
