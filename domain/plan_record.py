"""What a turn's row keeps of its plan and progress, so the turn reads the same after it
ends as while it ran (the API's turn view reads it back)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from domain.batch import BatchManifest
from domain.nodes import ThinkStep


class StepProgress(BaseModel):
    index: int
    description: str
    step_type: str
    subdomain: str
    group: int
    status: Literal[
        "pending", "running", "completed", "blocked", "failed", "ask_user", "breaker", "skipped"
    ] = "pending"
    tool_calls: int = 0
    summary: str = ""
    batch: BatchManifest | None = None
    """A write step saving generated items: each item's status."""

    @field_validator("status", mode="before")
    @classmethod
    def _failed(cls, value: object) -> object:
        """Rows and runs from before the fix recorded a step Act failed as ``fail``."""
        return "failed" if value == "fail" else value


class PlanRecord(BaseModel):
    """The goal, Think's plan, how far each step got, breakers, fallbacks and model calls."""

    goal: str | None = None
    plan: list[ThinkStep] | None = None
    steps: list[StepProgress] = Field(default_factory=list)
    breakers: list[str] = Field(default_factory=list)
    fallbacks: list[str] = Field(default_factory=list)
    llm_calls: int = 0
