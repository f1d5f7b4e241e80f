"""What each of the turn's events carries (``TurnEvent.data``), one model per event type.

Clients read events as JSON (the progress query, ``/events`` over SSE, AG-UI): an event's
data serializes to the fields that were set, in this order, so a field an event leaves
out is absent rather than null. ``DATA_BY_TYPE`` says which model each type carries.
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    JsonValue,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from domain.entity_cards import EntityCard
from domain.nodes import Handoff, ThinkStep


class EventData(BaseModel):
    model_config = ConfigDict(extra="ignore")
    """A field a newer worker adds is left out, not refused: an older API still reads the
    progress query's events (the stream's JSON carries every field as sent)."""

    @model_serializer(mode="wrap")
    def _only_set(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped = handler(self)
        return {k: v for k, v in dumped.items() if k in self.model_fields_set}


class Thinking(EventData):
    message: str
    mode: str | None = None
    """A bypass turn's mode (cook, brainstorm)."""


class Queued(EventData):
    after_turn: int
    """The turn this one waits for (it saves first)."""


class TurnEnded(EventData):
    """``context_updated`` (the conversation is saved), ``expired`` and ``cancelled``."""

    turn: int


class ThinkComplete(EventData):
    goal: str | None = None
    step_count: int


class PlanMade(EventData):
    goal: str | None = None
    total_steps: int
    steps: list[ThinkStep]


class Proposed(EventData):
    goal: str | None = None
    proposal_message: str | None = None


class Clarifying(EventData):
    goal: str | None = None
    questions: list[str]


class StepStarted(EventData):
    step: int
    total: int
    description: str
    step_type: str
    group: int


class Working(EventData):
    step: int
    action: str


class StepCompleted(EventData):
    step: int
    total: int
    summary: str
    data: JsonValue = None
    """What the step produced (the model's JSON)."""
    tool_calls: int
    flags: list[str]


class AwaitingInput(EventData):
    pause_id: str
    kind: str
    message: str
    expires_at: str


class BreakerTripped(EventData):
    kind: str
    detail: str


class FellBack(EventData):
    where: str
    kind: str


class ActiveContext(EventData):
    data: list[EntityCard]
    """The entity cards in context (``domain.entity_cards``)."""


class Done(EventData):
    response: str
    active_context: list[EntityCard] | None = None
    """The entity cards in context (plan and quick turns)."""
    mode: str | None = None
    """A bypass turn's mode, whether it ends the session and the handoff it leaves."""
    exit: bool | None = None
    handoff: Handoff | None = None


class Failed(EventData):
    message: str | None = None
    kind: str


DATA_BY_TYPE: dict[str, type[EventData]] = {
    "thinking": Thinking,
    "queued": Queued,
    "context_updated": TurnEnded,
    "expired": TurnEnded,
    "cancelled": TurnEnded,
    "think_complete": ThinkComplete,
    "plan": PlanMade,
    "propose": Proposed,
    "clarify": Clarifying,
    "step": StepStarted,
    "working": Working,
    "step_complete": StepCompleted,
    "awaiting_input": AwaitingInput,
    "breaker": BreakerTripped,
    "fallback": FellBack,
    "active_context": ActiveContext,
    "done": Done,
    "error": Failed,
}


def event_data(type_: str, data: Any) -> Any:
    """``data`` as the model its event type carries; a model of another type is refused."""
    model = DATA_BY_TYPE.get(type_)
    if model is None:
        return data  # validation refuses the type itself
    if isinstance(data, EventData):
        if not isinstance(data, model):
            raise ValueError(
                f"a {type_!r} event carries {model.__name__}, not {type(data).__name__}"
            )
        return data
    return model.model_validate(data)
