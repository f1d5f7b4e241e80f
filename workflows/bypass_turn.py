"""BypassTurnWorkflow: one message of a ``cook`` or ``brainstorm`` session (seed 000
"Domain Bypass Modes"), a workflow type of its own beside TurnWorkflow.

The path is short and has no pauses: open the turn as TurnWorkflow does (``open_turn``:
the conversation's working copy, the user's kitchen, the recipe an @-mention names, the
profile), one model call with the session's own history, save what the message changed
(a ``TurnEnding``). No CRUD activity exists on this path, so neither mode can write. On
exit the model's handoff lands in the conversation (``domain.bypass.after_exchange``) for
the next plan turn. Same id scheme, progress query and events as TurnWorkflow, so the API
and clients treat both alike.
"""

from __future__ import annotations

import asyncio

from temporalio import workflow
from temporalio.contrib.workflow_streams import WorkflowStream
from temporalio.exceptions import ActivityError, ApplicationError, is_cancelled_exception

with workflow.unsafe.imports_passed_through():
    from activities.model_nodes import NodeActivities
    from activities.payloads import BypassRequest
    from domain.bypass import after_exchange, open_session
    from domain.conversation import TurnEnding
    from domain.formatters import format_done
    from domain.modes import BYPASS_MODES
    from workflows.events import Done, Failed, Thinking, TurnEnded
    from workflows.interface import ProgressQuery, TurnInput, TurnOutput, TurnProgress, UserInput
    from workflows.turn_runtime import LlmCapReached, TurnRuntime, failure_kind, failure_problem


@workflow.defn(name="BypassTurnWorkflow")
class BypassTurnWorkflow:
    @workflow.init
    def __init__(self, turn: TurnInput) -> None:
        # The turn's events and streamed text, for clients (``api.streams``).
        self.rt = TurnRuntime(turn, WorkflowStream())
        self.unanswered: TurnEnding | None = None
        """What a cancel or failure saves once the turn is prepared: taken before the
        answer changes the registry (a handed-off recipe), so an unanswered message
        leaves nothing of it behind."""

    @workflow.query(name="progress")
    def progress(self, query: ProgressQuery) -> TurnProgress:
        return self.rt.view(query.after_seq)

    @workflow.signal(name="previous_turn_saved")
    def previous_turn_saved(self) -> None:
        """The turn before this one saved its state: a queued turn may go on."""
        self.rt.previous_saved = True

    @workflow.update(name="answer")
    def answer(self, user_input: UserInput) -> None:
        """Never accepted (see the validator); declared so the API gets a clear refusal."""

    @answer.validator
    def validate_answer(self, user_input: UserInput) -> None:
        raise ApplicationError(
            "a cook or brainstorm turn never waits for an answer: send a new message",
            type="not_awaiting_input",
        )

    @workflow.run
    async def run(self, turn: TurnInput) -> TurnOutput:
        rt = self.rt
        rt.versions.decide()
        rt.mark("started")
        if turn.mode not in BYPASS_MODES:
            raise ApplicationError(
                f"BypassTurnWorkflow runs {', '.join(BYPASS_MODES)}, not {turn.mode!r}",
                type="unsupported_mode",
                non_retryable=True,
            )
        rt.path = turn.mode
        try:
            await self._converse(turn)
        except (ActivityError, ApplicationError, asyncio.CancelledError) as error:
            if is_cancelled_exception(error):
                rt.progress.response = rt.progress.response or "Cancelled."
                await rt.finish(self._unanswered(), "cancelled", rt.progress.response)
                raise
            await self._fail(error)
        except LlmCapReached:
            await self._fail(ApplicationError("the turn's model-call budget is used up"))
        return rt.output()

    async def _converse(self, turn: TurnInput) -> None:
        rt = self.rt
        await rt.open()
        self.unanswered = self._unanswered().model_copy(deep=True)
        mode = turn.mode
        session = open_session(rt.state, rt.registry, mode, turn.turn_number, rt.context)
        rt.emit("thinking", Thinking(message=turn.message, mode=mode))
        result = await rt.llm(
            NodeActivities.bypass,
            BypassRequest(
                message=rt.message,
                mode=mode,
                session=session,
                context=rt.context,
                clock=rt.clock(),
            ),
            summary=f"{mode}",
        )
        output = result.output
        archive = dict(rt.state.content_archive)
        exchange = after_exchange(
            rt.registry,
            archive,
            session,
            turn=turn.turn_number,
            message=rt.message,
            output=output,
        )
        rt.progress.response = output.response
        rt.set_status("replied")
        rt.mark("replied")
        done = Done(response=output.response, mode=mode, exit=output.exit, handoff=output.handoff)
        rt.emit("done", done, attempt=result.attempt)
        await rt.mark_turn("replied", output.response)
        await rt.finish(
            rt.ending(content_archive=archive, bypass=exchange), "completed", output.response
        )
        rt.emit("context_updated", TurnEnded(turn=turn.turn_number))

    def _unanswered(self) -> TurnEnding | None:
        """The ending of a message that was not answered: what the opening registered (the
        user's changes and mentions), the session and the archive as they were; once the
        turn is open, the one taken then. None before the state was loaded (nothing to
        save)."""
        if self.unanswered is not None or not self.rt.loaded:
            return self.unanswered
        return self.rt.ending(content_archive=dict(self.rt.state.content_archive))

    async def _fail(self, error: Exception) -> None:
        rt = self.rt
        cause = error.cause if isinstance(error, ActivityError) and error.cause else error
        rt.progress.error = str(cause)
        # Our own errors are written for the user; an activity's never reaches them.
        problem = failure_problem(error) if isinstance(error, ActivityError) else str(error)
        # nothing is written on this path: the words every ending uses for that
        rt.progress.response = f"Sorry, I couldn't answer this: {problem}. {format_done(())}"
        rt.emit("error", Failed(message=rt.progress.response, kind=failure_kind(error) or "error"))
        try:
            await rt.finish(self._unanswered(), "failed", rt.progress.response)
        except ActivityError:
            workflow.logger.exception("could not record the failed turn")
        rt.set_status("failed")
