"""What crosses the turn workflow's boundary: its input and output, the input signal, and
the progress query (status, pending pause, plan, typed events). Plain pydantic models, so
the API can import them without importing workflow code; new fields get defaults."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, Field, JsonValue, SerializeAsAny, model_validator

from activities.llm.provider import Usage
from domain.ledger import LedgerLine
from domain.nodes import DisambiguationOption, ThinkStep
from domain.plan_record import StepProgress
from workflows.events import EventData, event_data

TurnStatus = Literal[
    "queued", "running", "awaiting_input", "replied", "completed", "failed", "expired", "cancelled"
]
TERMINAL: tuple[str, ...] = ("completed", "failed", "expired", "cancelled")
EventType = Literal[
    "thinking",
    "plan",
    "propose",
    "clarify",
    "step",
    "working",
    "step_complete",
    "awaiting_input",
    "done",
    "context_updated",
    "error",
    "expired",
    "cancelled",
    "fallback",
    "queued",
    "think_complete",
    "active_context",
    "breaker",
]


class UiChange(BaseModel):
    """A kitchen edit the user made in a UI since the last turn (seed 000 pre-processing)."""

    action: Literal["created", "updated", "deleted"]
    table: str
    id: str
    data: dict[str, JsonValue] | None = None


class TurnLimits(BaseModel):
    """Per-turn limits, filled from settings by whoever starts the turn."""

    max_llm_calls: int = 40
    pause_timeout_seconds: float = 24 * 3600
    max_pauses: int = 3
    llm_timeout_seconds: float = 60.0
    """The provider's timeout for one model request (``ALFRED_LLM_TIMEOUT_SECONDS``): the
    model activities' timeouts follow it (``workflows.policies.llm``)."""


class TurnInput(BaseModel):
    conversation_id: str
    user_id: str
    turn_number: int
    message: str
    mode: Literal["quick", "plan", "create", "cook", "brainstorm"] | None = None
    ui_changes: list[UiChange] = Field(default_factory=list)
    limits: TurnLimits = Field(default_factory=TurnLimits)


class UserInput(BaseModel):
    """The user's answer to an open pause: the ``answer`` update."""

    input_id: str
    """Chosen by the client, unique per submission: a repeated id is answered as the first."""
    action: Literal["confirm", "reject", "answer"]
    text: str | None = None
    pause_id: str | None = None
    """The pause this answers (``PendingPause.pause_id``); an answer to another one, or to
    one already answered, is rejected. None: whichever pause is open."""


class InputReceipt(BaseModel):
    """The ``answer`` update's result: the answer counted, for this pause."""

    input_id: str
    pause_id: str
    action: Literal["confirm", "reject", "answer"]


class TurnEvent(BaseModel):
    seq: int
    type: EventType
    attempt: int = 1
    """The attempt of the activity whose result produced the event (1 for workflow-made ones)."""
    data: SerializeAsAny[EventData]
    """What the event carries: the model of its type (``workflows.events``)."""

    @model_validator(mode="before")
    @classmethod
    def _typed_data(cls, value: Any) -> Any:
        if isinstance(value, dict) and "data" in value:
            return {**value, "data": event_data(str(value.get("type")), value["data"])}
        return value


class Question(BaseModel):
    """What a pause asks (``question``: Act's ``ask_user``), and which node asks it."""

    kind: Literal["proposal", "clarification", "question"]
    source: Literal["understand", "think", "act"]
    message: str
    """The words the user is shown."""
    questions: list[str] = Field(default_factory=list)
    options: list[DisambiguationOption] = Field(default_factory=list)
    """A choice between these entities (Understand's disambiguation); empty otherwise."""
    plan: list[ThinkStep] | None = None
    """A proposal's steps: confirming runs them."""
    step_index: int | None = None


class PendingPause(Question):
    """The question the turn waits on (``TurnProgress.pending``)."""

    pause_id: str
    expires_at: dt.datetime


class TurnProgress(BaseModel):
    status: TurnStatus = "running"
    turn_number: int = 0
    response: str | None = None
    pending: PendingPause | None = None
    goal: str | None = None
    plan: list[ThinkStep] | None = None
    steps: list[StepProgress] = Field(default_factory=list)
    events: list[TurnEvent] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    ledger: list[LedgerLine] = Field(default_factory=list)
    """The same usage by node and model (priced by the API: ``domain.ledger``)."""
    llm_calls: int = 0
    breakers: list[str] = Field(default_factory=list)
    fallbacks: list[str] = Field(default_factory=list)
    """Model calls that failed for good and what the turn did instead
    (``act step 2: invalid_output``); repairs are counted in ``usage.repairs``."""
    error: str | None = None


class ProgressQuery(BaseModel):
    after_seq: int = 0
    """Only events with a larger sequence number (clients resume from what they have)."""


class TurnOutput(BaseModel):
    status: TurnStatus
    response: str | None = None
    usage: Usage = Field(default_factory=Usage)
    llm_calls: int = 0
    breakers: list[str] = Field(default_factory=list)
    fallbacks: list[str] = Field(default_factory=list)
