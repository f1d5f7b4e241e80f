"""A write's idempotency key is recorded with its result: a repeat writes nothing."""

from __future__ import annotations

import asyncio

from domain.crud.calls import DbCreate, DbDelete, DbRead, DbUpdate
from domain.registry import SessionIdRegistry
from tests.kitchen_helper import Kitchen, f


async def test_repeated_create_returns_the_recorded_result(kitchen: Kitchen):
    request = DbCreate(table="tasks", data={"title": "defrost chicken"})
    first = await kitchen.run(request, idempotency_key="turn-1/step-0/call-0")
    second = await kitchen.run(request, idempotency_key="turn-1/step-0/call-0")
    assert not first.replayed and second.replayed
    assert second.rows == first.rows
    assert await kitchen.names("tasks") == ["defrost chicken"]


async def test_a_retry_with_the_original_registry_gets_the_same_refs(kitchen: Kitchen):
    before = kitchen.registry.clone()
    request = DbCreate(table="tasks", data=[{"title": "a"}, {"title": "b"}])
    first = await kitchen.run(request, idempotency_key="k1")
    # An activity retry starts again from the registry it was given.
    retry = before.clone()
    second = await kitchen.executor.execute(
        request, user_id=kitchen.user, registry=retry, idempotency_key="k1"
    )
    assert [r["id"] for r in second.rows] == [r["id"] for r in first.rows] == ["task_1", "task_2"]
    assert retry == kitchen.registry


async def test_concurrent_attempts_with_one_key_write_once(kitchen: Kitchen):
    request = DbCreate(table="shopping_list", data={"name": "lemons"})
    results = await asyncio.gather(
        *(
            kitchen.executor.execute(
                request, user_id=kitchen.user, registry=SessionIdRegistry(), idempotency_key="k"
            )
            for _ in range(4)
        )
    )
    assert sorted(r.replayed for r in results) == [False, True, True, True]
    assert await kitchen.names("shopping_list") == ["lemons"]


async def test_repeated_update_and_delete_are_not_applied_twice(pantry: Kitchen):
    rice = [f("name", "=", "rice")]
    update = DbUpdate(table="inventory", filters=rice, data={"quantity": 3})
    await pantry.run(update, idempotency_key="u")
    await pantry.run(
        DbUpdate(table="inventory", filters=rice, data={"quantity": 5}), idempotency_key="u2"
    )
    replay = await pantry.run(update, idempotency_key="u")
    assert replay.replayed
    rows = (await pantry.run(DbRead(table="inventory", filters=rice))).rows
    assert rows[0]["quantity"] == 5

    delete = DbDelete(table="inventory", filters=rice)
    assert (await pantry.run(delete, idempotency_key="d")).count == 1
    again = await pantry.run(delete, idempotency_key="d")
    assert again.replayed and again.count == 1


async def test_keys_are_scoped_to_their_user(kitchen: Kitchen, executor, other_user):
    request = DbCreate(table="tasks", data={"title": "mine"})
    await kitchen.run(request, idempotency_key="shared")
    theirs = await executor.execute(
        DbCreate(table="tasks", data={"title": "theirs"}),
        user_id=other_user,
        registry=SessionIdRegistry(),
        idempotency_key="shared",
    )
    assert not theirs.replayed and theirs.rows[0]["title"] == "theirs"
