"""Loading and saving a turn's conversation state, and Summarize's compressions."""

from __future__ import annotations

from typing import Any

from temporalio import activity
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from activities.failures import to_application_error
from activities.llm.gateway import LlmGateway
from activities.llm.provider import Usage
from activities.model_nodes import call_node
from activities.payloads import (
    BeginTurnRequest,
    BeginTurnResult,
    FinishTurnRequest,
    FinishTurnResult,
    MarkTurnRequest,
    MarkTurnResult,
    NodeCall,
    PreviousTurnRequest,
    PreviousTurnResult,
    SummarizeRequest,
    SummarizeResult,
)
from activities.saved_state import SavedStates
from domain import context, turn_store
from domain.conversation import (
    SummaryParts,
    as_said,
    leaving_turn,
    summarize_assistant_message,
)
from domain.errors import DomainError
from domain.ledger import LedgerLine
from domain.nodes import CompressOutput, SummarizeOutput
from domain.prompts import render

PREVIOUS_SAVED = "previous_turn_saved"
"""The signal a queued turn waits for (``workflows.lifecycle.Lifecycle.open``)."""


class TurnStateActivities:
    def __init__(
        self,
        sessions: turn_store.Sessions,
        gateway: LlmGateway,
        client: Client | None = None,
        states: SavedStates | None = None,
    ) -> None:
        self.sessions = sessions
        self.states = states or SavedStates(sessions)
        """Saved conversation states, for Summarize's request by reference."""
        self.gateway = gateway
        self.client = client
        """Temporal, to wake the turn queued behind a finished one and to see whether a
        turn's workflow is gone (without it a queued turn finds out by checking again)."""

    async def previous_turn(self, request: PreviousTurnRequest) -> PreviousTurnResult:
        """Whether the turn before this one has saved its state (``open_turn``'s first part).
        A turn left busy by a workflow that is gone (terminated, timed out) is ended here, so
        the queue moves."""
        attempt = activity.info().attempt
        previous = await turn_store.previous_turn(
            self.sessions, request.user_id, request.conversation_id, request.turn_number
        )
        if previous is None or previous.status in turn_store.TERMINAL:
            status = previous.status if previous is not None else ""
            return PreviousTurnResult(settled=True, previous_status=status, attempt=attempt)
        if self.client is not None and await _gone(self.client, previous.workflow_id):
            await turn_store.end_abandoned_turn(
                self.sessions,
                request.user_id,
                previous,
                status="failed",
                reason="its workflow ended before it saved its result",
            )
            return PreviousTurnResult(settled=True, previous_status="failed", attempt=attempt)
        return PreviousTurnResult(settled=False, previous_status=previous.status, attempt=attempt)

    async def _wake_next(self, request: FinishTurnRequest) -> None:
        """Tell the turn queued behind this one (if any) that the state is saved."""
        if self.client is None:
            return
        next_id = turn_store.turn_workflow_id(request.conversation_id, request.turn_number + 1)
        try:
            await self.client.get_workflow_handle(next_id).signal(PREVIOUS_SAVED)
        except RPCError:
            pass  # no queued turn (yet): it checks the saved state when it starts

    async def begin_turn(self, request: BeginTurnRequest) -> BeginTurnResult:
        """Start the turn's row and load its working copy (``open_turn``'s second part)."""
        try:
            state, version = await turn_store.start_turn(
                self.sessions,
                user_id=request.user_id,
                conversation_id=request.conversation_id,
                turn_number=request.turn_number,
                workflow_id=request.workflow_id,
                message=request.message,
            )
        except DomainError as error:
            raise to_application_error(error) from None
        self.states.remember(request.user_id, request.conversation_id, version, state)
        state = state.for_workflow(request.turn_number)
        return BeginTurnResult(state=state, version=version, attempt=activity.info().attempt)

    @activity.defn(name="mark_turn")
    async def mark_turn(self, request: MarkTurnRequest) -> MarkTurnResult:
        await turn_store.set_turn_status(
            self.sessions,
            user_id=request.user_id,
            conversation_id=request.conversation_id,
            turn_number=request.turn_number,
            status=request.status,
            response=request.response,
            plan=request.plan,
            usage=_usage(request.usage, request.ledger) if request.usage else None,
        )
        return MarkTurnResult(attempt=activity.info().attempt)

    @activity.defn(name="summarize")
    async def summarize(self, request: SummarizeRequest) -> SummarizeResult:
        """Record the turn in the conversation; compress with the model where it pays."""
        record = request.record.model_copy()
        summary = request.summary.model_copy()
        state, registry = await self.states.read(request.state_ref)
        state = state.model_copy(update={"registry": registry.for_prompt()})
        usage, calls, model = Usage(), 0, ""
        charged: list[NodeCall] = []
        if request.use_llm:
            output, call = await call_node(
                self.gateway,
                "summarize",
                render("summarize"),
                context.summarize_context(
                    record.user_message,
                    record.assistant_response,
                    state,
                    request.step_results,
                    summary.written,
                ),
                facts=request,
            )
            parsed = SummarizeOutput.model_validate(output)
            record.assistant_summary = parsed.assistant_summary
            summary.conversation_phase = parsed.conversation_phase
            summary.user_expressed = parsed.user_expressed
            usage, calls, model = usage + call.usage, calls + 1, call.model
            charged.append(call)
            engagement = parsed.engagement_summary
        else:
            record.assistant_summary = summarize_assistant_message(record.assistant_response)
            engagement = state.engagement_summary
        evicted = leaving_turn(state)  # the workflow records the turn itself
        compressed = None
        if evicted is not None:
            if request.use_llm:
                output, call = await call_node(
                    self.gateway,
                    "compress",
                    render("compress"),
                    context.compress_context(evicted.user_message, evicted.assistant_summary),
                )
                compressed = CompressOutput.model_validate(output).summary
                usage, calls = usage + call.usage, calls + 1
                charged.append(call)
            else:
                compressed = as_said(evicted)
        parts = SummaryParts(
            assistant_summary=record.assistant_summary,
            engagement_summary=engagement,
            conversation_phase=summary.conversation_phase,
            user_expressed=summary.user_expressed,
            compressed=compressed,
        )
        return SummarizeResult(
            parts=parts,
            usage=usage,
            model=model,
            llm_calls=calls,
            calls=charged,
            attempt=activity.info().attempt,
        )

    @activity.defn(name="finish_turn")
    async def finish_turn(self, request: FinishTurnRequest) -> FinishTurnResult:
        try:
            version = await turn_store.finish_turn(
                self.sessions,
                user_id=request.user_id,
                conversation_id=request.conversation_id,
                turn_number=request.turn_number,
                expected_version=request.expected_version,
                state=request.ending,
                status=request.status,
                response=request.response,
                plan=request.plan,
                usage=_usage(request.usage, request.ledger),
                timings=request.timings,
            )
        except DomainError as error:
            raise to_application_error(error) from None
        await self._wake_next(request)
        return FinishTurnResult(version=version, attempt=activity.info().attempt)


def _usage(usage: Usage, ledger: list[LedgerLine]) -> dict[str, Any]:
    """A turn's usage as its row keeps it: the totals, and ``by_node`` with the price each
    line was charged at and its cost (reads sum them and never price again)."""
    return {**usage.model_dump(), "by_node": [line.model_dump() for line in ledger]}


async def _gone(client: Client, workflow_id: str) -> bool:
    """The workflow is closed, or was never started: nobody will finish its turn."""
    try:
        described = await client.get_workflow_handle(workflow_id).describe()
    except RPCError as error:
        return error.status == RPCStatusCode.NOT_FOUND
    return described.status not in (None, WorkflowExecutionStatus.RUNNING)
