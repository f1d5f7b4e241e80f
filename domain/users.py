"""Users and their API keys. Tokens are stored only as SHA-256 hashes."""

from __future__ import annotations

import hashlib
import secrets
import uuid

from sqlalchemy import insert, select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.db.engine import user_transaction
from domain.db.models import ApiKey, User

SET_TOKEN = text("SELECT set_config('app.token_hash', :token_hash, true)")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def create_user(
    sessions: async_sessionmaker[AsyncSession], name: str
) -> tuple[uuid.UUID, str]:
    """A new user with one API key; returns (user id, bearer token). The token is not stored."""
    user_id = uuid.uuid4()
    token = secrets.token_urlsafe(32)
    async with user_transaction(sessions, user_id) as session:
        await session.execute(insert(User).values(id=user_id, name=name))
        await session.execute(insert(ApiKey).values(user_id=user_id, token_hash=hash_token(token)))
    return user_id, token


async def user_for_token(
    sessions: async_sessionmaker[AsyncSession], token: str
) -> uuid.UUID | None:
    """The user a bearer token belongs to. Row-level security shows only the matching key."""
    token_hash = hash_token(token)
    async with sessions() as session, session.begin():
        await session.execute(SET_TOKEN, {"token_hash": token_hash})
        return await session.scalar(select(ApiKey.user_id).where(ApiKey.token_hash == token_hash))
