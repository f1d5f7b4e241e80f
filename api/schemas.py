"""Request and response bodies of the conversation and turn routes (XCreate / XPublic)."""

from __future__ import annotations

import datetime as dt
import math
import uuid
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, model_validator

from domain.entity_cards import EntityCard
from domain.kitchen.tables import TABLES
from domain.ledger import Cost, LedgerLine
from workflows.interface import InputReceipt

Mode = Literal["quick", "plan", "create", "cook", "brainstorm"]
KitchenTable = Literal[tuple(sorted(name for name, spec in TABLES.items() if spec.writable))]  # type: ignore[valid-type]

JSON_MAX_DEPTH = 32
"""Deepest nesting of a JSON object field: deeper is no kitchen data, and Python's JSON
encoder (on the way to PostgreSQL or Temporal) fails near a thousand levels, a 500."""


def _storable(value: str) -> str:
    if "\x00" in value:
        raise ValueError("text cannot contain NUL (\\u0000) characters")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(
                "text cannot contain lone surrogates (\\ud800-\\udfff): they are not characters"
            ) from None
    return value


SafeText = Annotated[str, AfterValidator(_storable)]
"""The type of every text a request carries. PostgreSQL text holds neither NUL nor a lone
UTF-16 surrogate (which a JSON escape such as ``"\\ud800"`` can smuggle in), and neither
survives the way to Temporal: refused here as a 422 naming the field, not by the driver.
(Pydantic's ``str`` already refuses lone surrogates; inside ``SafeJson`` only this does.)"""


def _storable_json(value: dict[str, Any]) -> dict[str, Any]:
    stack: list[tuple[Any, int]] = [(value, 1)]  # a loop, not recursion: depth is the input's
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _storable(item)
        elif isinstance(item, float) and not math.isfinite(item):
            raise ValueError("numbers must be finite (JSON has no NaN or Infinity)")
        elif isinstance(item, dict | list):
            if depth > JSON_MAX_DEPTH:
                raise ValueError(f"JSON nested deeper than {JSON_MAX_DEPTH} levels")
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return value


SafeJson = Annotated[dict[str, Any], AfterValidator(_storable_json)]
"""A free-form JSON object in a request, held to what ``jsonb`` stores: its keys and strings
are ``SafeText``, its numbers finite."""


class ConversationCreate(BaseModel):
    title: SafeText = Field(default="", max_length=200)


class ConversationPublic(BaseModel):
    id: uuid.UUID
    title: str
    current_turn: int
    created_at: dt.datetime
    updated_at: dt.datetime


class TurnSummary(BaseModel):
    id: uuid.UUID
    turn_number: int
    status: str
    message: str
    response: str | None


class EntityPublic(EntityCard):
    """An entity in context (``domain.entity_cards``)."""


class ConversationDetail(ConversationPublic):
    turns: list[TurnSummary]
    active_entities: list[EntityPublic]


class UiChangeIn(BaseModel):
    """An edit the client made outside the chat (seed 000 pre-processing)."""

    action: Literal["created", "updated", "deleted"]
    table: KitchenTable
    id: uuid.UUID
    data: SafeJson | None = None


class MessageCreate(BaseModel):
    text: SafeText = Field(min_length=1, max_length=4000)
    mode: Mode | None = None
    ui_changes: list[UiChangeIn] = Field(default_factory=list, max_length=100)
    input_id: SafeText | None = Field(default=None, max_length=200)
    """The client's id for this message (or the ``Idempotency-Key`` header): sent again, it
    finds the turn it started, or the answer it gave (the same receipt), and counts once."""


class ChoicePublic(BaseModel):
    ref: str
    label: str


class PendingPublic(BaseModel):
    pause_id: str
    kind: Literal["proposal", "clarification", "question"]
    message: str
    questions: list[str]
    options: list[ChoicePublic] = Field(default_factory=list)
    """A choice between these entities: answer with the number, the label or the ref."""
    plan: list[dict[str, Any]] | None
    expires_at: dt.datetime


class TurnUsage(Cost):
    """A turn's model calls: tokens and repairs in all, ``by_node`` (node, model, the price
    its calls were charged at when they were made, calls, failed calls, tokens,
    ``cost_usd``), and the turn's ``cost_usd``: the sum of what was charged, partial when
    ``unpriced_models`` is not empty."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    repairs: int = 0
    by_node: list[LedgerLine] = Field(default_factory=list)


class TurnPublic(BaseModel):
    id: uuid.UUID
    conversation_id: uuid.UUID
    turn_number: int
    status: str
    message: str
    response: str | None
    pending: PendingPublic | None
    goal: str | None = None
    plan: list[dict[str, Any]] | None
    steps: list[dict[str, Any]]
    usage: TurnUsage
    llm_calls: int = 0
    breakers: list[str] = Field(default_factory=list)
    fallbacks: list[str] = Field(default_factory=list)
    """Model calls that failed for good and what the turn did instead (``reply:
    http_503``); ``usage.repairs`` counts the outputs that were asked for again."""
    workflow_id: str
    run_id: str | None
    temporal_ui_url: str
    created_at: dt.datetime
    updated_at: dt.datetime
    accepted_input: InputReceipt | None = None
    """The answer this request gave the turn's pause, as the turn took it."""


class InputCreate(BaseModel):
    action: Literal["confirm", "reject", "answer"]
    text: SafeText | None = Field(default=None, max_length=4000)
    input_id: SafeText | None = Field(default=None, max_length=200)
    pause_id: SafeText | None = Field(
        default=None,
        max_length=300,
        description="the pause this answers (the turn's `pending.pause_id`); another "
        "pause's id, or one already answered, is a 409",
    )

    @model_validator(mode="after")
    def _answer_has_text(self) -> InputCreate:
        if self.action == "answer" and not (self.text and self.text.strip()):
            raise ValueError("an answer needs text")
        return self


class ConversationUsage(Cost):
    """What a conversation's turns cost: ``cost_usd`` sums what each call was charged when
    it was made; ``unpriced_models`` names the models it leaves out (no price)."""

    conversation_id: uuid.UUID
    turns: int
    calls: int
    failed_calls: int = 0
    prompt_tokens: int
    completion_tokens: int


class UsageReport(Cost):
    """What the caller's turns cost, in all and per conversation (``cost_usd`` partial
    when ``unpriced_models`` is not empty)."""

    calls: int
    failed_calls: int = 0
    prompt_tokens: int
    completion_tokens: int
    by_node: list[LedgerLine]
    """Every turn's calls by node, model and the price they were charged at."""
    conversations: list[ConversationUsage]
