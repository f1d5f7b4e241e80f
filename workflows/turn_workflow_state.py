"""What a TurnWorkflow has decided and heard so far: one typed place for the turn's own
state (the runtime keeps the conversation's working copy, progress and step results)."""

from __future__ import annotations

from dataclasses import dataclass, field

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from domain.conversation import CurationSummary, StepExit
    from domain.nodes import ThinkOutput, UnderstandOutput
    from domain.tool_results import ToolEntry
    from workflows.interface import InputReceipt, PendingPause, UserInput


@dataclass
class TurnState:
    mode: str
    """The turn's mode (quick, plan, create; ``domain.modes``)."""
    said: list[str]
    """The message, then each answer the user gave to a pause of this turn."""
    understand: UnderstandOutput | None = None
    curation_summary: CurationSummary | None = None
    """What Understand's curation did to the registry."""
    asked_which: bool = False
    """Whether this turn asked which of several same-named rows to delete."""
    think: ThinkOutput | None = None
    quick: ToolEntry | None = None
    """Act Quick's read and what it found."""
    exit: StepExit | None = None
    """The step that stopped the turn's work (blocked, failed, a breaker), if one did."""
    pauses: int = 0
    """Pauses this turn made (``TurnLimits.max_pauses``)."""
    last_pause: PendingPause | None = None
    inputs: list[UserInput] = field(default_factory=list)
    """Answers to the open pause, waiting to be taken."""
    receipts: dict[str, InputReceipt] = field(default_factory=dict)
    """Answers accepted by the ``answer`` update, by input id (a repeat gets the same)."""
