"""/v1/turns/{id}: read a turn, answer its pause, cancel it, stream its events (SSE)."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Header
from fastapi.sse import EventSourceResponse, ServerSentEvent

from api.deps import CurrentUser, ServicesDep
from api.problems import ApiError
from api.schemas import InputCreate, TurnPublic
from api.streams import server_closing, turn_items, with_heartbeats
from api.turn_view import view
from domain.db.models import Turn
from domain.turn_store import TERMINAL, turn_by_id
from workflows.interface import UserInput

router = APIRouter(prefix="/v1/turns", tags=["turns"])


async def owned_turn(turn_id: uuid.UUID, user: CurrentUser, svc: ServicesDep) -> Turn:
    """The caller's turn, or 404 — resolved before any response (a stream) starts."""
    return await turn_by_id(svc.sessions, str(user), turn_id)


OwnedTurn = Annotated[Turn, Depends(owned_turn)]


@router.get("/{turn_id}", response_model=TurnPublic)
async def read_turn(turn: OwnedTurn, svc: ServicesDep) -> TurnPublic:
    return await view(svc, turn)


@router.post("/{turn_id}/input", status_code=202, response_model=TurnPublic)
async def submit_input(body: InputCreate, turn: OwnedTurn, svc: ServicesDep) -> TurnPublic:
    """Confirm or reject a proposal, or answer a question. The turn checks the answer
    before taking it: 409 with the reason when no pause is open, ``pause_id`` names
    another pause, or the pause was already answered. The same ``input_id`` again gets
    the first answer's receipt (``accepted_input``)."""
    answer = UserInput(
        input_id=body.input_id or uuid.uuid4().hex,
        action=body.action,
        text=body.text,
        pause_id=body.pause_id,
    )
    receipt = await svc.turns.answer(turn.workflow_id, answer)  # refusals: api.problems
    public = await view(svc, turn)
    public.accepted_input = receipt
    return public


@router.post("/{turn_id}/cancel", status_code=202, response_model=TurnPublic)
async def cancel_turn(turn: OwnedTurn, svc: ServicesDep) -> TurnPublic:
    if turn.status in TERMINAL:
        raise ApiError(409, "turn_finished", f"the turn is already {turn.status}")
    await svc.turns.cancel(turn.workflow_id)
    return await view(svc, turn)


@router.get("/{turn_id}/events", response_class=EventSourceResponse)
async def stream_events(
    turn: OwnedTurn,
    svc: ServicesDep,
    last_event_id: Annotated[int | None, Header(alias="Last-Event-ID")] = None,
    stop_at_pause: bool = False,
) -> AsyncIterator[ServerSentEvent]:
    """The turn's events in order, from its workflow stream, after ``Last-Event-ID``:
    seed 000's events (``thinking``, ``plan``, ``propose``, ``clarify``, ``step``,
    ``working``, ``step_complete``, ``done``, ``context_updated``) and the turn's own
    (``awaiting_input``, ``queued``, ``fallback``, ``error``, ``expired``,
    ``cancelled``), with the reply's text as it is written (``token``: ``{kind, take,
    text, reset?}``; a ``reset`` starts a new take: show the newest take's text only).
    Ends after the final event (``context_updated``, ``error``, ``expired`` or
    ``cancelled``), or, with ``?stop_at_pause=true``, also after ``awaiting_input``. An
    idle stream gets a comment line every 15 s. When the server stops, the stream ends
    with ``server_closing`` (``{message, retry_after}``): reconnect with ``Last-Event-ID``."""
    settings = svc.settings
    items = turn_items(
        svc.turns.client, svc.turns, turn.workflow_id, last_event_id or 0, settings.sse_poll_seconds
    )
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(settings.sse_max_seconds):
            async for item in with_heartbeats(items, until=svc.closing):
                if item is None:
                    yield ServerSentEvent(comment="keep-alive")
                    continue
                yield ServerSentEvent(id=str(item.offset), event=item.event, data=item.data)
                if item.final or (stop_at_pause and item.event == "awaiting_input"):
                    return
    if svc.closing.is_set():
        yield server_closing()
