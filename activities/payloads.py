"""One model in, one model out, for every activity of a turn. New fields get defaults."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field, JsonValue

from activities.llm.provider import Usage
from domain.batch import BatchManifest
from domain.clock import Clock
from domain.conversation import (
    BypassSession,
    ConversationState,
    PendingContext,
    StepExit,
    StepResult,
    SummaryParts,
    TurnEnding,
    TurnExecutionSummary,
    TurnRecord,
)
from domain.crud.calls import CrudResult
from domain.execution_summary import PlannedStep
from domain.ledger import LedgerLine, Price
from domain.nodes import (
    ActDecision,
    ActQuickDecision,
    BypassOutput,
    ReplyOutput,
    ThinkOutput,
    ThinkStep,
    ToolCall,
    UnderstandOutput,
)
from domain.plan_record import PlanRecord
from domain.registry import RegistryDelta
from domain.tool_results import ToolEntry
from domain.turn_context import FreshEntity, TurnContext


class NodeCall(BaseModel):
    """What every LLM activity reports besides its output: cost and provenance."""

    usage: Usage = Field(default_factory=Usage)
    model: str = ""
    price: Price | None = None
    """What ``usage`` was charged at when the call was made (None: no price for ``model``)."""
    template: str = ""
    version: str = ""
    attempt: int = 1
    llm_attempts: int = 1
    """2 when the output needed the repair attempt."""
    context_tokens: int = 0
    """Estimated tokens of the user message the node was shown."""
    context_dropped: list[str] = Field(default_factory=list)
    """Context sections left out to fit the node's token budget, in the order dropped."""
    context_cut: str | None = None
    """The context section shown only in part (its first words) to fit the budget."""


class FailedCallCost(Usage):
    """What a model call that failed for good cost, the first detail of its
    ApplicationError (``activities.failures``): its tokens, the model that answered and
    the price they were charged at."""

    model: str = ""
    price: Price | None = None


# --- turn state (database) -------------------------------------------------------------------


class PreviousTurnRequest(BaseModel):
    conversation_id: str
    user_id: str
    turn_number: int


class PreviousTurnResult(BaseModel):
    settled: bool
    """The turn before has saved its state (or never will: its workflow is gone, and its
    row is ended): this turn may load the conversation."""
    previous_status: str = ""
    attempt: int = 1


class BeginTurnRequest(BaseModel):
    conversation_id: str
    user_id: str
    turn_number: int
    workflow_id: str
    message: str


class BeginTurnResult(BaseModel):
    state: ConversationState
    """The turn's working copy (``ConversationState.for_workflow``): model activities and
    ``finish_turn`` read the rest from the saved state themselves."""
    version: int
    attempt: int = 1


class MarkTurnRequest(BaseModel):
    conversation_id: str
    user_id: str
    turn_number: int
    status: str
    response: str | None = None
    plan: PlanRecord | None = None
    usage: Usage | None = None
    ledger: list[LedgerLine] = Field(default_factory=list)
    """The usage by node and model, kept with it (``usage.by_node``)."""


class MarkTurnResult(BaseModel):
    attempt: int = 1


class StateRef(BaseModel):
    """The conversation state a model activity reads, by reference: the version the turn
    loaded (the activity reads it from PostgreSQL, ``activities.saved_state``) and what the
    turn has changed since. It stays the size of the turn's own work."""

    user_id: str
    conversation_id: str
    version: int
    registry: RegistryDelta = Field(default_factory=RegistryDelta)
    """The registry's changes since ``version`` (refs registered, touched, promoted)."""
    archived: list[str] = Field(default_factory=list)
    """Content archive keys the turn added (prompts show the archive's keys only)."""
    unarchived: list[str] = Field(default_factory=list)
    """Content archive keys the turn dropped."""


class FinishTurnRequest(BaseModel):
    conversation_id: str
    user_id: str
    turn_number: int
    expected_version: int
    ending: TurnEnding
    """What the turn leaves, applied to the saved state (``domain.conversation.end_turn``)."""
    status: str
    response: str | None = None
    plan: PlanRecord | None = None
    usage: Usage = Field(default_factory=Usage)
    ledger: list[LedgerLine] = Field(default_factory=list)
    """The usage by node and model, kept with it (``usage.by_node``)."""
    timings: dict[str, str] = Field(default_factory=dict)
    """When the turn reached each moment (``replied``...), ISO 8601."""


class FinishTurnResult(BaseModel):
    version: int
    attempt: int = 1


# --- LLM nodes ---------------------------------------------------------------------------------


class UnderstandRequest(BaseModel):
    clock: Clock | None = None
    """The turn's time and the user's timezone (every node is told the date)."""
    message: str
    mode: str
    state_ref: StateRef
    """The conversation state, by reference."""
    pending: PendingContext | None = None
    context: TurnContext = Field(default_factory=TurnContext)


class UnderstandResult(NodeCall):
    output: UnderstandOutput
    known: RegistryDelta | None = None
    """The saved entries of the refs the output names, for a working copy that may not
    hold them (curation keeps a ref from long ago); None when it names none."""


class ThinkRequest(BaseModel):
    clock: Clock | None = None
    """The turn's time and the user's timezone (every node is told the date)."""
    message: str
    mode: str
    understand: UnderstandOutput
    state_ref: StateRef
    """The conversation state, by reference."""
    pending: PendingContext | None = None
    context: TurnContext = Field(default_factory=TurnContext)


class ThinkResult(NodeCall):
    output: ThinkOutput


class ActRequest(BaseModel):
    message: str = ""
    """The user's words this turn: a dictated recipe is saved from them, not from Think's
    retelling."""
    constraints: list[str] = Field(default_factory=list)
    """Constraints the user stated this turn (Understand's ``constraint_snapshot``)."""
    batch: BatchManifest | None = None
    """The generated items this write step saves, with each one's status."""
    clock: Clock | None = None
    """The turn's time and the user's timezone (every node is told the date)."""
    goal: str
    plan: list[ThinkStep]
    step_index: int
    mode: str
    prior_results: list[StepResult] = Field(default_factory=list)
    tool_results: list[ToolEntry] = Field(default_factory=list)
    state_ref: StateRef
    """The conversation state, by reference."""
    context: TurnContext = Field(default_factory=TurnContext)


class ActResult(NodeCall):
    output: ActDecision
    known: RegistryDelta | None = None
    """The saved entries of the refs a ``step_complete`` names, for a working copy that
    may not hold them (a ref from long ago is no unknown ref)."""
    archived: JsonValue = None
    """The saved content a ``retrieve_archive`` asks for (a working copy holds the saved
    archive's keys only)."""


class ActQuickRequest(BaseModel):
    clock: Clock | None = None
    """The turn's time and the user's timezone (every node is told the date)."""
    message: str
    intent: str
    subdomain: str
    state_ref: StateRef
    """The conversation state (its registry), by reference."""
    previous: ToolEntry | None = None
    """The read this node asked for last time and the error it got (one retry)."""


class ActQuickResult(NodeCall):
    output: ActQuickDecision


class ReplyRequest(BaseModel):
    clock: Clock | None = None
    """The turn's time and the user's timezone (every node is told the date)."""
    message: str
    mode: str
    goal: str | None = None
    plan: list[PlannedStep] = Field(default_factory=list)
    """Think's steps and how far each got (planned against completed, skipped)."""
    step_results: list[StepResult] = Field(default_factory=list)
    quick_result: ToolEntry | None = None
    blocked: StepExit | None = None
    """The step that stopped the turn's work (blocked or a breaker), if one did."""
    breakers: list[str] = Field(default_factory=list)
    state_ref: StateRef
    """The conversation state, by reference."""
    written: list[str] = Field(default_factory=list)
    """The turn's record of its writes (``TurnState.written``), a blocked step's included."""


class ReplyResult(NodeCall):
    output: ReplyOutput


class SummarizeRequest(BaseModel):
    state_ref: StateRef
    """The conversation state, by reference, with the turn's changes."""
    record: TurnRecord
    summary: TurnExecutionSummary
    step_results: list[StepResult] = Field(default_factory=list)
    use_llm: bool = True
    """False: deterministic summaries only (rejected, capped or failed turns)."""


class SummarizeResult(BaseModel):
    parts: SummaryParts
    """What Summarize decided; the workflow records the turn with it (``end_turn``)."""
    usage: Usage = Field(default_factory=Usage)
    model: str = ""
    """The model that answered, when Summarize asked one."""
    llm_calls: int = 0
    calls: list[NodeCall] = Field(default_factory=list)
    """Each model call it made (summarize, compress), with its model and price."""
    attempt: int = 1


# --- CRUD ----------------------------------------------------------------------------------------


class CrudCallRequest(BaseModel):
    user_id: str
    call: ToolCall
    state_ref: StateRef
    """The saved registry the call resolves and registers refs in (an old row keeps its
    ref), the turn's changes on top."""
    idempotency_key: str
    step: int | None = None
    """The step that made the call (the history's reader sees whose call it is)."""


class CrudCallResult(BaseModel):
    """A CRUD call's rows, or the validation error the model should correct."""

    result: CrudResult | None = None
    error: str | None = None
    registry_delta: RegistryDelta = Field(default_factory=RegistryDelta)
    """What the call changed in the registry (nothing on an error): the entries of the
    refs it touched whole, so a working copy that lacked them has them now."""
    attempt: int = 1


class SchemaRequest(BaseModel):
    subdomain: str


class SchemaResult(BaseModel):
    subdomain: str
    schema_text: str
    attempt: int = 1


# --- the user's kitchen, before Understand ----------------------------------------------------


class PrepareTurnRequest(BaseModel):
    user_id: str
    message: str
    today: dt.date
    """The workflow's date, so the dashboard's "next 7 days" agree with workflow time."""
    now: dt.datetime | None = None
    """The workflow's time: with it, "today" is the user's local date (their timezone)."""
    ui_changes: list[FreshEntity] = Field(default_factory=list)
    state_ref: StateRef | None = None
    """With a working copy: the saved registry, to find the refs the named rows have."""


class PrepareTurnResult(BaseModel):
    context: TurnContext
    known: RegistryDelta | None = None
    """The saved registry's entries of the rows this turn names (UI changes, mentions,
    delete candidates), for a working copy that may not hold them."""
    attempt: int = 1


class OpenTurnRequest(BaseModel):
    """The turn's opening, one local activity: the turn before has saved, this turn's row
    and working copy, the pre-processing read."""

    previous: PreviousTurnRequest | None = None
    """The turn that has to have saved first (none for a conversation's first turn)."""
    begin: BeginTurnRequest
    prepare: PrepareTurnRequest
    """Its ``state_ref`` is set by the activity: the version ``begin`` loaded."""


class OpenTurnResult(BaseModel):
    previous: PreviousTurnResult | None = None
    begun: BeginTurnResult | None = None
    """None while the turn before has not saved: nothing was started or loaded."""
    prepared: PrepareTurnResult | None = None
    """Set with ``begun``, unless the read failed after the turn began (then the workflow
    runs ``prepare_turn`` on its own)."""
    attempt: int = 1


# --- bypass modes ------------------------------------------------------------------------------


class BypassRequest(BaseModel):
    clock: Clock | None = None
    """The turn's time and the user's timezone (every node is told the date)."""
    message: str
    mode: Literal["cook", "brainstorm"]
    """Also the node (and prompt) name."""
    session: BypassSession
    context: TurnContext = Field(default_factory=TurnContext)


class BypassResult(NodeCall):
    output: BypassOutput
