"""What a message does: start the conversation's next turn, or answer its open pause.

Shared by the message route and the AG-UI endpoint, so every client's message takes the
same path: the reservation under the conversation's row lock, the kitchen edits since the
last turn as UI changes, the workflow started (or the Update that answers), and a turn
whose workflow is gone ended rather than waited on.
"""

from __future__ import annotations

import logging
import uuid

from temporalio.service import RPCError

from api.abandoned import free_if_abandoned
from api.deps import Services
from api.problems import ApiError
from api.schemas import MessageCreate
from api.temporal import AnswerRefused
from domain import turn_store
from domain.db.models import Turn
from workflows.interface import InputReceipt, TurnInput, TurnLimits, UiChange, UserInput

log = logging.getLogger(__name__)


async def take_message(
    svc: Services, user_id: str, conversation_id: str, body: MessageCreate
) -> tuple[Turn, InputReceipt | None]:
    """The turn the message started (or found, or answered), and the answer's receipt."""
    reservation, receipt = await _reserve(svc, user_id, conversation_id, body)
    turn = reservation.turn
    if reservation.kind != "start":
        return turn, receipt
    changes = [
        UiChange(action=c.action, table=c.table_name, id=str(c.row_id), data=c.data)
        for c in reservation.changes
    ] + [
        UiChange(action=c.action, table=c.table, id=str(c.id), data=c.data) for c in body.ui_changes
    ]
    settings = svc.settings
    turn_input = TurnInput(
        conversation_id=conversation_id,
        user_id=user_id,
        turn_number=turn.turn_number,
        message=body.text,
        mode=body.mode,
        ui_changes=changes,
        limits=TurnLimits(
            max_llm_calls=settings.max_llm_calls_per_turn,
            pause_timeout_seconds=settings.pause_timeout_hours * 3600,
            max_pauses=settings.max_pauses_per_turn,
            llm_timeout_seconds=settings.llm_timeout_seconds,
        ),
    )
    try:
        run_id = await svc.turns.start(turn.workflow_id, turn_input, turn.status)
    except RPCError as error:
        # Leave the conversation usable: the reserved turn never started.
        await turn_store.set_turn_status(
            svc.sessions,
            user_id=user_id,
            conversation_id=conversation_id,
            turn_number=turn.turn_number,
            status="failed",
            response="The turn could not be started; please send the message again.",
        )
        log.warning("could not start %s: %s", turn.workflow_id, error)
        raise ApiError(
            503, "temporal_unavailable", "could not start the turn; send the message again"
        ) from None
    await turn_store.set_run_id(svc.sessions, user_id, turn.id, run_id)
    return turn, None


async def _reserve(
    svc: Services, user_id: str, conversation_id: str, body: MessageCreate
) -> tuple[turn_store.Reservation, InputReceipt | None]:
    """The turn this message starts, or the paused turn it answered, with the receipt."""
    reservation = await _claim(svc, user_id, conversation_id, body)
    if reservation.kind in ("start", "existing"):
        return reservation, None
    answer = UserInput(input_id=body.input_id or uuid.uuid4().hex, action="answer", text=body.text)
    try:
        receipt = await svc.turns.answer(reservation.turn.workflow_id, answer)
    except AnswerRefused as refused:
        if not await free_if_abandoned(svc, user_id, reservation.turn):
            raise ApiError(409, refused.code, str(refused)) from None
    else:
        await turn_store.record_input(svc.sessions, user_id, reservation.turn, answer.input_id)
        return reservation, receipt
    # The paused turn's workflow was gone: it is ended, and this message starts the next.
    reservation = await _claim(svc, user_id, conversation_id, body)
    if reservation.kind != "start":
        raise ApiError(409, "turn_in_progress", "another message answered the turn first")
    return reservation, None


async def _claim(
    svc: Services, user_id: str, conversation_id: str, body: MessageCreate
) -> turn_store.Reservation:
    """Reserve the next turn; a busy turn whose workflow is gone is ended first
    (``api.abandoned``), not waited on for ever."""
    try:
        return await turn_store.reserve_turn(
            svc.sessions, user_id, conversation_id, body.text, input_id=body.input_id
        )
    except turn_store.TurnInProgress as busy:
        if busy.turn is None or not await free_if_abandoned(svc, user_id, busy.turn):
            raise
    return await turn_store.reserve_turn(
        svc.sessions, user_id, conversation_id, body.text, input_id=body.input_id
    )
