"""Opening and closing a turn, alike in TurnWorkflow and BypassTurnWorkflow.

``start`` decides the control-flow changes a run follows (``workflows.versions``), before
anything else. ``open`` waits, queued, until the turn before has saved, then loads the
conversation's working copy and reads the profile, dashboard and mentioned rows (one
local activity, ``open_turn``). ``mark_turn`` records the turn's status on its row while
it runs; ``finish`` saves what the turn leaves (a ``TurnEnding``) with its final status;
``fail`` is the ending of a turn that cannot go on.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

from workflows.activity_calls import Calls, failure_kind
from workflows.progress import ProgressLog
from workflows.state import Stored, TurnState

with workflow.unsafe.imports_passed_through():
    from activities.opening import TurnOpening
    from activities.payloads import (
        BeginTurnRequest,
        BeginTurnResult,
        FinishTurnRequest,
        MarkTurnRequest,
        OpenTurnRequest,
        PrepareTurnRequest,
        PrepareTurnResult,
        PreviousTurnRequest,
        StateRef,
    )
    from activities.preparation import TurnContextActivities
    from activities.turn_state import TurnStateActivities
    from domain.conversation import TurnEnding
    from domain.mentions import with_refs
    from domain.turn_context import FreshEntity
    from workflows.events import Failed, Queued, TurnEnded

QUEUE_RECHECK = timedelta(seconds=5)
"""How often a queued turn checks again without a wake-up (one that came too early)."""


class Lifecycle:
    def __init__(self, state: TurnState, log: ProgressLog, calls: Calls) -> None:
        self.state = state
        self.log = log
        self.calls = calls

    def start(self) -> None:
        """First thing in ``@workflow.run``, before any ``await``."""
        self.state.versions.decide()
        self.log.mark("started")

    # --- opening ---------------------------------------------------------------------------

    async def open(self) -> None:
        """Open the turn with one local activity (``open_turn``): the turn before has saved,
        this turn's row is started and its working copy loaded, the pre-processing read is
        done. A queued turn (the one before has not saved) loads nothing: it waits, woken by
        that turn's save (the ``previous_turn_saved`` signal) or after a few seconds in case
        the wake-up came before this workflow existed, then asks again."""
        turn = self.state.turn
        while True:
            self.state.previous_saved = False
            opened = await self.calls.local(
                TurnOpening.open_turn,
                OpenTurnRequest(
                    previous=PreviousTurnRequest(
                        conversation_id=turn.conversation_id,
                        user_id=turn.user_id,
                        turn_number=turn.turn_number,
                    )
                    if turn.turn_number > 1
                    else None,
                    begin=BeginTurnRequest(
                        conversation_id=turn.conversation_id,
                        user_id=turn.user_id,
                        turn_number=turn.turn_number,
                        workflow_id=workflow.info().workflow_id,
                        message=turn.message,
                    ),
                    prepare=self._prepare_request(state_ref=None),
                ),
                summary="open the turn: previous saved, load, profile, dashboard, mentions",
            )
            if opened.begun is not None:
                if self.state.progress.status == "queued":
                    self.log.set_status("running")
                self._loaded(opened.begun)
                if opened.prepared is None:  # the read failed after the turn began
                    await self._prepare()
                else:
                    self._prepared(opened.prepared)
                return
            await self._queued()

    async def _queued(self) -> None:
        """Wait (queued) for the previous turn's save signal, or a few seconds."""
        if self.state.progress.status != "queued":
            self.log.set_status("queued")
            self.log.emit("queued", Queued(after_turn=self.state.turn.turn_number - 1))
        try:
            await workflow.wait_condition(
                lambda: self.state.previous_saved,
                timeout=QUEUE_RECHECK,
                timeout_summary="queued: check again",
            )
        except TimeoutError:
            pass  # check again

    def _loaded(self, begun: BeginTurnResult) -> None:
        state = self.state
        state.conversation, state.version = begun.state, begun.version
        state.stored = Stored(
            registry=begun.state.registry, archive=list(begun.state.content_archive)
        )
        state.registry = begun.state.registry.clone()
        state.registry.begin_turn(state.turn.turn_number)

    async def _prepare(self) -> None:
        """Seed 000's pre-processing on its own, when ``open_turn``'s read failed after the
        turn began: UI changes and @-mentions get refs and fresh data, and the profile and
        kitchen dashboard are loaded, before any node runs."""
        prepared = await self.calls.local(
            TurnContextActivities.prepare_turn,
            self._prepare_request(state_ref=self.state.state_ref()),
            summary="load profile, dashboard, changes and mentions",
        )
        self._prepared(prepared)

    def _prepare_request(self, *, state_ref: StateRef | None) -> PrepareTurnRequest:
        turn = self.state.turn
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
        """The read's rows registered (UI changes, mentions, delete candidates): the model
        sees refs, never the rows' UUIDs; the message names them by label and ref."""
        state, registry = self.state, self.state.registry
        state.context = prepared.context
        if prepared.known is not None:  # the named rows' refs, where the copy lacks them
            registry.adopt(prepared.known)
        refs: dict[tuple[str, str], str] = {}
        for entity in state.context.entities:
            try:
                entity.ref = registry.register_from_ui(
                    entity.id, entity.table, entity.data, entity.action
                )
            except ValueError:
                workflow.logger.warning("ignored %s of %s", entity.action, entity.table)
                continue
            refs[(entity.table, entity.id)] = entity.ref
            if entity.data is not None:
                (entity.data,) = registry.translate_read_output(
                    [entity.data], entity.table, action=entity.action
                )
        state.said[0] = with_refs(state.turn.message, refs)
        recent = state.turn.turn_number - 2
        for entity in state.context.delete_candidates:
            known = registry.ref_of(entity.id)
            if known is not None and (registry.last_referenced(known) or 0) >= recent:
                state.familiar.append(known)
            if entity.data is not None:
                (row,) = registry.translate_read_output([entity.data], entity.table)
                entity.ref, entity.data = str(row["id"]), row

    # --- closing ---------------------------------------------------------------------------

    async def mark_turn(self, status: str, response: str | None = None) -> None:
        """The turn's status and response on its row while it runs (a pause, a reply)."""
        turn, progress = self.state.turn, self.state.progress
        await self.calls.local(
            TurnStateActivities.mark_turn,
            MarkTurnRequest(
                conversation_id=turn.conversation_id,
                user_id=turn.user_id,
                turn_number=turn.turn_number,
                status=status,
                response=response,
                plan=self.log.plan_record(),
                usage=progress.usage,
                ledger=progress.ledger,
            ),
            summary=f"turn {status}",
        )

    async def finish(self, ending: TurnEnding | None, status: str, response: str | None) -> None:
        """Save what the turn leaves behind (``ending``, applied to the saved state) and its
        final status. A turn that ends before it loaded the state (a queued one cancelled
        while it waited) has nothing to save (``ending`` None): only its row gets the
        status."""
        state, progress = self.state, self.state.progress
        self.log.mark(status)
        if ending is None:
            await self.mark_turn(status, response)
        else:
            finished = await self.calls.local(
                TurnStateActivities.finish_turn,
                FinishTurnRequest(
                    conversation_id=state.turn.conversation_id,
                    user_id=state.turn.user_id,
                    turn_number=state.turn.turn_number,
                    expected_version=state.version,
                    ending=ending,
                    status=status,
                    response=response,
                    plan=self.log.plan_record(),
                    usage=progress.usage,
                    ledger=progress.ledger,
                    timings=dict(state.timings),
                ),
                summary=f"save conversation ({status})",
            )
            state.version = finished.version
        self.log.count_turn(status)  # once saved: a save that fails is counted by the ending after
        self.log.set_status(status)
        if status in ("expired", "cancelled"):
            self.log.emit(status, TurnEnded(turn=state.turn.turn_number))

    async def fail(self, error: Exception, response: str, ending: TurnEnding | None) -> None:
        """The turn cannot go on: the error for operators (``progress.error`` and the
        workflow history), ``response`` for the user, ``ending`` saved if it can be."""
        progress = self.state.progress
        cause = error.cause if isinstance(error, ActivityError) and error.cause else error
        progress.error = str(cause)
        progress.pending = None
        self.log.emit("error", Failed(message=response, kind=failure_kind(error) or "error"))
        progress.response = response
        try:
            await self.finish(ending, "failed", response)
        except ActivityError:
            workflow.logger.exception("could not record the failed turn")
        self.log.set_status("failed")
