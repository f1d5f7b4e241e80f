"""Request and response bodies of the conversation and turn routes (XCreate / XPublic)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from domain.kitchen.tables import TABLES

Mode = Literal["quick", "plan", "create", "cook", "brainstorm"]
KitchenTable = Literal[tuple(sorted(name for name, spec in TABLES.items() if spec.writable))]  # type: ignore[valid-type]


class ConversationCreate(BaseModel):
    title: str = Field(default="", max_length=200)


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


class EntityPublic(BaseModel):
    ref: str
    type: str
    label: str
    action: str


class ConversationDetail(ConversationPublic):
    turns: list[TurnSummary]
    active_entities: list[EntityPublic]


class UiChangeIn(BaseModel):
    """An edit the client made outside the chat (seed 000 pre-processing)."""

    action: Literal["created", "updated", "deleted"]
    table: KitchenTable
    id: uuid.UUID
    data: dict[str, Any] | None = None


class MessageCreate(BaseModel):
    text: str = Field(min_length=1, max_length=4000)
    mode: Mode | None = None
    ui_changes: list[UiChangeIn] = Field(default_factory=list)
    input_id: str | None = Field(default=None, max_length=200)
    """When the message answers a pause: the client's id for this answer (retries are ignored)."""


class PendingPublic(BaseModel):
    pause_id: str
    kind: Literal["proposal", "clarification", "question"]
    message: str
    questions: list[str]
    plan: list[dict[str, Any]] | None
    expires_at: dt.datetime


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
    usage: dict[str, Any]
    llm_calls: int = 0
    breakers: list[str] = Field(default_factory=list)
    workflow_id: str
    run_id: str | None
    temporal_ui_url: str
    created_at: dt.datetime
    updated_at: dt.datetime


class InputCreate(BaseModel):
    action: Literal["confirm", "reject", "answer"]
    text: str | None = Field(default=None, max_length=4000)
    input_id: str | None = Field(default=None, max_length=200)

    @model_validator(mode="after")
    def _answer_has_text(self) -> InputCreate:
        if self.action == "answer" and not (self.text and self.text.strip()):
            raise ValueError("an answer needs text")
        return self
