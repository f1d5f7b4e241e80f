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

from workflows.activity_calls import Calls, LlmCapReached, failure_problem
from workflows.lifecycle import Lifecycle
from workflows.progress import ProgressLog
from workflows.state import TurnState

with workflow.unsafe.imports_passed_through():
    from activities.model_nodes import NodeActivities
    from activities.payloads import BypassRequest
    from domain.bypass import after_exchange, open_session
    from domain.conversation import TurnEnding
    from domain.formatters import format_done
    from domain.modes import BYPASS_MODES
    from workflows.events import Done, Thinking, TurnEnded
    from workflows.interface import ProgressQuery, TurnInput, TurnOutput, TurnProgress, UserInput


@workflow.defn(name="BypassTurnWorkflow")
class BypassTurnWorkflow:
    @workflow.init
    def __init__(self, turn: TurnInput) -> None:
        self.state = TurnState.of(turn)
        self.log = ProgressLog(self.state, WorkflowStream())  # events and text for clients
        self.calls = Calls(self.state, self.log)
        self.lifecycle = Lifecycle(self.state, self.log, self.calls)
        self.unanswered: TurnEnding | None = None
        """What a cancel or failure saves once the turn is prepared: taken before the
        answer changes the registry (a handed-off recipe), so an unanswered message
        leaves nothing of it behind."""

    @workflow.query(name="progress")
    def progress(self, query: ProgressQuery) -> TurnProgress:
        return self.log.view(query.after_seq)

    @workflow.signal(name="previous_turn_saved")
    def previous_turn_saved(self) -> None:
        """The turn before this one saved its state: a queued turn may go on."""
        self.state.previous_saved = True

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
        self.lifecycle.start()
        if turn.mode not in BYPASS_MODES:
            raise ApplicationError(
                f"BypassTurnWorkflow runs {', '.join(BYPASS_MODES)}, not {turn.mode!r}",
                type="unsupported_mode",
                non_retryable=True,
            )
        progress = self.state.progress
        try:
            await self._converse(turn)
        except (ActivityError, ApplicationError, asyncio.CancelledError) as error:
            if is_cancelled_exception(error):
                progress.response = progress.response or "Cancelled."
                await self.lifecycle.finish(self._unanswered(), "cancelled", progress.response)
                raise
            await self._fail(error)
        except LlmCapReached:
            await self._fail(ApplicationError("the turn's model-call budget is used up"))
        return self.log.output()

    async def _converse(self, turn: TurnInput) -> None:
        state, log = self.state, self.log
        await self.lifecycle.open()
        self.unanswered = self._unanswered().model_copy(deep=True)
        mode = state.mode
        session = open_session(
            state.conversation, state.registry, mode, turn.turn_number, state.context
        )
        log.emit("thinking", Thinking(message=turn.message, mode=mode))
        result = await self.calls.llm(
            NodeActivities.bypass,
            BypassRequest(
                message=state.message,
                mode=mode,
                session=session,
                context=state.context,
                clock=state.clock(),
            ),
            summary=f"{mode}",
        )
        output = result.output
        archive = dict(state.conversation.content_archive)
        exchange = after_exchange(
            state.registry,
            archive,
            session,
            turn=turn.turn_number,
            message=state.message,
            output=output,
        )
        state.progress.response = output.response
        log.set_status("replied")
        log.mark("replied")
        done = Done(response=output.response, mode=mode, exit=output.exit, handoff=output.handoff)
        log.emit("done", done, attempt=result.attempt)
        await self.lifecycle.mark_turn("replied", output.response)
        ending = state.ending(content_archive=archive, bypass=exchange)
        await self.lifecycle.finish(ending, "completed", output.response)
        log.emit("context_updated", TurnEnded(turn=turn.turn_number))

    def _unanswered(self) -> TurnEnding | None:
        """The ending of a message that was not answered: what the opening registered (the
        user's changes and mentions), the session and the archive as they were; once the
        turn is open, the one taken then. None before the state was loaded (nothing to
        save)."""
        if self.unanswered is not None or not self.state.loaded:
            return self.unanswered
        return self.state.ending(content_archive=dict(self.state.conversation.content_archive))

    async def _fail(self, error: Exception) -> None:
        # Our own errors are written for the user; an activity's never reaches them.
        problem = failure_problem(error) if isinstance(error, ActivityError) else str(error)
        # nothing is written on this path: the words every ending uses for that
        response = f"Sorry, I couldn't answer this: {problem}. {format_done(())}"
        await self.lifecycle.fail(error, response, self._unanswered())
