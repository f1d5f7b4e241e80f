"""Test helpers: one user's kitchen driven through the real CRUD executor."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from domain.crud.calls import DbCreate, DbRead, Filter
from domain.crud.executor import CrudExecutor
from domain.registry import SessionIdRegistry

PANTRY = [
    {
        "name": "milk",
        "quantity": 2,
        "unit": "l",
        "location": "fridge",
        "expiry_date": "2026-11-25",
        "category": "dairy",
    },
    {
        "name": "eggs",
        "quantity": 12,
        "unit": "piece",
        "location": "fridge",
        "expiry_date": "2026-12-01",
        "notes": "free range",
    },
    {"name": "rice", "quantity": 1, "unit": "kg", "location": "pantry"},
    {
        "name": "frozen peas",
        "quantity": 0.5,
        "unit": "kg",
        "location": "freezer",
        "expiry_date": "2027-03-01",
    },
]


def key() -> str:
    return uuid.uuid4().hex


@dataclass
class Kitchen:
    """One user's kitchen as a test sees it: the executor, the user, the user's registry."""

    executor: CrudExecutor
    user: uuid.UUID
    registry: SessionIdRegistry

    async def run(self, request, **kwargs):
        if request.tool != "db_read":
            kwargs.setdefault("idempotency_key", key())
        return await self.executor.execute(
            request, user_id=self.user, registry=self.registry, **kwargs
        )

    async def create(self, table: str, data):
        return await self.run(DbCreate(table=table, data=data))

    async def names(self, table: str, *, filters=(), or_filters=(), **kwargs) -> list[str]:
        result = await self.run(
            DbRead(table=table, filters=list(filters), or_filters=list(or_filters), **kwargs)
        )
        return sorted(row.get("name") or row.get("title") for row in result.rows)


def f(field: str, op: str, value=None) -> Filter:
    return Filter(field=field, op=op, value=value)
