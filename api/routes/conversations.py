"""/v1/conversations: create, list, read; post a message (start a turn or answer a pause)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from api.deps import CurrentUser, ServicesDep
from api.messages import take_message
from api.schemas import (
    ConversationCreate,
    ConversationDetail,
    ConversationPublic,
    EntityPublic,
    MessageCreate,
    SafeText,
    TurnPublic,
    TurnSummary,
)
from api.streams import Item, server_closing, turn_items, with_heartbeats
from api.turn_view import view, wait_until_settled
from domain import turn_store
from domain.db.models import Conversation, Turn
from domain.entity_cards import entity_cards
from domain.registry import SessionIdRegistry

router = APIRouter(prefix="/v1/conversations", tags=["conversations"])
log = logging.getLogger(__name__)


def _public(conversation) -> ConversationPublic:
    return ConversationPublic(
        id=conversation.id,
        title=conversation.title,
        current_turn=conversation.current_turn,
        created_at=conversation.created_at,
        updated_at=conversation.updated_at,
    )


@router.post("", status_code=201, response_model=ConversationPublic)
async def create_conversation(
    body: ConversationCreate, user: CurrentUser, svc: ServicesDep
) -> ConversationPublic:
    conversation_id = await turn_store.create_conversation(svc.sessions, user, body.title)
    conversation, _ = await turn_store.conversation_with_turns(
        svc.sessions, str(user), uuid.UUID(conversation_id)
    )
    return _public(conversation)


@router.get("", response_model=list[ConversationPublic])
async def list_conversations(user: CurrentUser, svc: ServicesDep) -> list[ConversationPublic]:
    return [_public(c) for c in await turn_store.list_conversations(svc.sessions, str(user))]


@router.get("/{conversation_id}", response_model=ConversationDetail)
async def read_conversation(
    conversation_id: uuid.UUID, user: CurrentUser, svc: ServicesDep
) -> ConversationDetail:
    conversation, rows = await turn_store.conversation_with_turns(
        svc.sessions, str(user), conversation_id
    )
    registry = SessionIdRegistry.model_validate((conversation.state or {}).get("registry", {}))
    return ConversationDetail(
        **_public(conversation).model_dump(),
        turns=[
            TurnSummary(
                id=t.id,
                turn_number=t.turn_number,
                status=t.status,
                message=t.user_message,
                response=t.response,
            )
            for t in rows
        ],
        active_entities=[EntityPublic(**card.model_dump()) for card in entity_cards(registry)],
    )


async def owned_conversation(
    conversation_id: uuid.UUID, user: CurrentUser, svc: ServicesDep
) -> tuple[Conversation, list[Turn]]:
    """The caller's conversation and its turns, or 404: resolved before a stream starts."""
    return await turn_store.conversation_with_turns(svc.sessions, str(user), conversation_id)


@router.get("/{conversation_id}/events", response_class=EventSourceResponse)
async def stream_conversation(
    owned: Annotated[tuple[Conversation, list[Turn]], Depends(owned_conversation)],
    user: CurrentUser,
    svc: ServicesDep,
    last_event_id: Annotated[
        str | None, Header(alias="Last-Event-ID", pattern=r"^\d{1,9}:\d{1,12}$")
    ] = None,
    from_turn: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
) -> AsyncIterator[ServerSentEvent]:
    """Every turn's events, in order, as they happen, so a client need not learn each
    turn's id: the events of ``GET /v1/turns/{id}/events`` with ``turn`` and ``turn_id``
    added and ids ``<turn>:<n>``. Starts after ``Last-Event-ID``, or at ``from_turn``, or
    at the latest turn; after a turn's final event it waits for the next turn. Ends with
    ``server_closing`` when the server stops."""
    conversation, rows = owned
    number, after = from_turn or (rows[-1].turn_number if rows else 1), 0
    if last_event_id is not None:
        seen_turn, seen = (int(part) for part in last_event_id.split(":"))
        number, after = seen_turn, seen
    settings = svc.settings

    async def items() -> AsyncIterator[tuple[int, str, Item]]:
        turn_number, offset = number, after
        while True:
            turn = await turn_store.get_turn(
                svc.sessions, str(user), str(conversation.id), turn_number
            )
            if turn is None:
                await asyncio.sleep(settings.sse_poll_seconds)
                continue
            async for item in turn_items(
                svc.turns.client, svc.turns, turn.workflow_id, offset, settings.sse_poll_seconds
            ):
                yield turn_number, str(turn.id), item
            turn_number, offset = turn_number + 1, 0

    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(settings.sse_max_seconds):
            async for got in with_heartbeats(items(), until=svc.closing):
                if got is None:
                    yield ServerSentEvent(comment="keep-alive")
                    continue
                turn_number, turn_id, item = got
                yield ServerSentEvent(
                    id=f"{turn_number}:{item.offset}",
                    event=item.event,
                    data={**item.data, "turn": turn_number, "turn_id": turn_id},
                )
    if svc.closing.is_set():
        yield server_closing()


@router.post("/{conversation_id}/messages", status_code=202, response_model=TurnPublic)
async def post_message(
    conversation_id: uuid.UUID,
    body: MessageCreate,
    user: CurrentUser,
    svc: ServicesDep,
    response: Response,
    idempotency_key: Annotated[
        SafeText | None,
        Header(
            alias="Idempotency-Key",
            max_length=200,
            description="the message's id (as `input_id`): sent again, it finds its turn",
        ),
    ] = None,
    wait: bool = False,
) -> TurnPublic:
    """Start the conversation's next turn, or answer the pause its current turn is in.

    A message sent while the current turn is saving its state (it has replied) is taken:
    its turn is queued and runs once that state is saved. While the current turn is still
    working on its reply, the message is a 409 with ``Retry-After``. The same ``input_id``
    (or ``Idempotency-Key``) again finds the turn the first request started or answered.
    ``?wait=true`` returns 200 once the turn has replied, paused or ended (bounded by
    ``ALFRED_API_WAIT_SECONDS``).
    """
    if idempotency_key is not None and body.input_id is None:
        body = body.model_copy(update={"input_id": idempotency_key})
    turn, receipt = await take_message(svc, str(user), str(conversation_id), body)
    if wait:
        response.status_code = 200
        public = await wait_until_settled(svc, str(user), turn.id)
    else:
        public = await view(svc, await turn_store.turn_by_id(svc.sessions, str(user), turn.id))
    public.accepted_input = receipt
    return public
