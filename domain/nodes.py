"""What each LLM node must return (seed 000 node outputs, seed 003 §7 contracts).

The model's output is untrusted: every provider validates against these models, and the
cross-field rules below reject outputs that are well-formed JSON but inconsistent (an
``ask_user`` with no question). Field names are what the prompts in ``prompts/`` describe.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, JsonValue, model_validator
from pydantic.json_schema import SkipJsonSchema

from domain.crud.calls import DbRead

Subdomain = Literal["inventory", "recipes", "shopping", "meal_plans", "tasks", "preferences"]
StepType = Literal["read", "analyze", "generate", "write"]
Mode = Literal["quick", "plan", "create"]

# --- Understand -----------------------------------------------------------------------------


class RetainDecision(BaseModel):
    ref: str
    reason: str


class EntityCuration(BaseModel):
    """Understand's memory management: what stays in context beyond the 2-turn window."""

    retain_active: list[RetainDecision] = Field(default_factory=list)
    demote: list[str] = Field(default_factory=list)
    drop: list[str] = Field(default_factory=list)
    clear_all: bool = False


class EntityMention(BaseModel):
    """How the user referred to something, and what it resolves to (seed 000)."""

    text: str
    """The user's words: "the curry", "that one", "it"."""
    ref: str | None = None
    confidence: Literal["high", "medium", "low"] = "high"


class DisambiguationOption(BaseModel):
    """One candidate for a reference that could mean several entities."""

    ref: str
    label: str


class UnderstandOutput(BaseModel):
    """Fields in the order a model reasons (its schema's order): what the user referred
    to and said first, then each verdict after the fields it rests on."""

    referenced_entities: list[str] = Field(default_factory=list)
    entity_mentions: list[EntityMention] = Field(default_factory=list)
    constraint_snapshot: list[str] = Field(default_factory=list)
    """New constraints the user stated this turn ("no dairy", "use cod")."""
    entity_curation: EntityCuration = Field(default_factory=EntityCuration)
    disambiguation_options: list[DisambiguationOption] = Field(default_factory=list)
    """Asked as a choice; the choice resolves to the option's ref."""
    needs_disambiguation: bool = False
    clarification_questions: list[str] = Field(default_factory=list)
    needs_clarification: bool = False
    quick_subdomain: Subdomain | None = None
    quick_intent: str | None = None
    quick_mode: bool = False

    @model_validator(mode="after")
    def _consistent(self) -> UnderstandOutput:
        if self.needs_clarification and not self.clarification_questions:
            raise ValueError("needs_clarification requires clarification_questions")
        if self.quick_mode and not (self.quick_intent and self.quick_subdomain):
            raise ValueError("quick_mode requires quick_intent and quick_subdomain")
        return self


# --- Think ----------------------------------------------------------------------------------


class ThinkStep(BaseModel):
    description: str
    step_type: StepType
    subdomain: Subdomain
    group: int = Field(default=0, ge=0)
    """Steps with the same group run concurrently; groups run in increasing order."""
    read: SkipJsonSchema[DbRead | None] = Field(default=None, exclude_if=lambda r: r is None)
    """The read of a step the system added to the plan (``domain.enforced.plan_rules``:
    ``read_there``, ``read_first``): Act runs it without a model. Never the model's: no
    answer schema shows it, and a plan read from an answer has none. Left out of a step's
    dump when it has none, so a plan's steps serialize as they did before."""


class ThinkOutput(BaseModel):
    goal: str
    decision: Literal["plan_direct", "propose", "clarify"]
    steps: list[ThinkStep] = Field(default_factory=list)
    proposal_message: str | None = None
    clarification_questions: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> ThinkOutput:
        # A plan with no steps but a proposal is a proposal (seed 000, ThinkOutput validator).
        if self.decision == "plan_direct" and not self.steps and self.proposal_message:
            self.decision = "propose"
        if self.decision == "plan_direct" and not self.steps:
            raise ValueError("plan_direct requires at least one step")
        if self.decision == "propose" and not self.proposal_message:
            raise ValueError("propose requires proposal_message")
        if self.decision == "clarify" and not self.clarification_questions:
            raise ValueError("clarify requires clarification_questions")
        return self


# --- Act ------------------------------------------------------------------------------------

ActAction = Literal[
    "tool_call",
    "step_complete",
    "request_schema",
    "retrieve_step",
    "retrieve_archive",
    "ask_user",
    "blocked",
    "fail",
]
CrudTool = Literal["db_read", "db_create", "db_update", "db_delete"]


class ToolCall(BaseModel):
    tool: CrudTool
    params: dict[str, JsonValue]
    """The CRUD call's parameters (table, filters, data, ...): validated by the executor."""


class GeneratedArtifact(BaseModel):
    """Content a generate step produced; it gets a ``gen_<type>_N`` ref, unsaved."""

    type: Literal["recipe", "meal", "task"]
    content: dict[str, JsonValue]
    ref: str | None = None
    """To revise unsaved content ("add feta"): its ``gen_`` ref. The content replaces the old
    content under the same ref; without it the artifact gets a new ref."""


class ActDecision(BaseModel):
    """One decision of the Act loop (seed 000 "ActDecision", eight actions)."""

    action: ActAction
    tool_call: ToolCall | None = None
    result_summary: str | None = None
    """step_complete: what the step found or did, in a sentence."""
    data: JsonValue = None
    """step_complete: the step's result (analysis, chosen refs, ...)."""
    artifacts: list[GeneratedArtifact] = Field(default_factory=list)
    """step_complete of a generate step: the generated content."""
    note_for_next_step: str | None = None
    subdomain: Subdomain | None = None
    """request_schema: whose schema."""
    step_index: int | None = None
    """retrieve_step: which earlier step of this turn."""
    archive_key: str | None = None
    """retrieve_archive: which archived generated content."""
    question: str | None = None
    """ask_user."""
    reason_code: str | None = None
    details: str | None = None
    suggested_next: str | None = None
    """blocked: why, and what the user could do."""
    user_message: str | None = None
    """fail: what to tell the user."""

    @model_validator(mode="after")
    def _consistent(self) -> ActDecision:
        required = {
            "tool_call": ("tool_call",),
            "step_complete": ("result_summary",),
            "request_schema": ("subdomain",),
            "retrieve_step": ("step_index",),
            "retrieve_archive": ("archive_key",),
            "ask_user": ("question",),
            "blocked": ("reason_code", "details"),
            "fail": ("user_message",),
        }[self.action]
        missing = [name for name in required if getattr(self, name) in (None, "")]
        if missing:
            raise ValueError(f"action {self.action!r} requires {', '.join(missing)}")
        return self


class ActQuickDecision(BaseModel):
    """Act Quick: exactly one read (quick mode is read-only since seed 004 V7.1)."""

    tool: Literal["db_read"] = "db_read"
    params: dict[str, JsonValue]


# --- Reply and Summarize --------------------------------------------------------------------


class ReplyOutput(BaseModel):
    response: str = Field(min_length=1)


class SummarizeOutput(BaseModel):
    """Summarize's per-turn compression (seed 000 "LLM Calls": summary and engagement)."""

    assistant_summary: str
    engagement_summary: str
    user_expressed: str = ""
    conversation_phase: Literal["exploring", "narrowing", "confirming", "executing"]


class CompressOutput(BaseModel):
    """A turn that leaves the full-detail window, compressed into the history summary."""

    summary: str


# --- bypass modes (cook, brainstorm) -------------------------------------------------------


class Handoff(BaseModel):
    """What a finished bypass session leaves for the next plan turn."""

    summary: str = Field(min_length=1)
    action: Literal["save", "update", "close"]
    """save: new recipe content to save; update: changes to the cooked recipe; close: nothing
    to act on."""
    recipe: dict[str, JsonValue] | None = None

    @model_validator(mode="after")
    def _content_for_writes(self) -> Handoff:
        if self.action in ("save", "update") and not self.recipe:
            raise ValueError(f"handoff action {self.action!r} requires recipe")
        return self


class BypassOutput(BaseModel):
    """The cook / brainstorm node's answer to one message."""

    response: str = Field(min_length=1)
    exit: bool = False
    """True when the user is done: ``handoff`` says what the session leaves behind."""
    handoff: Handoff | None = None

    @model_validator(mode="after")
    def _handoff_on_exit(self) -> BypassOutput:
        if self.exit and self.handoff is None:
            raise ValueError("exit requires handoff")
        return self


NODE_OUTPUTS: dict[str, type[BaseModel]] = {
    "understand": UnderstandOutput,
    "think": ThinkOutput,
    "act": ActDecision,
    "act_quick": ActQuickDecision,
    "reply": ReplyOutput,
    "summarize": SummarizeOutput,
    "compress": CompressOutput,
    "cook": BypassOutput,
    "brainstorm": BypassOutput,
}
"""Node name -> output model: the names the script provider and the prompts use."""

STEP_COMPLEXITY: dict[str, str] = {
    "read": "low",
    "write": "low",
    "analyze": "medium",
    "generate": "high",
}
NODE_COMPLEXITY: dict[str, str] = {
    "understand": "medium",
    "think": "medium",
    "act_quick": "low",
    "reply": "low",
    "summarize": "low",
    "compress": "low",
    "cook": "medium",
    "brainstorm": "high",
}

NODE_MAX_TOKENS: dict[str, int] = {
    "understand": 800,
    "think": 1_500,
    "act_quick": 400,
    "reply": 1_200,
    "summarize": 600,
    "compress": 400,
    "cook": 1_000,
    "brainstorm": 2_000,
}
"""Output caps, fitted to each schema with room to spare: a model that runs on past them
is rambling (the output is cut off, repaired as an invalid output, never waited out)."""
STEP_MAX_TOKENS: dict[str, int] = {"read": 600, "write": 2_500, "analyze": 1_500, "generate": 3_000}
"""Act's caps by step type: a write carries whole rows, a generate step whole recipes."""


def output_cap(node: str, step_type: str | None = None) -> int:
    """The ``max_tokens`` a node's call is sent with."""
    if node == "act" and step_type is not None:
        return STEP_MAX_TOKENS[step_type]
    return NODE_MAX_TOKENS.get(node, 1_500)
