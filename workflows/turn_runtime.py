"""A turn's in-workflow state and its activity calls, with the accounting every call needs.

``TurnRuntime`` holds what the turn knows (registry, conversation state, step results,
progress for the query) and calls activities by name with the policies of
``workflows.policies``: usage and LLM calls are counted, the LLM-call cap is enforced, and
every progress event records the attempt of the activity that produced it.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, TypeVar

from pydantic import BaseModel, JsonValue
from temporalio import workflow
from temporalio.contrib.workflow_streams import WorkflowStream
from temporalio.exceptions import (
    ActivityError,
    ApplicationError,
    TimeoutError,
    is_cancelled_exception,
)

with workflow.unsafe.imports_passed_through():
    from activities.crud import CrudActivities
    from activities.llm.provider import Usage
    from activities.opening import TurnOpening
    from activities.payloads import (
        BeginTurnRequest,
        BeginTurnResult,
        CrudCallRequest,
        CrudCallResult,
        FailedCallCost,
        FinishTurnRequest,
        MarkTurnRequest,
        NodeCall,
        OpenTurnRequest,
        PrepareTurnRequest,
        PrepareTurnResult,
        PreviousTurnRequest,
        SchemaRequest,
        SchemaResult,
        StateRef,
        SummarizeResult,
    )
    from activities.preparation import TurnContextActivities
    from activities.turn_state import TurnStateActivities
    from domain.clock import Clock
    from domain.conversation import ConversationState, StepResult, TurnEnding
    from domain.entity_cards import EntityCard, entity_cards
    from domain.formatters import model_problem
    from domain.ledger import Price, add_call
    from domain.mentions import plain_text, with_refs
    from domain.nodes import ToolCall
    from domain.plan_record import PlanRecord
    from domain.registry import SessionIdRegistry
    from domain.turn_context import FreshEntity, TurnContext
    from workflows import policies
    from workflows.events import (
        ActiveContext,
        BreakerTripped,
        EventData,
        FellBack,
        Queued,
        TurnEnded,
    )
    from workflows.interface import EventType, TurnEvent, TurnInput, TurnOutput, TurnProgress
    from workflows.search_attributes import TURN_STATUS
    from workflows.versions import Versions

EVENTS = "events"
"""The workflow stream topic of the turn's events (``tokens`` carries streamed text)."""
QUEUE_RECHECK = timedelta(seconds=5)
"""How often a queued turn checks again without a wake-up (one that came too early)."""
R = TypeVar("R", bound=BaseModel)
Req = TypeVar("Req", bound=BaseModel)


@dataclass
class StoredState:
    """What the turn loaded, to tell its changes since (``TurnRuntime.state_ref``)."""

    registry: SessionIdRegistry = field(default_factory=SessionIdRegistry)
    archive: list[str] = field(default_factory=list)


class LlmCapReached(Exception):
    """The turn used its LLM-call budget: the caller ends the step or the turn honestly."""


def failure_kind(error: BaseException) -> str | None:
    """Why an activity failed for good (``invalid_output``, ``http_503``, ``timeout``...);
    None for a cancellation, which is never degraded."""
    if is_cancelled_exception(error) or not isinstance(error, ActivityError):
        return None
    cause = error.cause
    if isinstance(cause, ApplicationError):
        # A 429 reaches the turn once its retries are over: its Retry-After went past the
        # call's schedule-to-close timeout (the server does not wait), or its attempts ran out.
        return "rate_limited" if cause.type == "http_429" else cause.type or "error"
    if isinstance(cause, TimeoutError):
        return "timeout"
    return "error"


def failure_wait(error: BaseException) -> float | None:
    """Seconds the model asked to be left alone (its Retry-After) in the failure that ended
    the call; None when it did not say."""
    cause = error.cause if isinstance(error, ActivityError) else None
    if isinstance(cause, ApplicationError) and cause.next_retry_delay:
        return cause.next_retry_delay.total_seconds()
    return None


MODEL_ACTIVITIES = frozenset(
    {"understand", "think", "act", "act_quick", "reply", "summarize", "bypass"}
)


def failure_problem(error: BaseException) -> str:
    """Why the turn stopped, in words a user can read (never the exception's text)."""
    kind = failure_kind(error)
    if kind is not None and getattr(error, "activity_type", None) in MODEL_ACTIVITIES:
        return model_problem(kind, failure_wait(error))
    return "something went wrong on my side"


class TurnRuntime:
    def __init__(self, turn: TurnInput, stream: WorkflowStream | None = None) -> None:
        self.turn = turn
        self.stream = stream
        """The workflow's event stream: every event is published on its ``events`` topic,
        beside the Act's and Reply's streamed text (``tokens``, from the activities)."""
        self.progress = TurnProgress(turn_number=turn.turn_number)
        self.registry = SessionIdRegistry()
        self.registry_turns = asyncio.Lock()
        """Held by a CRUD call from the registry it reads to its delta applied: concurrent
        steps' calls take turns, so no two of them number a ref from the same counters."""
        self.state = ConversationState()
        self.version = 0
        self.step_results: dict[int, StepResult] = {}
        self.timings: dict[str, str] = {}
        self.context = TurnContext()
        """Profile, dashboard and fresh rows (``open_turn``'s read)."""
        self.familiar: list[str] = []
        """Refs of ``context.delete_candidates`` the last two turns referenced."""
        self.message = plain_text(turn.message)
        """The message as every model reads it: mentions as label and ref (``prepare``)."""
        self.versions = Versions()
        """Which control-flow changes this run follows (``workflows.versions``)."""
        self.previous_saved = False
        """Set by the ``previous_turn_saved`` signal: the turn before this one has saved."""
        self.loaded = False
        """The conversation state is loaded: an ending saves it (before, only the row)."""
        self.stored = StoredState()
        """The registry and archive keys as loaded: model activities read the saved state
        themselves and get only the turn's changes since (``state_ref``)."""
        self.path = "none"
        """What the turn did, for the turns metric: plan, quick, ask, cook, brainstorm, none."""
        self.written: list[str] = []
        """A sentence per write this turn made (``Added 2 items to the inventory: milk,
        eggs.``), from the write's own result: what an ending without a model can report."""

    @property
    def workflow_id(self) -> str:
        return workflow.info().workflow_id

    # --- progress ------------------------------------------------------------------------

    def emit(self, type_: EventType, data: EventData, *, attempt: int = 1) -> None:
        seq = len(self.progress.events) + 1
        event = TurnEvent(seq=seq, type=type_, attempt=attempt, data=data)
        self.progress.events.append(event)
        if self.stream is not None:
            self.stream.topic(EVENTS).publish(event.model_dump(mode="json"))

    def view(self, after_seq: int) -> TurnProgress:
        """The progress query's answer: everything, but only the events after ``after_seq``."""
        view = self.progress.model_copy()
        view.events = [e for e in self.progress.events if e.seq > after_seq]
        return view

    def set_status(self, status: str) -> None:
        """The turn's status, for the progress query and the TurnStatus search attribute."""
        self.progress.status = status  # type: ignore[assignment]
        workflow.upsert_search_attributes([TURN_STATUS.value_set(status)])

    # --- metrics (the SDK's workflow meter: nothing is recorded while replaying) ----------

    def count_turn(self, status: str) -> None:
        workflow.metric_meter().create_counter(
            "alfred_turns", "turns ended, by status and path"
        ).add(1, {"status": status, "path": self.path})

    def record_wait(self, kind: str, outcome: str, seconds: float) -> None:
        workflow.metric_meter().create_histogram_float(
            "alfred_pause_wait", "how long pauses waited for the user", "s"
        ).record(seconds, {"kind": kind, "outcome": outcome})

    def trip(self, kind: str, detail: str) -> None:
        """Record a tripped circuit breaker (kept in progress, the summary and the reply)."""
        workflow.metric_meter().create_counter(
            "alfred_breakers", "circuit breakers tripped, by kind"
        ).add(1, {"kind": kind})
        self.progress.breakers.append(f"{kind}: {detail}")
        self.emit("breaker", BreakerTripped(kind=kind, detail=detail))
        workflow.logger.info("breaker %s tripped: %s", kind, detail)

    def show_context(self) -> list[EntityCard]:
        """Emit ``active_context``: the entity cards in context now (seed 000); returns them."""
        cards = entity_cards(self.registry)
        self.emit("active_context", ActiveContext(data=cards))
        return cards

    def clock(self) -> Clock:
        """Now, in the user's timezone: every node request carries it (``domain.clock``)."""
        return Clock(now=workflow.now(), timezone=self.context.timezone)

    def degraded(self, error: BaseException) -> str:
        """The failure kind of a model call the turn goes on without; re-raises ``error``
        when it must end the turn instead (a cancellation)."""
        kind = failure_kind(error)
        if kind is None:
            raise error
        return kind

    def fallback(self, where: str, kind: str) -> None:
        """Record that ``where`` went on without a model answer (progress, events, the
        Temporal UI's current details)."""
        self.progress.fallbacks.append(f"{where}: {kind}")
        self.emit("fallback", FellBack(where=where, kind=kind))
        workflow.logger.warning("%s went on without the model: %s", where, kind)
        self.show_details()

    def show_details(self) -> None:
        """Repairs and fallbacks, where the Temporal UI shows a running workflow's state."""
        repairs = self.progress.usage.repairs
        if not repairs and not self.progress.fallbacks:
            return
        lines = [f"**model repairs:** {repairs}"]
        lines += [f"- fallback: {f}" for f in self.progress.fallbacks]
        workflow.set_current_details("\n".join(lines))

    def mark(self, time_name: str) -> None:
        self.timings[time_name] = workflow.now().isoformat()

    # --- calls ---------------------------------------------------------------------------

    @property
    def llm_budget_left(self) -> int:
        return self.turn.limits.max_llm_calls - self.progress.llm_calls

    async def llm(
        self,
        activity: Callable[[Any, Req], Awaitable[R]],
        request: Req,
        summary: str,
        *,
        budgeted: bool = True,
    ) -> R:
        """Call a model activity by reference (``NodeActivities.understand``): the SDK takes
        its name and result type from the method. ``budgeted`` calls count one model call
        up front and are refused once the turn's budget is spent; every call adds its
        usage and the calls it reports (repairs, Summarize's own calls)."""
        if budgeted:
            if self.llm_budget_left <= 0:
                raise LlmCapReached(activity.__name__)
            self.progress.llm_calls += 1
        try:
            result = await workflow.execute_activity_method(
                activity,
                request,
                summary=summary,
                **policies.llm(self.turn.limits.llm_timeout_seconds),
            )
        except ActivityError as error:
            self._count_failed(activity.__name__, error)
            raise
        if isinstance(result, NodeCall):
            self.progress.usage = self.progress.usage + result.usage
            self.progress.llm_calls += result.llm_attempts - 1
            self._ledger(
                activity.__name__, result.model, result.price, result.llm_attempts, result.usage
            )
            if result.llm_attempts > 1:
                self.show_details()
        elif isinstance(result, SummarizeResult):
            self.progress.usage = self.progress.usage + result.usage
            self.progress.llm_calls += result.llm_calls
            for call in result.calls:
                self._ledger("summarize", call.model, call.price, call.llm_attempts, call.usage)
        return result

    def _ledger(
        self,
        node: str,
        model: str,
        price: Price | None,
        calls: int,
        usage: Usage,
        *,
        failed: bool = False,
    ) -> None:
        """Put a call on the ledger at the price the activity charged it (``price``)."""
        add_call(
            self.progress.ledger,
            node,
            model or "unknown",
            price=price,
            calls=calls,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            repairs=usage.repairs,
            failed=failed,
        )

    def _count_failed(self, node: str, error: ActivityError) -> None:
        """A model call that failed still cost its outputs and repairs: count them, and put
        them on the ledger as failed calls at the price they were charged."""
        cause = error.cause
        if not isinstance(cause, ApplicationError) or not cause.details:
            return
        try:
            cost = FailedCallCost.model_validate(cause.details[0])
        except ValueError:
            return
        self.progress.usage = self.progress.usage + cost
        self.progress.llm_calls += cost.repairs
        self._ledger(node, cost.model, cost.price, cost.repairs + 1, cost, failed=True)

    async def local(
        self, activity: Callable[[Any, Req], Awaitable[R]], request: Req, summary: str
    ) -> R:
        """A short, idempotent database activity, by reference, run as a local activity."""
        return await workflow.execute_local_activity_method(
            activity, request, summary=summary, **policies.DB
        )

    async def crud(self, call: ToolCall, *, key: str, step: int | None) -> CrudCallResult:
        """A CRUD call in the turn's registry. Concurrent steps' calls take turns (held from
        the registry a call reads to its delta applied): refs are numbered in call order."""
        async with self.registry_turns:  # taken at once when no other step holds it
            result = await self.local(
                CrudActivities.crud,
                CrudCallRequest(
                    user_id=self.turn.user_id,
                    call=call,
                    state_ref=self.state_ref(),
                    idempotency_key=key,
                    step=step,
                ),
                summary=f"{call.tool} {call.params.get('table', '?')}",
            )
            self.registry.apply_delta(result.registry_delta)  # only the changes crossed
        return result

    async def schema(self, subdomain: str) -> SchemaResult:
        return await self.local(
            CrudActivities.fetch_schema,
            SchemaRequest(subdomain=subdomain),
            summary=f"schema {subdomain}",
        )

    async def mark_turn(self, status: str, response: str | None = None) -> None:
        plan = self.plan_record()
        await self.local(
            TurnStateActivities.mark_turn,
            MarkTurnRequest(
                conversation_id=self.turn.conversation_id,
                user_id=self.turn.user_id,
                turn_number=self.turn.turn_number,
                status=status,
                response=response,
                plan=plan,
                usage=self.progress.usage,
                ledger=self.progress.ledger,
            ),
            summary=f"turn {status}",
        )

    async def open(self) -> None:
        """Open the turn with one local activity (``open_turn``): the turn before has saved,
        this turn's row is started and its working copy loaded, the pre-processing read is
        done. A queued turn (the one before has not saved) loads nothing: it waits, woken by
        that turn's save (the ``previous_turn_saved`` signal) or after a few seconds in case
        the wake-up came before this workflow existed, then asks again."""
        turn = self.turn
        while True:
            self.previous_saved = False
            opened = await self.local(
                TurnOpening.open_turn,
                OpenTurnRequest(
                    previous=self._previous_request() if turn.turn_number > 1 else None,
                    begin=self._begin_request(),
                    prepare=self._prepare_request(state_ref=None),
                ),
                summary="open the turn: previous saved, load, profile, dashboard, mentions",
            )
            if opened.begun is not None:
                if self.progress.status == "queued":
                    self.set_status("running")
                self._loaded(opened.begun)
                if opened.prepared is None:  # the read failed after the turn began
                    await self.prepare()
                else:
                    self._prepared(opened.prepared)
                return
            await self._queued()

    def _previous_request(self) -> PreviousTurnRequest:
        return PreviousTurnRequest(
            conversation_id=self.turn.conversation_id,
            user_id=self.turn.user_id,
            turn_number=self.turn.turn_number,
        )

    async def _queued(self) -> None:
        """Wait (queued) for the previous turn's save signal, or a few seconds."""
        if self.progress.status != "queued":
            self.set_status("queued")
            self.emit("queued", Queued(after_turn=self.turn.turn_number - 1))
        try:
            await workflow.wait_condition(
                lambda: self.previous_saved,
                timeout=QUEUE_RECHECK,
                timeout_summary="queued: check again",
            )
        except builtins.TimeoutError:  # ``TimeoutError`` here is Temporal's
            pass  # check again

    def _begin_request(self) -> BeginTurnRequest:
        turn = self.turn
        return BeginTurnRequest(
            conversation_id=turn.conversation_id,
            user_id=turn.user_id,
            turn_number=turn.turn_number,
            workflow_id=self.workflow_id,
            message=turn.message,
        )

    def _loaded(self, begun: BeginTurnResult) -> None:
        self.state, self.version = begun.state, begun.version
        self.loaded = True
        self.stored = StoredState(
            registry=begun.state.registry, archive=list(begun.state.content_archive)
        )
        self.registry = begun.state.registry.clone()
        self.registry.begin_turn(self.turn.turn_number)

    def state_ref(self, archive: dict[str, JsonValue] | None = None) -> StateRef:
        """The state a model activity reads, by reference: the version this turn loaded and
        what the turn changed since (in its registry; in ``archive``, or the turn's content
        archive)."""
        now = self.state.content_archive if archive is None else archive
        stored = dict.fromkeys(self.stored.archive)
        return StateRef(
            user_id=self.turn.user_id,
            conversation_id=self.turn.conversation_id,
            version=self.version,
            registry=self.registry.delta_since(self.stored.registry),
            archived=[k for k in now if k not in stored],
            unarchived=[k for k in self.stored.archive if k not in now],
        )

    async def prepare(self) -> None:
        """Seed 000's pre-processing on its own, when ``open_turn``'s read failed after the
        turn began: UI changes and @-mentions get refs and fresh data, and the profile and
        kitchen dashboard are loaded, before any node runs."""
        prepared = await self.local(
            TurnContextActivities.prepare_turn,
            self._prepare_request(state_ref=self.state_ref()),
            summary="load profile, dashboard, changes and mentions",
        )
        self._prepared(prepared)

    def _prepare_request(self, *, state_ref: StateRef | None) -> PrepareTurnRequest:
        turn = self.turn
        return PrepareTurnRequest(
            user_id=turn.user_id,
            message=turn.message,
            today=workflow.now().date(),
            now=workflow.now(),
            ui_changes=[
                FreshEntity(table=c.table, id=c.id, action=f"{c.action}:user")
                for c in turn.ui_changes
            ],
            state_ref=state_ref,
        )

    def _prepared(self, prepared: PrepareTurnResult) -> None:
        turn = self.turn
        self.context = prepared.context
        if prepared.known is not None:  # the named rows' refs, where the copy lacks them
            self.registry.adopt(prepared.known)
        refs: dict[tuple[str, str], str] = {}
        for entity in self.context.entities:
            try:
                entity.ref = self.registry.register_from_ui(
                    entity.id, entity.table, entity.data, entity.action
                )
            except ValueError:
                workflow.logger.warning("ignored %s of %s", entity.action, entity.table)
                continue
            refs[(entity.table, entity.id)] = entity.ref
            if entity.data is not None:  # the model sees refs, never the row's UUIDs
                (entity.data,) = self.registry.translate_read_output(
                    [entity.data], entity.table, action=entity.action
                )
        self.message = with_refs(turn.message, refs)
        recent = turn.turn_number - 2
        for entity in self.context.delete_candidates:
            known = self.registry.ref_of(entity.id)
            if known is not None and (self.registry.last_referenced(known) or 0) >= recent:
                self.familiar.append(known)
            if entity.data is not None:
                (row,) = self.registry.translate_read_output([entity.data], entity.table)
                entity.ref, entity.data = str(row["id"]), row

    def ending(self, **fields: Any) -> TurnEnding:
        """What the turn leaves (``TurnEnding``): its registry changes and ``fields``."""
        return TurnEnding(registry=self.registry.delta_since(self.stored.registry), **fields)

    async def finish(self, ending: TurnEnding | None, status: str, response: str | None) -> None:
        """Save what the turn leaves behind (``ending``, applied to the saved state) and its
        final status. A turn that ends before it loaded the state (a queued one cancelled
        while it waited) has nothing to save (``ending`` None): only its row gets the
        status."""
        self.mark(status)
        if ending is None:
            await self.mark_turn(status, response)
            self.count_turn(status)
            self.set_status(status)
            if status in ("expired", "cancelled"):
                self.emit(status, TurnEnded(turn=self.turn.turn_number))
            return
        finished = await self.local(
            TurnStateActivities.finish_turn,
            FinishTurnRequest(
                conversation_id=self.turn.conversation_id,
                user_id=self.turn.user_id,
                turn_number=self.turn.turn_number,
                expected_version=self.version,
                ending=ending,
                status=status,
                response=response,
                plan=self.plan_record(),
                usage=self.progress.usage,
                ledger=self.progress.ledger,
                timings=dict(self.timings),
            ),
            summary=f"save conversation ({status})",
        )
        self.version = finished.version
        self.count_turn(status)  # once saved: a save that fails is counted by the ending after
        self.set_status(status)
        if status in ("expired", "cancelled"):
            self.emit(status, TurnEnded(turn=self.turn.turn_number))

    def output(self) -> TurnOutput:
        """The workflow's result; a failed turn fails the workflow (non-retryable)."""
        progress = self.progress
        if progress.status == "failed":
            raise ApplicationError(
                f"turn failed: {progress.error}", type="turn_failed", non_retryable=True
            )
        return TurnOutput(
            status=progress.status,
            response=progress.response,
            usage=progress.usage,
            llm_calls=progress.llm_calls,
            breakers=progress.breakers,
            fallbacks=progress.fallbacks,
        )

    def plan_record(self) -> PlanRecord | None:
        """What the turn's row keeps of its progress, so the turn reads the same after it
        ends as while it ran: the goal, the plan, its steps, breakers, fallbacks, calls."""
        progress = self.progress
        if progress.plan is None and not progress.fallbacks and not progress.llm_calls:
            return None
        return PlanRecord(
            goal=progress.goal,
            plan=list(progress.plan) if progress.plan else None,
            steps=list(progress.steps),
            breakers=list(progress.breakers),
            fallbacks=list(progress.fallbacks),
            llm_calls=progress.llm_calls,
        )
