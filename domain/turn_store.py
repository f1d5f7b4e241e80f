"""Conversations and turns in PostgreSQL: starting a turn, recording its status, saving the
conversation state it leaves behind (optimistic concurrency on ``conversations.version``).

Every function is idempotent under retries: a repeated start finds its turn row, a repeated
finish finds the version it already wrote.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import all_, any_, func, insert, literal, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.conversation import ConversationState, TurnEnding, end_turn
from domain.db.engine import user_transaction
from domain.db.models import Conversation, KitchenChange, Turn
from domain.errors import DomainError
from domain.plan_record import PlanRecord


class ConversationNotFound(DomainError):
    code = "conversation_not_found"


class TurnNotFound(DomainError):
    code = "turn_not_found"


class TurnInProgress(DomainError):
    """A message arrived while the conversation's current turn is still running."""

    code = "turn_in_progress"

    def __init__(self, message: str, turn: Turn | None = None) -> None:
        super().__init__(message)
        self.turn = turn


class ConversationConflict(DomainError):
    """The conversation changed since the turn loaded it (another turn saved in between)."""

    code = "conversation_conflict"


class StateMoved(DomainError):
    """The conversation was saved past the version a turn read (its turn is over)."""

    code = "state_moved"


Sessions = async_sessionmaker[AsyncSession]
BUSY = ("running", "replied", "queued")
"""A turn in these states still owns the conversation (a ``replied`` one only until the
message after it is queued)."""
TERMINAL = ("completed", "failed", "expired", "cancelled")
QUEUED = "queued"
"""A turn whose message came while the previous turn was saving its state (``replied``):
its workflow waits for that save, then runs on the saved state."""


def turn_workflow_id(conversation_id: str, turn_number: int) -> str:
    """Deterministic: one workflow per conversation turn, never started twice."""
    return f"turn-{conversation_id}-{turn_number}"


_TURN_ID = re.compile(r"^turn-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-(\d+)")


def turn_of_workflow(workflow_id: str) -> tuple[str, int] | None:
    """The conversation id and turn number a turn's workflow id names (None: not a turn's)."""
    found = _TURN_ID.match(workflow_id)
    return (found.group(1), int(found.group(2))) if found else None


@dataclass
class Reservation:
    """What a new message does: start turn ``turn``, answer its open pause, or nothing
    (``existing``: the message was sent before, with the same input id)."""

    kind: Literal["start", "answer", "existing"]
    turn: Turn
    changes: list[KitchenChange] = field(default_factory=list)


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
        await session.execute(  # a queued turn runs now: its predecessor has saved
            update(Turn)
            .where(
                Turn.conversation_id == conversation.id,
                Turn.turn_number == turn_number,
                Turn.status == QUEUED,
            )
            .values(status="running", updated_at=func.now())
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
    plan: PlanRecord | None = None,
    usage: dict[str, Any] | None = None,
) -> None:
    values: dict[str, Any] = {"status": status, "updated_at": func.now()}
    if response is not None:
        values["response"] = response
    if plan is not None:
        values["plan"] = plan.model_dump(mode="json")
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
    state: ConversationState | TurnEnding,
    status: str,
    response: str | None,
    plan: PlanRecord | None,
    usage: dict[str, Any],
    timings: dict[str, Any],
) -> int:
    """Save the conversation state and the turn's final record together; the new version.
    ``state`` is the new state, or what the turn leaves (``TurnEnding``), applied here to
    the state saved as ``expected_version``."""
    async with user_transaction(sessions, user_id) as session:
        conv_id = uuid.UUID(conversation_id)
        turn = await session.scalar(
            select(Turn).where(Turn.conversation_id == conv_id, Turn.turn_number == turn_number)
        )
        if turn is not None and turn.timings.get("saved_version") == expected_version + 1:
            return expected_version + 1  # a retry after this save committed
        if isinstance(state, TurnEnding):
            stored = await session.scalar(
                select(Conversation.state).where(
                    Conversation.id == conv_id, Conversation.version == expected_version
                )
            )
            if stored is None:
                raise ConversationConflict(
                    f"conversation {conversation_id} changed since turn {turn_number} loaded it"
                )
            state = end_turn(ConversationState.model_validate(stored), state)
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
                plan=plan.model_dump(mode="json") if plan is not None else None,
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


async def load_state_at(
    sessions: Sessions, user_id: str, conversation_id: str, version: int
) -> ConversationState:
    """The conversation state saved as ``version``: what a turn that loaded that version
    starts from. Only ``finish_turn`` moves a conversation to the next version, so what an
    activity reads here is what the turn's workflow loaded."""
    async with user_transaction(sessions, user_id) as session:
        row = (
            await session.execute(
                select(Conversation.state, Conversation.version).where(
                    Conversation.id == uuid.UUID(conversation_id)
                )
            )
        ).one_or_none()
    if row is None:
        raise ConversationNotFound(f"conversation {conversation_id} not found")
    if row.version != version:
        raise StateMoved(
            f"conversation {conversation_id} is at version {row.version}, not {version}"
        )
    return ConversationState.model_validate(row.state or {})


async def get_turn(
    sessions: Sessions, user_id: str, conversation_id: str, turn_number: int
) -> Turn | None:
    async with user_transaction(sessions, user_id) as session:
        return await session.scalar(
            select(Turn).where(
                Turn.conversation_id == uuid.UUID(conversation_id), Turn.turn_number == turn_number
            )
        )


async def reserve_turn(
    sessions: Sessions,
    user_id: str,
    conversation_id: str,
    message: str,
    *,
    input_id: str | None = None,
) -> Reservation:
    """Claim the conversation's next turn, or find the paused turn the message answers.

    The conversation row is locked for the check, so two messages cannot both start
    turn N. A message while the current turn is ``replied`` (its reply shown, its state
    still being saved) starts the next turn ``queued``: that turn's workflow waits for the
    save. A message with an ``input_id`` a turn of this conversation already took finds
    that turn (``existing``). Kitchen edits made through the API since the last turn began
    come back as the new turn's UI changes.
    """
    conv_id = uuid.UUID(conversation_id)
    async with user_transaction(sessions, user_id) as session:
        conversation = await session.scalar(
            select(Conversation).where(Conversation.id == conv_id).with_for_update()
        )
        if conversation is None:
            raise ConversationNotFound(f"conversation {conversation_id} not found")
        if input_id is not None:
            earlier = await session.scalar(
                select(Turn).where(
                    Turn.conversation_id == conv_id, literal(input_id) == any_(Turn.input_ids)
                )
            )
            if earlier is not None:
                return Reservation("existing", earlier)
        latest = await session.scalar(
            select(Turn)
            .where(Turn.conversation_id == conv_id)
            .order_by(Turn.turn_number.desc())
            .limit(1)
        )
        if latest is not None and latest.status == "awaiting_input":
            return Reservation("answer", latest)
        if latest is not None and latest.status in BUSY and latest.status != "replied":
            session.expunge(latest)  # keep its loaded fields through the rollback
            raise TurnInProgress(
                f"turn {latest.turn_number} of this conversation is still working on the "
                "previous message; send this one once it has replied",
                latest,
            )
        since = latest.created_at if latest is not None else conversation.created_at
        changes = list(
            (
                await session.scalars(
                    select(KitchenChange)
                    .where(KitchenChange.created_at > since)
                    .order_by(KitchenChange.id)
                )
            ).all()
        )
        number = max(conversation.current_turn, latest.turn_number if latest else 0) + 1
        turn = Turn(
            user_id=uuid.UUID(user_id),
            conversation_id=conv_id,
            turn_number=number,
            workflow_id=turn_workflow_id(conversation_id, number),
            user_message=message,
            status=QUEUED if latest is not None and latest.status == "replied" else "running",
            input_ids=[input_id] if input_id is not None else [],
        )
        session.add(turn)
        conversation.current_turn = number
        conversation.updated_at = dt.datetime.now(dt.UTC)
        if not conversation.title:
            conversation.title = message[:80]
        await session.flush()
        await session.refresh(turn)
        return Reservation("start", turn, changes)


async def record_input(sessions: Sessions, user_id: str, turn: Turn, input_id: str) -> None:
    """Note that ``turn`` took the answer ``input_id`` (the same answer sent again after the
    turn has ended finds the turn, not a new one)."""
    async with user_transaction(sessions, user_id) as session:
        await session.execute(
            update(Turn)
            .where(Turn.id == turn.id, literal(input_id) != all_(Turn.input_ids))
            .values(input_ids=func.array_append(Turn.input_ids, input_id))
        )


async def previous_turn(
    sessions: Sessions, user_id: str, conversation_id: str, turn_number: int
) -> Turn | None:
    """The turn before ``turn_number`` (None for the first)."""
    if turn_number <= 1:
        return None
    return await get_turn(sessions, user_id, conversation_id, turn_number - 1)


async def end_abandoned_turn(
    sessions: Sessions, user_id: str, turn: Turn, *, status: str, reason: str
) -> bool:
    """End a busy turn whose workflow is gone (never started, terminated, timed out), so
    it frees its conversation. The turn row gets ``status`` and a response saying what
    happened; the conversation state a note, as the workflow leaves for a turn it ends, so
    the next turn knows. False when the turn had ended meanwhile."""
    async with user_transaction(sessions, user_id) as session:
        conversation = await session.scalar(
            select(Conversation).where(Conversation.id == turn.conversation_id).with_for_update()
        )
        row = await session.get(Turn, turn.id, with_for_update=True)
        if conversation is None or row is None or row.status in TERMINAL:
            return False
        state = ConversationState.model_validate(conversation.state or {})
        state.notes.append(f"Turn {row.turn_number} ended without finishing: {reason}.")
        conversation.state = state.model_dump(mode="json")
        conversation.version += 1
        conversation.updated_at = dt.datetime.now(dt.UTC)
        row.status = status
        row.response = f"This turn ended without finishing: {reason}. Please send it again."
        row.updated_at = dt.datetime.now(dt.UTC)
    return True


async def set_run_id(sessions: Sessions, user_id: str, turn_id: uuid.UUID, run_id: str) -> None:
    async with user_transaction(sessions, user_id) as session:
        await session.execute(update(Turn).where(Turn.id == turn_id).values(run_id=run_id))


async def turn_by_workflow_id(sessions: Sessions, user_id: str, workflow_id: str) -> Turn | None:
    async with user_transaction(sessions, user_id) as session:
        return await session.scalar(select(Turn).where(Turn.workflow_id == workflow_id))


async def turn_by_id(sessions: Sessions, user_id: str, turn_id: uuid.UUID) -> Turn:
    async with user_transaction(sessions, user_id) as session:
        turn = await session.get(Turn, turn_id)
    if turn is None:
        raise TurnNotFound(f"turn {turn_id} not found")
    return turn


async def list_conversations(sessions: Sessions, user_id: str) -> list[Conversation]:
    async with user_transaction(sessions, user_id) as session:
        query = select(Conversation).order_by(Conversation.updated_at.desc())
        return list((await session.scalars(query)).all())


async def conversation_with_turns(
    sessions: Sessions, user_id: str, conversation_id: uuid.UUID
) -> tuple[Conversation, list[Turn]]:
    async with user_transaction(sessions, user_id) as session:
        conversation = await session.get(Conversation, conversation_id)
        if conversation is None:
            raise ConversationNotFound(f"conversation {conversation_id} not found")
        turns = list(
            (
                await session.scalars(
                    select(Turn)
                    .where(Turn.conversation_id == conversation_id)
                    .order_by(Turn.turn_number)
                )
            ).all()
        )
        return conversation, turns


async def turn_usage(sessions: Sessions, user_id: str) -> list[tuple[uuid.UUID, dict[str, Any]]]:
    """(conversation id, usage) of each of the user's turns, oldest first."""
    async with user_transaction(sessions, user_id) as session:
        rows = await session.execute(
            select(Turn.conversation_id, Turn.usage).order_by(Turn.created_at, Turn.turn_number)
        )
        return [(row.conversation_id, row.usage or {}) for row in rows]


async def record_kitchen_change(
    session: AsyncSession,
    *,
    table: str,
    row_id: uuid.UUID,
    action: str,
    data: dict[str, Any] | None,
) -> None:
    """Note an API edit in the caller's transaction (the next turn will see it)."""
    await session.execute(
        insert(KitchenChange).values(table_name=table, row_id=row_id, action=action, data=data)
    )
