"""/v1/agui: a conversation driven by an AG-UI client (the Agent User Interaction protocol,
``ag-ui-protocol``).

A run is one message: ``RunAgentInput.thread_id`` is the conversation, its last user
message is what the user says (``run_id`` is the message's id: a run sent again finds
its turn), and a run with ``resume`` answers the interrupt (pause) it names, its payload
``{"action": "confirm" | "reject" | "answer", "text": ...}``. The turn's events, from
its workflow stream, are told as AG-UI events: ``RUN_STARTED``; ``STATE_SNAPSHOT`` with
the plan and the entities in context; ``STEP_STARTED`` / ``STEP_FINISHED`` per step; the reply as
``TEXT_MESSAGE_START`` / ``CONTENT`` / ``END`` as it is written (a retried reply is a new
message); ``RUN_FINISHED`` with an ``interrupt`` outcome at a pause (proposal,
clarification, question), ``success`` when the turn's state is saved, ``cancelled``;
``RUN_ERROR`` when the turn fails.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Annotated, Any

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from fastapi import APIRouter, Depends
from fastapi.sse import EventSourceResponse, ServerSentEvent
from temporalio.contrib.workflow_streams import WorkflowStreamClient

from api.deps import CurrentUser, ServicesDep
from api.messages import take_message
from api.problems import ApiError
from api.schemas import MessageCreate
from api.streams import CLOSING_MESSAGE, SERVER_CLOSING, Item, turn_items, with_heartbeats
from domain import turn_store
from domain.db.models import Turn
from workflows.interface import UserInput

router = APIRouter(prefix="/v1/agui", tags=["ag-ui"])


@dataclass
class Run:
    """The turn an AG-UI run follows, and where in its stream the run begins."""

    input: RunAgentInput
    turn: Turn
    after: int = 0


async def start_run(body: RunAgentInput, user: CurrentUser, svc: ServicesDep) -> Run:
    """Take the run's message or answer before the event stream starts (errors are 4xx)."""
    try:
        conversation_id = str(uuid.UUID(body.thread_id))
    except ValueError:
        raise ApiError(404, "not_found", "threadId names no conversation") from None
    _, rows = await turn_store.conversation_with_turns(
        svc.sessions, str(user), uuid.UUID(conversation_id)
    )
    if body.resume:
        return await _resume(svc, body, rows)
    said = [m for m in body.messages if m.role == "user"]
    text = _text(said[-1].content) if said else ""
    if not text.strip():
        raise ApiError(422, "invalid_request", "the run has no user message to send")
    message = MessageCreate(text=text, input_id=body.run_id)
    turn, _ = await take_message(svc, str(user), conversation_id, message)
    return Run(body, turn)


async def _resume(svc: ServicesDep, body: RunAgentInput, rows: list[Turn]) -> Run:
    entry = body.resume[0]  # type: ignore[index]  # one pause is open at a time
    paused = next((t for t in reversed(rows) if t.status == "awaiting_input"), None)
    if paused is None:
        raise ApiError(409, "not_awaiting_input", "no question or proposal is waiting")
    payload: dict[str, Any] = entry.payload if isinstance(entry.payload, dict) else {}
    action = "reject" if entry.status == "cancelled" else payload.get("action", "answer")
    if action not in ("confirm", "reject", "answer"):
        raise ApiError(422, "invalid_request", "resume payload action: confirm, reject or answer")
    stream = WorkflowStreamClient.create(svc.turns.client, paused.workflow_id)
    after = await stream.get_offset()
    answer = UserInput(
        input_id=body.run_id,
        action=action,
        text=payload.get("text"),
        pause_id=entry.interrupt_id,
    )
    await svc.turns.answer(paused.workflow_id, answer)  # refusals: a 409 with the reason
    return Run(body, paused, after)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = content or []
    return " ".join(getattr(p, "text", "") for p in parts if getattr(p, "text", None))


@router.post("", response_class=EventSourceResponse)
async def run_agent(
    run: Annotated[Run, Depends(start_run)], svc: ServicesDep
) -> AsyncIterator[ServerSentEvent]:
    """Run an AG-UI agent: the turn's events as AG-UI events over server-sent events.
    When the server stops, the run ends with ``RUN_ERROR`` code ``server_closing``: send
    the same run (same ``runId``) again in a few seconds to follow its turn again."""
    told = Telling(run.input.thread_id, run.input.run_id, str(run.turn.id))
    yield _sse(RunStartedEvent(thread_id=told.thread, run_id=told.run))
    items = turn_items(
        svc.turns.client, svc.turns, run.turn.workflow_id, run.after, svc.settings.sse_poll_seconds
    )
    async for item in with_heartbeats(items, until=svc.closing):
        if item is None:
            yield ServerSentEvent(comment="keep-alive")
            continue
        for event in told.events(item):
            yield _sse(event)
        if told.finished:
            return
    if svc.closing.is_set():
        yield _sse(RunErrorEvent(message=CLOSING_MESSAGE, code=SERVER_CLOSING))


def _sse(event: BaseEvent) -> ServerSentEvent:
    return ServerSentEvent(raw_data=event.model_dump_json(by_alias=True, exclude_none=True))


@dataclass
class Telling:
    """Turn events told as AG-UI events (one run)."""

    thread: str
    run: str
    turn_id: str
    message: str | None = None
    """The open text message's id (the reply being written)."""
    steps: dict[int, str] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    """The run's shared state: the plan (goal, steps) and the entities in context."""
    finished: bool = False

    def events(self, item: Item) -> list[BaseEvent]:
        data, kind = item.data, item.event
        if kind == "token":  # a generate step's forming content has no text to tell
            return self._token(data) if data.get("kind") != "generate" else []
        if kind == "plan":
            self.state.update(goal=data.get("goal"), steps=data.get("steps"))
            return [StateSnapshotEvent(snapshot=dict(self.state))]
        if kind == "active_context":
            self.state["active_context"] = data.get("data")
            return [StateSnapshotEvent(snapshot=dict(self.state))]
        if kind == "step":
            self.steps[data["step"]] = data["description"]
            return [StepStartedEvent(step_name=data["description"])]
        if kind == "step_complete":
            return [StepFinishedEvent(step_name=self.steps.get(data.get("step", -1), "step"))]
        if kind == "done":
            return self._done(data.get("response") or "")
        return self._ending(kind, data)

    def _token(self, data: dict[str, Any]) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        if data.get("reset"):
            out += self._close()
            self.message = f"{self.turn_id}-{data['take']}"
            out.append(TextMessageStartEvent(message_id=self.message, role="assistant"))
        if data.get("text") and self.message is not None:
            out.append(TextMessageContentEvent(message_id=self.message, delta=data["text"]))
        return out

    def _done(self, response: str) -> list[BaseEvent]:
        if self.message is not None:
            return self._close()
        if not response:
            return []
        message = f"{self.turn_id}-reply"
        return [
            TextMessageStartEvent(message_id=message, role="assistant"),
            TextMessageContentEvent(message_id=message, delta=response),
            TextMessageEndEvent(message_id=message),
        ]

    def _close(self) -> list[BaseEvent]:
        if self.message is None:
            return []
        closing, self.message = self.message, None
        return [TextMessageEndEvent(message_id=closing)]

    def _ending(self, kind: str, data: dict[str, Any]) -> list[BaseEvent]:
        done = {"thread_id": self.thread, "run_id": self.run}
        if kind == "awaiting_input":
            self.finished = True
            interrupt = Interrupt(
                id=data["pause_id"],
                reason=data["kind"],
                message=data.get("message"),
                expires_at=data.get("expires_at"),
            )
            outcome = RunFinishedInterruptOutcome(type="interrupt", interrupts=[interrupt])
            return [*self._close(), RunFinishedEvent(**done, outcome=outcome)]
        if kind == "context_updated":
            self.finished = True
            success = RunFinishedSuccessOutcome(type="success")
            return [*self._close(), RunFinishedEvent(**done, outcome=success)]
        if kind in ("cancelled", "expired"):
            self.finished = True
            cancelled = RunFinishedCancelledOutcome(type="cancelled")
            return [*self._close(), RunFinishedEvent(**done, outcome=cancelled)]
        if kind == "error":
            self.finished = True
            return [*self._close(), RunErrorEvent(message=data.get("message") or "the turn failed")]
        return []
