"""Tenant isolation is enforced by PostgreSQL itself, not only by the executor."""

from __future__ import annotations

import psycopg
import pytest
from sqlalchemy import text

from domain.crud.calls import DbCreate, DbDelete, DbRead, DbUpdate
from domain.db.models import USER_TABLES
from domain.db.urls import APP_ROLE, libpq_dsn
from domain.errors import CrudValidationError
from domain.registry import SessionIdRegistry
from domain.users import create_user, user_for_token
from tests.kitchen_helper import Kitchen, f, key


@pytest.fixture
async def theirs(executor, other_user) -> Kitchen:
    other = Kitchen(executor, other_user, SessionIdRegistry())
    await other.create("inventory", {"name": "saffron", "quantity": 1})
    await other.create("recipes", {"name": "Secret Paella"})
    return other


async def uuids_of(owner_url: str, table: str, name: str, owner) -> list[str]:
    # The owner (superuser) sees through RLS: the test learns the victim's UUIDs this way.
    query = f"SELECT id FROM {table} WHERE name = %s AND user_id = %s"
    with psycopg.connect(libpq_dsn(owner_url)) as c:
        return [str(r[0]) for r in c.execute(query, (name, owner))]


def test_app_role_owns_nothing_and_cannot_bypass_rls(owner_url):
    with psycopg.connect(libpq_dsn(owner_url)) as c:
        role = c.execute(
            "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = %s", (APP_ROLE,)
        ).fetchone()
        owned = c.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tableowner = %s",
            (APP_ROLE,),
        ).fetchone()
    assert role == (False, False)
    assert owned == (0,)


def test_every_user_table_has_forced_row_level_security(owner_url):
    with psycopg.connect(libpq_dsn(owner_url)) as c:
        rows = c.execute(
            "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class "
            "WHERE relname = ANY(%s) AND relkind = 'r'",
            (list(USER_TABLES),),
        ).fetchall()
    assert sorted(r[0] for r in rows) == sorted(USER_TABLES)
    assert all(r[1] and r[2] for r in rows), rows


async def test_without_a_user_set_queries_see_no_user_rows(sessions, theirs):
    async with sessions() as session:
        for table in USER_TABLES:
            count = await session.scalar(text(f"SELECT count(*) FROM {table}"))
            assert count == 0, table
        catalog = await session.scalar(text("SELECT count(*) FROM ingredients"))
    assert catalog > 300


async def test_user_cannot_read_another_users_rows_even_by_uuid(kitchen, theirs, owner_url):
    [victim] = await uuids_of(owner_url, "inventory", "saffron", theirs.user)
    assert await kitchen.names("inventory") == []
    result = await kitchen.run(DbRead(table="inventory", filters=[f("id", "=", victim)]))
    assert result.rows == []


async def test_user_cannot_update_or_delete_another_users_rows(kitchen, theirs, owner_url):
    [victim] = await uuids_of(owner_url, "inventory", "saffron", theirs.user)
    updated = await kitchen.run(
        DbUpdate(table="inventory", filters=[f("id", "=", victim)], data={"quantity": 99})
    )
    deleted = await kitchen.run(DbDelete(table="inventory", filters=[f("id", "=", victim)]))
    assert updated.count == 0 and deleted.count == 0
    rows = (await theirs.run(DbRead(table="inventory"))).rows
    assert [(r["name"], r["quantity"]) for r in rows] == [("saffron", 1)]


async def test_rows_cannot_point_at_another_users_recipe(kitchen, theirs, owner_url):
    [victim] = await uuids_of(owner_url, "recipes", "Secret Paella", theirs.user)
    with pytest.raises(CrudValidationError, match="refused the write"):
        await kitchen.run(
            DbCreate(
                table="meal_plans",
                data={"date": "2026-11-23", "meal_type": "dinner", "recipe_id": victim},
            ),
            idempotency_key=key(),
        )


async def test_a_token_finds_its_own_user_and_nothing_else(sessions):
    alice, alice_token = await create_user(sessions, "alice")
    bob, _ = await create_user(sessions, "bob")
    assert await user_for_token(sessions, alice_token) == alice
    assert await user_for_token(sessions, "not-a-token") is None
    async with sessions() as session, session.begin():
        await session.execute(text("SELECT set_config('app.token_hash', 'x', true)"))
        assert await session.scalar(text("SELECT count(*) FROM api_keys")) == 0
    assert bob != alice
