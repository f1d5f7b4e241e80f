"""A conversation with a saved state, as turns leave one (for activities that read it)."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain import turn_store
from domain.conversation import ConversationState


async def save(
    sessions: async_sessionmaker[AsyncSession],
    user: uuid.UUID,
    state: ConversationState,
    turns: int = 1,
    conversation: str | None = None,
) -> tuple[str, int]:
    """A conversation (new, or ``conversation``, without turns yet) whose turns
    1..``turns`` each saved ``state``: its id and version."""
    if conversation is None:
        conversation = await turn_store.create_conversation(sessions, user)
    version = 0
    for n in range(1, turns + 1):
        await turn_store.start_turn(
            sessions,
            user_id=str(user),
            conversation_id=conversation,
            turn_number=n,
            workflow_id=f"wf-{conversation}-{n}",
            message="hi",
        )
        version = await turn_store.finish_turn(
            sessions,
            user_id=str(user),
            conversation_id=conversation,
            turn_number=n,
            expected_version=version,
            state=state,
            status="completed",
            response="ok",
            plan=None,
            usage={},
            timings={},
        )
    return conversation, version
