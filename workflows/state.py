"""Everything a turn knows, in one typed place (``TurnState``): the ledger the turn's script
writes and the ``progress`` query only reads.

Three parts: what the client sees (``progress``, the query's answer), the conversation's
working copy (loaded by the opening, its changes saved by the ending), and what the turn
decided, heard and did so far. Nothing here calls an activity.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import JsonValue
from temporalio import workflow

from workflows.versions import Versions

with workflow.unsafe.imports_passed_through():
    from activities.payloads import StateRef
    from domain.clock import Clock
    from domain.conversation import (
        ConversationState,
        CurationSummary,
        PendingContext,
        StepExit,
        StepResult,
        TurnEnding,
    )
    from domain.mentions import plain_text
    from domain.modes import BYPASS_MODES, DEFAULT_MODE
    from domain.nodes import ThinkOutput, UnderstandOutput
    from domain.registry import SessionIdRegistry
    from domain.tool_results import ToolEntry
    from domain.turn_context import TurnContext
    from workflows.interface import InputReceipt, Question, TurnInput, TurnProgress, UserInput


@dataclass
class Stored:
    """The registry and archive keys as the turn loaded them, to tell its changes since."""

    registry: SessionIdRegistry = field(default_factory=SessionIdRegistry)
    archive: list[str] = field(default_factory=list)


@dataclass
class TurnState:
    turn: TurnInput
    progress: TurnProgress
    """What the ``progress`` query answers: status, pending pause, plan, usage, events."""
    mode: str
    """The turn's mode (quick, plan, create, cook, brainstorm; ``domain.modes``)."""
    said: list[str]
    """The message as every model reads it (mentions as label and ref, once the opening
    has read them), then each answer the user gave to a pause of this turn."""
    versions: Versions = field(default_factory=Versions)
    """Which control-flow changes this run follows (``workflows.versions``): branch on
    ``state.versions.has(id)``."""

    # --- the conversation's working copy (``workflows.lifecycle``) ------------------------
    conversation: ConversationState = field(default_factory=ConversationState)
    registry: SessionIdRegistry = field(default_factory=SessionIdRegistry)
    version: int = 0
    stored: Stored | None = None
    """As loaded; None until the opening loaded the state (an ending saves nothing then)."""
    context: TurnContext = field(default_factory=TurnContext)
    """Profile, dashboard and fresh rows (``open_turn``'s read)."""
    familiar: list[str] = field(default_factory=list)
    """Refs of ``context.delete_candidates`` the last two turns referenced."""
    previous_saved: bool = False
    """Set by the ``previous_turn_saved`` signal: the turn before this one has saved."""

    # --- what the turn decided and heard ---------------------------------------------------
    understand: UnderstandOutput | None = None
    curation: CurationSummary | None = None
    """What Understand's curation did to the registry."""
    asked_which: bool = False
    """Whether this turn asked which row to delete (several of one name, or several shown
    and one pointed at): the answer is not asked about again."""
    think: ThinkOutput | None = None
    quick: ToolEntry | None = None
    """Act Quick's read and what it found."""
    question: Question | None = None
    """What the next pause asks (Understand's or Think's, for ``Route.ASK``)."""
    pending: PendingContext | None = None
    """The pause the user just answered, as Understand and Think are shown it."""
    pauses: int = 0
    """Pauses this turn made (``TurnLimits.max_pauses``)."""
    inputs: list[UserInput] = field(default_factory=list)
    """Answers to the open pause, waiting to be taken."""
    receipts: dict[str, InputReceipt] = field(default_factory=dict)
    """Answers accepted by the ``answer`` update, by input id (a repeat gets the same)."""

    # --- what the turn did -------------------------------------------------------------------
    step_results: dict[int, StepResult] = field(default_factory=dict)
    exit: StepExit | None = None
    """The step that stopped the turn's work (blocked, failed, a breaker), if one did."""
    written: list[str] = field(default_factory=list)
    """A sentence per write this turn made (``Added 2 items to the inventory: milk,
    eggs.``), from the write's own result: what an ending without a model can report."""
    reply: str = ""
    """The turn's answer, once a stage has it (``Route.DONE``)."""
    timings: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, turn: TurnInput) -> TurnState:
        return cls(
            turn=turn,
            progress=TurnProgress(turn_number=turn.turn_number),
            mode=turn.mode or DEFAULT_MODE,
            said=[plain_text(turn.message)],
        )

    @property
    def message(self) -> str:
        return self.said[0]

    @property
    def loaded(self) -> bool:
        return self.stored is not None

    def what_the_user_said(self) -> str:
        """The message, with the answers given to this turn's questions (Reply and the
        conversation record must know "the chicken one", not only "that one")."""
        if len(self.said) == 1:
            return self.said[0]
        return f"{self.said[0]} (then answered: {'; '.join(self.said[1:])})"

    def results(self) -> list[StepResult]:
        """The steps' results, in step order."""
        return [self.step_results[i] for i in sorted(self.step_results)]

    def path(self) -> str:
        """What the turn did, for the turns metric: plan, quick, ask, cook, brainstorm, none."""
        if self.mode in BYPASS_MODES:
            return self.mode
        took = (("plan", self.think), ("quick", self.quick), ("ask", self.pauses))
        return next((name for name, done in took if done), "none")

    def clock(self) -> Clock:
        """Now, in the user's timezone: every node request carries it (``domain.clock``)."""
        return Clock(now=workflow.now(), timezone=self.context.timezone)

    def state_ref(self, archive: dict[str, JsonValue] | None = None) -> StateRef:
        """The state a model or CRUD activity reads, by reference: the version this turn
        loaded and what the turn changed since (in its registry; in ``archive``, or the
        turn's content archive)."""
        stored = self.stored or Stored()
        now = self.conversation.content_archive if archive is None else archive
        loaded = dict.fromkeys(stored.archive)
        return StateRef(
            user_id=self.turn.user_id,
            conversation_id=self.turn.conversation_id,
            version=self.version,
            registry=self.registry.delta_since(stored.registry),
            archived=[k for k in now if k not in loaded],
            unarchived=[k for k in stored.archive if k not in now],
        )

    def ending(self, **fields: object) -> TurnEnding:
        """What the turn leaves (``TurnEnding``): its registry changes and ``fields``."""
        stored = self.stored or Stored()
        return TurnEnding(registry=self.registry.delta_since(stored.registry), **fields)  # type: ignore[arg-type]
