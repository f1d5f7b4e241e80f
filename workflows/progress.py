"""The turn's progress log: what a client and an operator see while the turn runs.

``ProgressLog`` writes ``TurnState.progress``, the one thing the ``progress`` query reads:
the typed events (also published on the workflow stream's ``events`` topic), the status
(and the TurnStatus search attribute), tripped breakers, fallbacks, and the metrics of the
SDK's workflow meter (nothing is recorded while replaying). It calls no activity.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.contrib.workflow_streams import WorkflowStream
from temporalio.exceptions import ApplicationError

from workflows.search_attributes import TURN_STATUS
from workflows.state import TurnState

with workflow.unsafe.imports_passed_through():
    from domain.entity_cards import entity_cards
    from domain.plan_record import PlanRecord
    from workflows.events import ActiveContext, BreakerTripped, EventData, FellBack
    from workflows.interface import EventType, TurnEvent, TurnOutput, TurnProgress

EVENTS = "events"
"""The workflow stream topic of the turn's events (``tokens`` carries streamed text)."""


class ProgressLog:
    def __init__(self, state: TurnState, stream: WorkflowStream | None = None) -> None:
        self.state = state
        self.progress = state.progress
        self.stream = stream
        """The workflow's event stream: every event is published on its ``events`` topic,
        beside the Act's and Reply's streamed text (``tokens``, from the activities)."""

    def view(self, after_seq: int) -> TurnProgress:
        """The progress query's answer: everything, but only the events after ``after_seq``."""
        view = self.progress.model_copy()
        view.events = [e for e in self.progress.events if e.seq > after_seq]
        return view

    def emit(self, type_: EventType, data: EventData, *, attempt: int = 1) -> None:
        seq = len(self.progress.events) + 1
        event = TurnEvent(seq=seq, type=type_, attempt=attempt, data=data)
        self.progress.events.append(event)
        if self.stream is not None:
            self.stream.topic(EVENTS).publish(event.model_dump(mode="json"))

    def set_status(self, status: str) -> None:
        """The turn's status, for the progress query and the TurnStatus search attribute."""
        self.progress.status = status  # type: ignore[assignment]
        workflow.upsert_search_attributes([TURN_STATUS.value_set(status)])

    def mark(self, time_name: str) -> None:
        """When the turn reached ``time_name`` (started, replied, its ending), saved with it."""
        self.state.timings[time_name] = workflow.now().isoformat()

    def show_context(self) -> None:
        """Emit ``active_context``: the entity cards in context now (seed 000)."""
        self.emit("active_context", ActiveContext(data=entity_cards(self.state.registry)))

    def trip(self, kind: str, detail: str) -> None:
        """Record a tripped circuit breaker (kept in progress, the summary and the reply)."""
        workflow.metric_meter().create_counter(
            "alfred_breakers", "circuit breakers tripped, by kind"
        ).add(1, {"kind": kind})
        self.progress.breakers.append(f"{kind}: {detail}")
        self.emit("breaker", BreakerTripped(kind=kind, detail=detail))
        workflow.logger.info("breaker %s tripped: %s", kind, detail)

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

    def count_turn(self, status: str) -> None:
        workflow.metric_meter().create_counter(
            "alfred_turns", "turns ended, by status and path"
        ).add(1, {"status": status, "path": self.state.path()})

    def record_wait(self, kind: str, outcome: str, seconds: float) -> None:
        workflow.metric_meter().create_histogram_float(
            "alfred_pause_wait", "how long pauses waited for the user", "s"
        ).record(seconds, {"kind": kind, "outcome": outcome})

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
