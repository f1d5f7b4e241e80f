"""Async engines and the user-scoped transaction every kitchen query runs in."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import text
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from domain.db.urls import sync_url

SET_USER = text("SELECT set_config('app.user_id', :user_id, true)")


def create_engine(url: str, *, pool_size: int = 5) -> AsyncEngine:
    """An async engine on psycopg 3. Pass the application URL for anything user-facing."""
    # A server that stops answering (rather than refusing) must not hold a request until
    # the TCP timeout: connecting gives up after 5 s, and the API answers 503.
    return create_async_engine(
        sync_url(url),
        pool_size=pool_size,
        pool_pre_ping=True,
        connect_args={"connect_timeout": 5},
    )


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


@asynccontextmanager
async def user_transaction(
    sessions: async_sessionmaker[AsyncSession], user_id: uuid.UUID | str
) -> AsyncIterator[AsyncSession]:
    """One transaction in which row-level security sees exactly ``user_id``'s rows.

    The setting is transaction-local (``SET LOCAL``), so a pooled connection never carries
    one user's identity into another user's transaction. It commits on success and rolls
    back on any error: the caller (the request or activity boundary) owns the transaction.
    """
    user = str(uuid.UUID(str(user_id)))  # rejects anything that is not a UUID
    async with sessions() as session, session.begin():
        await session.execute(SET_USER, {"user_id": user})
        yield session
