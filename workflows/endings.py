"""How a TurnWorkflow ends: wrapped up with its reply, or expired, cancelled or failed.

``wrap_up`` shows the reply (status ``replied``, a ``done`` event) before Summarize runs,
then saves the conversation (``finish_turn``). An expired, cancelled or failed turn saves
what any turn leaves (a record of what was said and a summary of what was decided and
done, so the next turn's Understand and Think know what happened) with a note. Every
ending says what the turn wrote when its work or its reply stopped short.
"""

from __future__ import annotations

from pydantic import JsonValue
from temporalio import workflow
from temporalio.exceptions import ActivityError

from workflows.activity_calls import Calls, degraded, failure_problem
from workflows.lifecycle import Lifecycle
from workflows.progress import ProgressLog
from workflows.state import TurnState

with workflow.unsafe.imports_passed_through():
    from activities.payloads import SummarizeRequest, SummarizeResult
    from activities.turn_state import TurnStateActivities
    from domain import formatters
    from domain.conversation import (
        CurationSummary,
        StepExecutionSummary,
        TurnEnding,
        TurnExecutionSummary,
        TurnRecord,
        prune_archive,
    )
    from domain.entity_cards import entity_cards
    from domain.shown import owed_recipes, unsaid_writes, without_false_nothing, without_refs
    from workflows.events import Done, TurnEnded
    from workflows.interface import PendingPause


class Endings:
    def __init__(
        self, state: TurnState, log: ProgressLog, calls: Calls, lifecycle: Lifecycle
    ) -> None:
        self.state = state
        self.progress = state.progress
        self.log = log
        self.calls = calls
        self.lifecycle = lifecycle

    async def wrap_up(self, response: str) -> None:
        """Show the reply (with a generated recipe it did not show, the breakers, and what
        was written when it is owed or the reply did not speak of it), then summarize the
        turn and save the conversation."""
        state, log = self.state, self.log
        response = without_refs(response, state.registry)  # a model's refs are not for users
        response = without_false_nothing(response, state.written)
        generated = [ref for result in state.results() for ref in result.artifacts]
        owed = owed_recipes(response, state.registry, generated)
        unsaid = unsaid_writes(response, state.written)  # of the reply, before any addition
        if owed:  # generated content the user has not seen cannot be saved or changed
            response = f"{response}\n\n{owed}"
        for breaker in self.progress.breakers:
            kind, _, detail = breaker.partition(": ")
            step = detail if kind in formatters.STEP_BREAKERS else ""
            response = f"{response}\n\n{formatters.format_breaker(kind, step)}"
        if self._owes_the_writes():  # from the writes' own results (``TurnState.written``)
            owed_writes = [w for w in state.written if w not in response]  # not said word for word
            if owed_writes or not state.written:
                response = f"{response}\n\n{formatters.format_done(owed_writes)}"
        elif unsaid:  # the reply spoke as if nothing was written
            response = f"{response}\n\n{formatters.format_done(unsaid)}"
        response = response.strip()  # a reply left empty is what was added after it
        self.progress.response = response
        log.set_status("replied")
        log.mark("replied")
        log.emit("done", Done(response=response, active_context=entity_cards(state.registry)))
        await self.lifecycle.mark_turn("replied", response)

        record, summary = self._turn_record(response)
        state.registry.clear_turn_promoted_artifacts()
        archive = prune_archive(state.conversation.content_archive, state.registry.promoted())
        # Turns that executed nothing (a rejected proposal, a capped turn) get deterministic
        # summaries (seed 002: no LLM summarization for proposals and clarifications).
        use_llm = self.calls.llm_budget_left >= 2 and bool(state.step_results)
        try:
            summarized = await self._summarize(archive, record, summary, use_llm=use_llm)
        except ActivityError as error:
            if not use_llm:
                raise
            log.fallback("summarize", degraded(error))
            summarized = await self._summarize(archive, record, summary, use_llm=False)
        final = state.ending(  # applied to the saved state by finish_turn
            content_archive=archive,
            record=record,
            summary=summary,
            step_results=state.results(),
            parts=summarized.parts,
        )
        await self.lifecycle.finish(final, "completed", response)
        log.emit(
            "context_updated", TurnEnded(turn=state.turn.turn_number), attempt=summarized.attempt
        )

    def _owes_the_writes(self) -> bool:
        """Whether the ending must say what the turn wrote, whatever a model said: its work
        or its reply stopped short (a step blocked or failed, a limit, Reply without the
        model) in a turn that wrote, or planned to."""
        progress = self.progress
        stopped = (
            self.state.exit is not None
            or progress.breakers
            or any(f.startswith("reply:") for f in progress.fallbacks)
        )
        planned = any(s.step_type == "write" for s in progress.steps)
        return bool(stopped and (self.state.written or planned))

    async def _summarize(
        self,
        archive: dict[str, JsonValue],
        record: TurnRecord,
        summary: TurnExecutionSummary,
        *,
        use_llm: bool,
    ) -> SummarizeResult:
        # Summarize decides its own model calls (up to 3, none without the model): the
        # budget is checked before (``use_llm``) and the calls it made are counted after.
        return await self.calls.llm(
            TurnStateActivities.summarize,
            SummarizeRequest(
                # the saved state by reference, with what this turn changed (what the
                # prompt reads: the unsaved content's labels, not the whole registry)
                state_ref=self.state.state_ref(archive=archive),
                record=record,
                summary=summary,
                step_results=self.state.results(),
                use_llm=use_llm,
            ),
            summary="summarize" if use_llm else "summarize (without the model)",
            budgeted=False,
        )

    def _turn_record(self, response: str) -> tuple[TurnRecord, TurnExecutionSummary]:
        """What was said, and what was decided and done (seed 001's layers 2 and 3)."""
        state = self.state
        turn, registry = state.turn.turn_number, state.registry
        touched = [r for r in registry.known_refs() if registry.last_referenced(r) == turn]
        record = TurnRecord(
            turn=turn,
            user_message=state.what_the_user_said(),
            assistant_response=response,
            entities=touched,
        )
        steps = [
            StepExecutionSummary(
                step_index=p.index,
                description=p.description,
                step_type=p.step_type,
                subdomain=p.subdomain,
                outcome=p.status,
                summary=p.summary,
                entities=state.step_results[p.index].artifacts
                if p.index in state.step_results
                else [],
            )
            for p in self.progress.steps
        ]
        think = state.think
        summary = TurnExecutionSummary(
            turn_num=turn,
            think_decision=think.decision if think else ("quick" if state.quick else None),
            think_goal=think.goal if think else None,
            steps=steps,
            entity_curation=state.curation or CurationSummary(),
            blocked_reason=state.exit.details if state.exit else None,
            breakers=list(self.progress.breakers),
            written=list(state.written),
        )
        return record, summary

    def _ending_with_note(self, note: str, response: str | None = None) -> TurnEnding | None:
        """What an ended turn (expired, cancelled, failed) leaves: like any turn, its record
        and summary, and the note; ``finish_turn`` applies it to the saved state. None
        before the state was loaded (nothing to save)."""
        state = self.state
        if not state.loaded:
            return None
        state.registry.clear_turn_promoted_artifacts()
        record, summary = self._turn_record(response or note)
        summary.blocked_reason = summary.blocked_reason or note
        return state.ending(
            content_archive=state.conversation.content_archive,
            record=record,
            summary=summary,
            step_results=state.results(),
            note=note,
        )

    async def expired(self, pause: PendingPause) -> None:
        """Nobody answered ``pause``: the turn ends with its question as its response."""
        turn, done = self.state.turn.turn_number, formatters.format_done(self.state.written)
        note = f"Turn {turn} expired waiting for an answer to a {pause.kind}. {done}"
        ending = self._ending_with_note(note, pause.message)
        await self.lifecycle.finish(ending, "expired", pause.message)

    async def cancelled(self) -> None:
        self.progress.pending = None
        turn, done = self.state.turn.turn_number, formatters.format_done(self.state.written)
        note = f"Turn {turn} was cancelled. {done}"
        ending = self._ending_with_note(note, self.progress.response)
        await self.lifecycle.finish(ending, "cancelled", self.progress.response)

    async def failed(self, error: Exception) -> None:
        """The turn cannot go on: the reason in plain words and what was saved, never the
        exception's text (operators find it in ``error`` and the workflow history); a
        reply the user has already been shown stays."""
        progress, written = self.progress, self.state.written
        problem = failure_problem(error)
        if progress.status == "replied" and progress.response:
            response = progress.response
        else:
            response = formatters.format_stopped(problem, written)
        turn = self.state.turn.turn_number
        note = f"Turn {turn} failed ({problem}). {formatters.format_done(written)}"
        ending = self._ending_with_note(note, response)
        await self.lifecycle.fail(error, response, ending)
