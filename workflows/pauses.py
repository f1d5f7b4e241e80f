"""Pauses: the turn asks the user and waits, durably, for the ``answer`` update.

``Pauses.ask`` opens a pause (a proposal, a clarification, a choice or Act's question):
status ``awaiting_input``, a ``PendingPause`` in progress, the turn's row marked, then a
wait of up to ``limits.pause_timeout_seconds``. It returns the ``Answer``, or the reply
that ends the turn instead (a rejection, the pause cap); a pause nobody answers raises
``PauseExpired`` (the turn's expired ending, ``workflows.endings``). ``validate`` and
``take`` are the ``answer`` update's validator and handler.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ApplicationError

from workflows.lifecycle import Lifecycle
from workflows.progress import ProgressLog
from workflows.state import TurnState

with workflow.unsafe.imports_passed_through():
    from domain import formatters
    from domain.choices import resolve_choice
    from domain.conversation import PendingContext
    from domain.mentions import plain_text
    from domain.nodes import DisambiguationOption
    from workflows.events import AwaitingInput
    from workflows.interface import InputReceipt, PendingPause, Question, UserInput


@dataclass
class Answer:
    """The user's answer to a pause."""

    pause: PendingPause
    given: UserInput

    @property
    def text(self) -> str:
        return plain_text(self.given.text or self.given.action)

    def chosen(self) -> DisambiguationOption | None:
        """The candidate the answer picks, when the pause was a choice."""
        return resolve_choice(self.text, self.pause.options) if self.pause.options else None

    def context(self, text: str, chosen: DisambiguationOption | None = None) -> PendingContext:
        """What Understand and Think are shown about the pause the user just answered."""
        pause = self.pause
        return PendingContext(
            kind=pause.kind,
            source=pause.source,
            message=pause.message,
            questions=pause.questions,
            answer=text,
            options=pause.options,
            chosen=chosen if pause.options else None,
        )


class PauseExpired(Exception):
    """Nobody answered ``pause`` in time: the turn ends expired, without a reply."""

    def __init__(self, pause: PendingPause) -> None:
        super().__init__(pause.pause_id)
        self.pause = pause


class Pauses:
    def __init__(self, state: TurnState, log: ProgressLog, lifecycle: Lifecycle) -> None:
        self.state = state
        self.progress = state.progress
        self.log = log
        self.lifecycle = lifecycle

    async def ask(self, question: Question) -> Answer | str:
        """Wait for the user's answer; a reply text ends the turn instead (reject, cap)."""
        state, limits = self.state, self.state.turn.limits
        if state.pauses >= limits.max_pauses:
            self.log.trip("pause_cap", f"{limits.max_pauses} questions already asked this turn")
            return question.message
        state.pauses += 1
        timeout = timedelta(seconds=limits.pause_timeout_seconds)
        pause = PendingPause(
            **dict(question),
            pause_id=f"{workflow.info().workflow_id}/pause-{state.pauses}",
            expires_at=workflow.now() + timeout,
        )
        self.progress.pending, self.progress.response = pause, question.message
        self.log.set_status("awaiting_input")
        self.log.emit(
            "awaiting_input",
            AwaitingInput(
                pause_id=pause.pause_id,
                kind=pause.kind,
                message=pause.message,
                expires_at=pause.expires_at.isoformat(),
            ),
        )
        await self.lifecycle.mark_turn("awaiting_input", question.message)
        asked = workflow.now()
        try:
            await workflow.wait_condition(lambda: bool(state.inputs), timeout=timeout)
        except TimeoutError:
            self.log.record_wait(pause.kind, "expired", (workflow.now() - asked).total_seconds())
            self.progress.pending = None
            raise PauseExpired(pause) from None
        given = state.inputs.pop(0)
        self.log.record_wait(pause.kind, given.action, (workflow.now() - asked).total_seconds())
        self.progress.pending = None
        self.log.set_status("running")
        if given.action == "reject":
            return formatters.format_rejection(state.written)
        return Answer(pause, given)

    def validate(self, given: UserInput) -> None:
        """Rejected before it reaches history: no pause open, another pause named, or the
        open one already answered. The same input id again is accepted (idempotent)."""
        receipts = self.state.receipts
        if given.input_id in receipts:
            return
        if any(r.pause_id == given.pause_id for r in receipts.values()):
            raise ApplicationError(
                f"{given.pause_id} has already been answered", type="already_answered"
            )
        pending = self.progress.pending
        if pending is None:
            raise ApplicationError(
                f"turn {self.state.turn.turn_number} is {self.progress.status}: "
                "no question or proposal is waiting for an answer",
                type="not_awaiting_input",
            )
        if given.pause_id is not None and given.pause_id != pending.pause_id:
            raise ApplicationError(
                f"{given.pause_id} is not the open question; {pending.pause_id} is",
                type="not_the_open_pause",
            )
        if self.state.inputs:
            raise ApplicationError(
                f"{pending.pause_id} has already been answered", type="already_answered"
            )

    def take(self, given: UserInput) -> InputReceipt:
        """Count an answer ``validate`` let through: the open pause takes it."""
        receipts = self.state.receipts
        if given.input_id in receipts:
            return receipts[given.input_id]
        pending = self.progress.pending
        if pending is None:  # the validator ran in this same workflow task: cannot happen
            raise ApplicationError("no pause is open", type="not_awaiting_input")
        receipt = InputReceipt(
            input_id=given.input_id, pause_id=pending.pause_id, action=given.action
        )
        receipts[given.input_id] = receipt
        self.state.inputs.append(given)
        return receipt
