"""Replay every workflow history the test suite writes, and the shapes a busy worker writes.

``HistoryRecorder`` is a client interceptor: it remembers each workflow a test environment
starts. At the end of the run the environment's fixture calls ``replay_all``, which replays
each of those histories with today's workflow classes, and a variant of each in which one
local activity's result lands in a later workflow task than the code that follows it (a
worker too busy to finish the workflow task before its heartbeat; see
``workflows.versions``). A history the code cannot replay fails the run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from google.protobuf.message import Message
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import (
    Client,
    Interceptor,
    OutboundInterceptor,
    StartWorkflowInput,
    WorkflowHandle,
    WorkflowHistory,
)
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from workflows.bypass_turn import BypassTurnWorkflow
from workflows.turn import TurnWorkflow

LOCAL_ACTIVITY_MARKER = "core_local_activity"
_WFT = (
    EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
)


REPLAYED_TYPES = ("TurnWorkflow", "BypassTurnWorkflow")
VARIANT = "variant-"
"""The id prefix of a run of a test's own variant of a turn workflow (``tests/workflows/
variants.py``, registered under the same type name): that test replays it itself."""


def replayer(workflows: Sequence[type] = ()) -> Replayer:
    """A replayer without the SDK's 2 s deadlock detector (``debug_mode``): on a machine
    busy with a local model and a second test run, a replay of a good history once failed
    with ``_DeadlockError``, which says nothing about the history."""
    return Replayer(
        workflows=list(workflows) or [TurnWorkflow, BypassTurnWorkflow],
        data_converter=pydantic_data_converter,
        debug_mode=True,
    )


def local_activity_markers(history: WorkflowHistory) -> list[int]:
    """Indexes (into ``history.events``) of the local-activity result markers."""
    return [
        i
        for i, e in enumerate(history.events)
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        and e.marker_recorded_event_attributes.marker_name == LOCAL_ACTIVITY_MARKER
    ]


def local_activity_types(history: WorkflowHistory) -> list[str]:
    """The activity types of the local activities ``history`` recorded, in order."""
    return [
        json.loads(
            history.events[i].marker_recorded_event_attributes.details["data"].payloads[0].data
        )["activity_type"]
        for i in local_activity_markers(history)
    ]


def opened_by(history: WorkflowHistory) -> list[str]:
    """The local activities that opened the turn (``open_turn``; ``prepare_turn`` when its
    read failed)."""
    opening = ("open_turn", "prepare_turn")
    return [t for t in local_activity_types(history) if t in opening]


def patches(history: WorkflowHistory) -> list[str]:
    """The ids of the patch markers in ``history``, in order."""
    return [
        json.loads(e.marker_recorded_event_attributes.details["patch-data"].payloads[0].data)["id"]
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        and e.marker_recorded_event_attributes.marker_name == "core_patch"
    ]


def _renumber(message: Message, ids: dict[int, int]) -> None:
    """Point every ``*_event_id`` field of ``message`` (recursively) at the new ids."""
    for descriptor, value in message.ListFields():
        if isinstance(value, Message):
            _renumber(value, ids)
        elif descriptor.message_type is not None and isinstance(value, Sequence):
            for item in value:
                _renumber(item, ids)
        elif descriptor.name.endswith("event_id") and isinstance(value, int) and value in ids:
            setattr(message, descriptor.name, ids[value])


def split_after(history: WorkflowHistory, index: int) -> WorkflowHistory:
    """The history with an extra (empty) workflow task right after event ``index``: what a
    workflow-task heartbeat between a local activity's result and the code after it
    records."""
    events = []
    for original in history.events:
        copy = HistoryEvent()
        copy.CopyFrom(original)
        events.append(copy)
    template = {
        kind: next(e for e in reversed(events[:index]) if e.event_type == kind) for kind in _WFT
    }
    extra = []
    for kind in _WFT:
        event = HistoryEvent()
        event.CopyFrom(template[kind])
        extra.append(event)
    old_ids = [e.event_id for e in events]
    events[index + 1 : index + 1] = extra
    ids = {old: old if old <= index + 1 else old + len(extra) for old in old_ids}
    for event in events:
        _renumber(event, ids)
    for number, event in enumerate(events, start=1):
        event.event_id = number
    scheduled = index + 2  # 1-based id of the inserted WORKFLOW_TASK_SCHEDULED
    extra[1].workflow_task_started_event_attributes.scheduled_event_id = scheduled
    extra[2].workflow_task_completed_event_attributes.scheduled_event_id = scheduled
    extra[2].workflow_task_completed_event_attributes.started_event_id = scheduled + 1
    return WorkflowHistory(history.workflow_id, events)


def busy(history: WorkflowHistory) -> WorkflowHistory:
    """The history with an extra workflow task after every local activity's result: each
    split only moves the code after that result into the next task, so one history tries
    them all (a replay per split would cost a minute of every test run)."""
    for index in reversed(local_activity_markers(history)):
        history = split_after(history, index)
    return history


async def replay_failures(
    history: WorkflowHistory, *, busy_shapes: bool = True, workflows: Sequence[type] = ()
) -> list[str]:
    """Why ``history`` (and, with ``busy_shapes``, each of its busy-worker variants) does not
    replay with today's code (or with ``workflows``); empty when every one does."""
    variants = [("as recorded", history)]
    if busy_shapes and local_activity_markers(history):
        variants.append(("with an extra workflow task after each local activity", busy(history)))
    failures = []
    for name, variant in variants:
        result = await replayer(workflows).replay_workflow(variant, raise_on_replay_failure=False)
        if result.replay_failure is not None:
            failures.append(f"{history.workflow_id} {name}: {result.replay_failure}")
    return failures


@dataclass
class HistoryRecorder(Interceptor):
    """Remembers every workflow started through the client it intercepts."""

    started: list[tuple[str, str | None]] = field(default_factory=list)

    def intercept_client(self, next: OutboundInterceptor) -> OutboundInterceptor:
        return _Recording(next, self.started)

    async def replay_all(self, client: Client) -> list[str]:
        failures = []
        for workflow_id, run_id in self.started:
            history = await client.get_workflow_handle(workflow_id, run_id=run_id).fetch_history()
            failures += await replay_failures(history)
        return failures


class _Recording(OutboundInterceptor):
    def __init__(self, next: OutboundInterceptor, started: list[tuple[str, str | None]]):
        super().__init__(next)
        self._started = started

    async def start_workflow(self, input: StartWorkflowInput) -> WorkflowHandle:
        handle = await super().start_workflow(input)
        # a test's own workflow types and variants are its business
        if input.workflow in REPLAYED_TYPES and not input.id.startswith(VARIANT):
            self._started.append((input.id, handle.first_execution_run_id or handle.result_run_id))
        return handle
