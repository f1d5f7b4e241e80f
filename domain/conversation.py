"""The conversation state a turn starts from and leaves behind (seed 001, three layers).

Layer 1 is the serialized SessionIdRegistry; layer 2 the recent turns in full plus the
compressed history; layer 3 the TurnExecutionSummary of the last turns plus the compressed
reasoning. The content archive and the last two turns' step results persist too (the
original lost both between turns). Stored as JSON in ``conversations.state``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field, JsonValue

from domain.batch import BatchManifest
from domain.nodes import DisambiguationOption, RetainDecision
from domain.registry import PROMPT_TURNS, RegistryDelta, SessionIdRegistry
from domain.tokens import estimate_tokens
from domain.tool_results import ToolEntry

FULL_DETAIL_TURNS = 3
"""Turns kept in full text; older ones are compressed into ``history_summary``."""
REASONING_TURNS = 2
"""TurnExecutionSummaries kept; older ones are folded into ``reasoning_summary``."""
STEP_RESULT_TURNS = 2
"""Turns whose step results Act still sees in full (seed 004 V7.1)."""
ARCHIVE_LIMIT = 20
"""Generated items kept in the content archive (the newest; saved ones leave it)."""
HISTORY_SUMMARY_TOKENS = 400
REASONING_SUMMARY_TOKENS = 250
"""Caps of the two compressed summaries: past them the oldest lines are let go, so the
state (and every activity input carrying it) stops growing in long conversations."""


class TurnRecord(BaseModel):
    turn: int
    user_message: str
    assistant_response: str = ""
    assistant_summary: str = ""
    status: str = "completed"
    entities: list[str] = Field(default_factory=list)
    """Refs this turn touched, for per-turn annotations in Understand's context."""


class StepExecutionSummary(BaseModel):
    step_index: int
    description: str
    step_type: str
    subdomain: str
    outcome: str
    """completed | blocked | failed | ask_user | breaker | skipped"""
    summary: str = ""
    entities: list[str] = Field(default_factory=list)


class CurationSummary(BaseModel):
    retained: list[RetainDecision] = Field(default_factory=list)
    demoted: list[str] = Field(default_factory=list)
    dropped: list[str] = Field(default_factory=list)
    cleared_all: bool = False


class TurnExecutionSummary(BaseModel):
    """Layer 3: what was decided and what happened in one turn."""

    turn_num: int
    think_decision: str | None = None
    think_goal: str | None = None
    steps: list[StepExecutionSummary] = Field(default_factory=list)
    entity_curation: CurationSummary = Field(default_factory=CurationSummary)
    conversation_phase: str = "exploring"
    user_expressed: str = ""
    blocked_reason: str | None = None
    breakers: list[str] = Field(default_factory=list)
    written: list[str] = Field(default_factory=list)
    """What the turn's writes did, a confirmation per write that changed rows, from the
    writes' own results (``TurnState.written``): later turns read it whatever the reply
    or its summary said."""


class StepResult(BaseModel):
    """What one Act step produced: the data later steps and later turns can use."""

    step_index: int
    description: str
    step_type: str
    subdomain: str
    outcome: str = "completed"
    summary: str = ""
    data: JsonValue = None
    tool_results: list[ToolEntry] = Field(default_factory=list)
    artifacts: list[str] = Field(default_factory=list)
    """gen_ refs this step generated."""
    note: str | None = None
    flags: list[str] = Field(default_factory=list)
    """What the step's completion claimed that its outcomes do not support
    (``domain.step_checks``): Reply must not present it as done."""
    batch: BatchManifest | None = None
    """A write step that saved generated items: how each one fared (``domain.batch``)."""


class PendingContext(BaseModel):
    """The pause this turn's user just answered, as Understand and Think are shown it."""

    kind: Literal["proposal", "clarification", "question"] | None = None
    source: Literal["understand", "think", "act"] | None = None
    message: str = ""
    questions: list[str] = Field(default_factory=list)
    answer: str | None = None
    options: list[DisambiguationOption] = Field(default_factory=list)
    """A choice's candidates; ``chosen`` is the one the answer picked (None: none)."""
    chosen: DisambiguationOption | None = None


class StepExit(BaseModel):
    """Why an Act step stopped without completing (seed 000 ActAction): it asks the user,
    is blocked, fails the turn, or a circuit breaker ended it."""

    kind: Literal["ask_user", "blocked", "fail", "breaker"]
    step: int
    question: str | None = None
    reason_code: str | None = None
    details: str | None = None
    suggested_next: str | None = None
    user_message: str | None = None
    breaker: str | None = None
    """The breaker that tripped (``kind == "breaker"``)."""
    tool_results: list[ToolEntry] = Field(default_factory=list)
    """What the step did find before it stopped: Reply may say."""


class Exchange(BaseModel):
    user: str
    assistant: str


class BypassSession(BaseModel):
    """A running cook or brainstorm session: its own short history, apart from the
    conversation's turns (``domain.bypass``)."""

    mode: Literal["cook", "brainstorm"]
    started_turn: int
    recipe_ref: str | None = None
    recipe: dict[str, JsonValue] | None = None
    """The recipe being cooked (cook mode), as read when the session started."""
    history: list[Exchange] = Field(default_factory=list)


class LandedHandoff(BaseModel):
    """What a finished bypass session left for the next plan turn (seen once, then gone)."""

    mode: Literal["cook", "brainstorm"]
    turn: int
    summary: str
    action: Literal["save", "update", "close"]
    recipe_ref: str | None = None
    """save: the gen ref the content got; update: the cooked recipe's ref."""
    recipe: dict[str, JsonValue] | None = None


class ConversationState(BaseModel):
    registry: SessionIdRegistry = Field(default_factory=SessionIdRegistry)
    recent_turns: list[TurnRecord] = Field(default_factory=list)
    history_summary: str = ""
    engagement_summary: str = ""
    turn_summaries: list[TurnExecutionSummary] = Field(default_factory=list)
    reasoning_summary: str = ""
    content_archive: dict[str, JsonValue] = Field(default_factory=dict)
    """Generated content by key (``gen_recipe_1``), retrievable by Act across turns."""
    turn_step_results: dict[str, list[StepResult]] = Field(default_factory=dict)
    """Step results of the last turns, keyed by turn number (as text, for JSON)."""
    notes: list[str] = Field(default_factory=list)
    """Facts about the conversation itself ("turn 4 expired waiting for an answer")."""
    bypass: BypassSession | None = None
    """The cook / brainstorm session in progress, if any."""
    handoff: LandedHandoff | None = None
    """The last bypass session's handoff, until a plan turn has seen it."""

    def for_prompt(self) -> ConversationState:
        """The copy an LLM activity gets: without the registry (passed on its own, trimmed)
        and with the archive's keys only (prompts list them; Act's ``retrieve_archive`` is
        served by the workflow from the whole state)."""
        return self.model_copy(
            update={
                "registry": SessionIdRegistry(),
                "content_archive": dict.fromkeys(self.content_archive),
            }
        )

    def for_workflow(self, turn: int) -> ConversationState:
        """The copy a turn's workflow loads: the refs its prompts can show (``for_prompt``
        at ``turn``) and the content archive's keys, without the conversation's record,
        which model activities and ``finish_turn`` read from the saved state themselves."""
        registry = self.registry
        archive = self.content_archive
        return ConversationState(
            registry=registry.only(registry.recent_refs(turn - PROMPT_TURNS)),
            content_archive=dict.fromkeys(archive),
            bypass=self.bypass,
            handoff=self.handoff,
        )

    def for_act(self) -> ConversationState:
        """The copy an Act step gets: ``for_prompt`` less what Act's prompt never shows
        (turns before the last two, the reasoning trace), so each of a turn's Act calls
        stays the same size however long the conversation."""
        return self.for_prompt().model_copy(
            update={
                "recent_turns": self.recent_turns[-ACT_TURNS:],
                "turn_summaries": [],
                "reasoning_summary": "",
            }
        )


ACT_TURNS = 2
"""Turns Act's prompt shows (``context.act_context``: the conversation at depth 2)."""


class SummaryParts(BaseModel):
    """What Summarize decided about a turn; the new conversation state follows from it
    (``conclude_turn``), so only these few fields cross back from the activity."""

    assistant_summary: str
    engagement_summary: str
    conversation_phase: str
    user_expressed: str = ""
    compressed: str | None = None
    """The one line for the turn that left the full window (None when none left)."""


def conclude_turn(
    state: ConversationState,
    record: TurnRecord,
    summary: TurnExecutionSummary,
    step_results: list[StepResult],
    parts: SummaryParts,
) -> ConversationState:
    """The state the turn leaves behind: the turn recorded with Summarize's parts."""
    record = record.model_copy(update={"assistant_summary": parts.assistant_summary})
    summary = summary.model_copy(
        update={
            "conversation_phase": parts.conversation_phase,
            "user_expressed": parts.user_expressed,
        }
    )
    new, evicted = record_turn(state, record, summary, step_results)
    new.engagement_summary = parts.engagement_summary
    if evicted is not None and parts.compressed is not None:
        new = add_history(new, parts.compressed)
    return new


class BypassEnding(BaseModel):
    """What one cook or brainstorm message leaves (``domain.bypass.after_exchange``)."""

    session: BypassSession | None = None
    """The session as it goes on; None: it ended (the model handed off)."""
    handoff: LandedHandoff | None = None
    """On exit: what lands for the next plan turn."""
    record: TurnRecord | None = None
    """On exit: the session's line in the recent turns."""


class TurnEnding(BaseModel):
    """What a turn leaves behind, applied by ``finish_turn`` to the state the turn loaded
    (``end_turn``): a workflow holds only the turn's working copy of the state."""

    registry: RegistryDelta = Field(default_factory=RegistryDelta)
    """The registry's changes since the copy the turn loaded."""
    content_archive: dict[str, JsonValue] = Field(default_factory=dict)
    """The whole archive as the turn leaves it (pruned of saved content); a key without
    content keeps the content saved under it (a copy that loaded the archive's keys)."""
    record: TurnRecord | None = None
    """The turn to record (None: a turn that ends with only a note)."""
    summary: TurnExecutionSummary | None = None
    step_results: list[StepResult] = Field(default_factory=list)
    parts: SummaryParts | None = None
    """Summarize's decisions; without them the turn is recorded as said, no model."""
    note: str | None = None
    """A fact about the conversation ("turn 4 expired waiting for an answer")."""
    bypass: BypassEnding | None = None
    """A cook or brainstorm message's session change (None: no bypass message)."""


def end_turn(stored: ConversationState, ending: TurnEnding) -> ConversationState:
    """The state a turn leaves: the saved one with the turn's registry changes, archive,
    record (with Summarize's parts, or as said) and note."""
    registry = stored.registry.clone()
    registry.apply_delta(ending.registry)
    saved = stored.content_archive
    archive = {
        key: saved.get(key) if content is None else content
        for key, content in ending.content_archive.items()
        if content is not None or saved.get(key) is not None
    }
    state = stored.model_copy(update={"registry": registry, "content_archive": archive})
    if ending.record is not None and ending.summary is not None:
        if ending.parts is not None:
            state = conclude_turn(
                state, ending.record, ending.summary, ending.step_results, ending.parts
            )
        else:
            state, evicted = record_turn(state, ending.record, ending.summary, ending.step_results)
            if evicted is not None:  # no model at an ending: the old turn as said
                state = add_history(state, as_said(evicted))
    if ending.note is not None:
        state = state.model_copy(update={"notes": [*state.notes, ending.note]})
    if ending.bypass is not None:
        state = _end_exchange(state, ending.bypass)
    return state


def _end_exchange(state: ConversationState, ending: BypassEnding) -> ConversationState:
    """The session goes on, or ends with its handoff landed and its line recorded."""
    update: dict[str, Any] = {"bypass": ending.session}
    if ending.handoff is not None:
        update["handoff"] = ending.handoff
    if ending.record is not None:
        update["recent_turns"] = [*state.recent_turns, ending.record]
    return state.model_copy(update=update)


def as_said(turn: TurnRecord) -> str:
    """A turn's line in the history summary without the model: what the user said."""
    return f"Turn {turn.turn}: {turn.user_message[:200]}"


def leaving_turn(state: ConversationState) -> TurnRecord | None:
    """The turn that leaves the full window when the next one is recorded, if any."""
    if len(state.recent_turns) + 1 > FULL_DETAIL_TURNS:
        return state.recent_turns[0]
    return None


def record_turn(
    state: ConversationState,
    record: TurnRecord,
    summary: TurnExecutionSummary,
    step_results: list[StepResult],
) -> tuple[ConversationState, TurnRecord | None]:
    """The state with this turn added; returns it and the turn that left the full window.

    The caller compresses the returned turn (an LLM call) into ``history_summary``; the
    reasoning summary is folded deterministically, because it is already structured.
    """
    new = state.model_copy(deep=True)
    new.handoff = None  # this turn was shown the handoff; it has done its job
    evicted = leaving_turn(new)
    new.recent_turns.append(record)
    if evicted is not None:
        new.recent_turns.pop(0)

    new.turn_summaries.append(summary)
    while len(new.turn_summaries) > REASONING_TURNS:
        old = new.turn_summaries.pop(0)
        new.reasoning_summary = _clip(
            _join(new.reasoning_summary, _reasoning_line(old)), REASONING_SUMMARY_TOKENS
        )

    if step_results:
        new.turn_step_results[str(record.turn)] = step_results
    keep = sorted(new.turn_step_results, key=int)[-STEP_RESULT_TURNS:]
    new.turn_step_results = {k: new.turn_step_results[k] for k in keep}
    return new, evicted


def prune_archive(archive: dict[str, Any], saved: Iterable[str]) -> dict[str, Any]:
    """The archive without saved content (the database has it now), newest ``ARCHIVE_LIMIT``."""
    gone = set(saved)
    kept = [(key, content) for key, content in archive.items() if key not in gone]
    return dict(kept[-ARCHIVE_LIMIT:])


def add_history(state: ConversationState, compressed: str) -> ConversationState:
    new = state.model_copy(deep=True)
    new.history_summary = _clip(_join(new.history_summary, compressed), HISTORY_SUMMARY_TOKENS)
    return new


def _clip(text: str, max_tokens: int) -> str:
    """``text`` without its oldest lines, until it fits ``max_tokens`` (the newest line stays)."""
    lines = text.splitlines()
    while len(lines) > 1 and estimate_tokens("\n".join(lines)) > max_tokens:
        lines.pop(0)
    return "\n".join(lines)


def _reasoning_line(summary: TurnExecutionSummary) -> str:
    steps = "; ".join(f"{s.description} → {s.outcome}" for s in summary.steps) or "no steps"
    decision = summary.think_decision or "no plan"
    return f"Turn {summary.turn_num}: {decision} ({summary.think_goal or 'no goal'}): {steps}."


def _join(existing: str, addition: str) -> str:
    return f"{existing}\n{addition}".strip() if addition else existing


# --- assistant messages, shortened for later turns (seed 001 "Assistant Message
# Summarization") ----------------------------------------------------------------------------

GENERATED_MARKERS = (
    "ingredients",
    "instructions",
    "servings",
    "serves",
    "prep time",
    "cook time",
    "minutes",
    "method",
)
"""Words a generated recipe shows (the kitchen's ``get_generated_content_markers``)."""
SECTION_HEADINGS = frozenset(
    """ingredients instructions method steps directions preparation equipment notes tips
    variations nutrition description servings serves""".split()
)
"""A recipe's section headings, set in bold like its name: never a name themselves."""
LIST_ITEMS = re.compile(r"\n\s*(?:[-*]|\d+\.)\s+(.+)")
NAMES = re.compile(r"\*\*([^*\n]{2,80})\*\*|^#+\s*(.+)$", re.MULTILINE)
SHORT_LIMIT = 400


def _heading(name: str) -> bool:
    """ "**Ingredients:**", "## Method", "**Instructions (serves 2)**": a section, not a dish."""
    words = re.findall(r"[a-z]+", name.lower())
    return bool(words) and words[0] in SECTION_HEADINGS


def summarize_assistant_message(text: str) -> str:
    """A long reply as later turns read it: generated content as what was shown ("[showed
    recipes in full: A; B]", a note, not a sentence: seed 001's "Generated recipe(s): A, B.
    [Content archived]" read like an answer, and the 1.5B local model gave it as its reply
    twice), a list as its intro and first items, anything else its first 400 characters. A
    short reply is kept as it is."""
    if len(text) <= SHORT_LIMIT:
        return text
    lower = text.lower()
    if sum(1 for marker in GENERATED_MARKERS if marker in lower) >= 3:
        found = ((a or b).strip() for a, b in NAMES.findall(text))
        names = list(dict.fromkeys(n for n in found if not _heading(n)))
        if names:
            what = "a recipe" if len(names) == 1 else "recipes"
            return f"[showed {what} in full: {'; '.join(names[:6])}]"
    items = LIST_ITEMS.findall(text)
    if len(items) >= 5:
        intro = text.split("\n", 1)[0].strip().rstrip(":")
        shown = ", ".join(i.strip() for i in items[:3])
        more = f" +{len(items) - 3} more" if len(items) > 3 else ""
        return f"{intro} ({len(items)} items: {shown}{more})"
    return text[:SHORT_LIMIT] + "... [content continues in step results]"
