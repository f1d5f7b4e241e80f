"""Conversations and turns in PostgreSQL: starting a turn, recording its status, saving the
conversation state it leaves behind (optimistic concurrency on ``conversations.version``).

Every function is idempotent under retries: a repeated start finds its turn row, a repeated
finish finds the version it already wrote.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.conversation import ConversationState
from domain.db.engine import user_transaction
from domain.db.models import Conversation, Turn
from domain.errors import DomainError


class ConversationNotFound(DomainError):
    code = "conversation_not_found"


class ConversationConflict(DomainError):
    """The conversation changed since the turn loaded it (another turn saved in between)."""

    code = "conversation_conflict"


Sessions = async_sessionmaker[AsyncSession]


async def create_conversation(sessions: Sessions, user_id: uuid.UUID | str, title: str = "") -> str:
    async with user_transaction(sessions, user_id) as session:
        new_id = await session.scalar(
            insert(Conversation)
            .values(user_id=uuid.UUID(str(user_id)), title=title)
            .returning(Conversation.id)
        )
    return str(new_id)


async def start_turn(
    sessions: Sessions,
    *,
    user_id: str,
    conversation_id: str,
    turn_number: int,
    workflow_id: str,
    message: str,
) -> tuple[ConversationState, int]:
    """Ensure the turn's row exists (status running) and load the conversation state."""
    async with user_transaction(sessions, user_id) as session:
        conversation = await session.get(Conversation, uuid.UUID(conversation_id))
        if conversation is None:
            raise ConversationNotFound(f"conversation {conversation_id} not found")
        await session.execute(
            pg_insert(Turn)
            .values(
                user_id=uuid.UUID(user_id),
                conversation_id=conversation.id,
                turn_number=turn_number,
                workflow_id=workflow_id,
                user_message=message,
            )
            .on_conflict_do_nothing(index_elements=["conversation_id", "turn_number"])
        )
        if conversation.current_turn < turn_number:
            conversation.current_turn = turn_number
        return ConversationState.model_validate(conversation.state or {}), conversation.version


async def set_turn_status(
    sessions: Sessions,
    *,
    user_id: str,
    conversation_id: str,
    turn_number: int,
    status: str,
    response: str | None = None,
    plan: dict[str, Any] | None = None,
    usage: dict[str, Any] | None = None,
) -> None:
    values: dict[str, Any] = {"status": status, "updated_at": func.now()}
    if response is not None:
        values["response"] = response
    if plan is not None:
        values["plan"] = plan
    if usage is not None:
        values["usage"] = usage
    async with user_transaction(sessions, user_id) as session:
        await session.execute(
            update(Turn)
            .where(
                Turn.conversation_id == uuid.UUID(conversation_id), Turn.turn_number == turn_number
            )
            .values(**values)
        )


async def finish_turn(
    sessions: Sessions,
    *,
    user_id: str,
    conversation_id: str,
    turn_number: int,
    expected_version: int,
    state: ConversationState,
    status: str,
    response: str | None,
    plan: dict[str, Any] | None,
    usage: dict[str, Any],
    timings: dict[str, Any],
) -> int:
    """Save the conversation state and the turn's final record together; the new version."""
    async with user_transaction(sessions, user_id) as session:
        conv_id = uuid.UUID(conversation_id)
        turn = await session.scalar(
            select(Turn).where(Turn.conversation_id == conv_id, Turn.turn_number == turn_number)
        )
        if turn is not None and turn.timings.get("saved_version") == expected_version + 1:
            return expected_version + 1  # a retry after this save committed
        saved = await session.execute(
            update(Conversation)
            .where(Conversation.id == conv_id, Conversation.version == expected_version)
            .values(
                state=state.model_dump(mode="json"),
                version=Conversation.version + 1,
                updated_at=func.now(),
            )
        )
        if saved.rowcount != 1:
            raise ConversationConflict(
                f"conversation {conversation_id} changed since turn {turn_number} loaded it"
            )
        await session.execute(
            update(Turn)
            .where(Turn.conversation_id == conv_id, Turn.turn_number == turn_number)
            .values(
                status=status,
                response=response,
                plan=plan,
                usage=usage,
                timings={**timings, "saved_version": expected_version + 1},
                updated_at=func.now(),
            )
        )
    return expected_version + 1


async def load_conversation(
    sessions: Sessions, user_id: str, conversation_id: str
) -> tuple[ConversationState, int]:
    async with user_transaction(sessions, user_id) as session:
        conversation = await session.get(Conversation, uuid.UUID(conversation_id))
        if conversation is None:
            raise ConversationNotFound(f"conversation {conversation_id} not found")
        return ConversationState.model_validate(conversation.state or {}), conversation.version


async def get_turn(
    sessions: Sessions, user_id: str, conversation_id: str, turn_number: int
) -> Turn | None:
    async with user_transaction(sessions, user_id) as session:
        return await session.scalar(
            select(Turn).where(
                Turn.conversation_id == uuid.UUID(conversation_id), Turn.turn_number == turn_number
            )
        )
