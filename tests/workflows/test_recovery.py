"""A worker that dies during a model call costs the turn seconds, not minutes: model
activities heartbeat, so the server sees the dead worker within the heartbeat timeout and
the call is retried on the other worker. Two real ``alfred worker`` processes share the
task queue of a real dev server; the one running the (slow, scripted) reply is killed
with SIGKILL."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import uuid
from collections import Counter
from collections.abc import Iterator

import pytest
from temporalio.api.enums.v1 import EventType, TimeoutType

from api.devserver import dev_server
from api.stack import connect
from bench.recovery import running, start_worker
from domain.db.engine import user_transaction
from domain.kitchen import repository
from domain.settings import Settings
from domain.turn_store import create_conversation
from tests.replay import replay_failures
from tests.workflows.conftest import COMPRESS, SUMMARIZE
from tests.workflows.script import complete, plan, reply, step, tool, understand
from workflows.interface import TurnInput
from workflows.policies import LLM_HEARTBEAT
from workflows.turn import TurnWorkflow

REPLY_SECONDS = 4.0
"""How long the scripted model takes to write the reply: long enough to be killed in it."""
RECOVERED_WITHIN = 30.0


@pytest.fixture(scope="module")
def temporal_address() -> Iterator[str]:
    with dev_server() as address:
        yield address


async def test_a_worker_killed_during_a_model_call_costs_the_turn_seconds_not_minutes(
    temporal_address, owner_url, sessions, user, tmp_path
):
    slow_reply = {**reply("Added milk to your shopping list."), "delay_seconds": REPLY_SECONDS}
    responses = [
        understand(),
        plan("Add milk", step("Add milk to the shopping list", "write", "shopping")),
        tool("db_create", table="shopping_list", data={"name": "milk"}),
        complete("Added milk"),
        slow_reply,
        SUMMARIZE,
        COMPRESS,
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": responses}))
    queue = f"recovery-{uuid.uuid4().hex[:8]}"
    workers = [start_worker(temporal_address, owner_url, queue, script) for _ in range(2)]
    try:
        client = await connect(Settings(_env_file=None, temporal_address=temporal_address))
        conversation = await create_conversation(sessions, user, "recovery")
        workflow_id = f"turn-{conversation}-1"
        handle = await client.start_workflow(
            TurnWorkflow.run,
            TurnInput(
                conversation_id=conversation, user_id=str(user), turn_number=1, message="milk"
            ),
            id=workflow_id,
            task_queue=queue,
        )
        victim = await running(client, workflow_id, "reply")
        os.kill(victim, signal.SIGKILL)
        result = await asyncio.wait_for(handle.result(), timeout=120)
        history = await handle.fetch_history()
    finally:
        for worker in workers:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(timeout=30)
    assert result.status == "completed"
    assert victim in {w.pid for w in workers}

    events = history.events
    kind = EventType
    scheduled = {
        e.event_id: e.activity_task_scheduled_event_attributes.activity_type.name
        for e in events
        if e.event_type == kind.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    }
    started = {
        scheduled[e.activity_task_started_event_attributes.scheduled_event_id]: e
        for e in events
        if e.event_type == kind.EVENT_TYPE_ACTIVITY_TASK_STARTED
    }
    completed = Counter(
        scheduled[e.activity_task_completed_event_attributes.scheduled_event_id]
        for e in events
        if e.event_type == kind.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
    )
    # Every model call finished once; only the reply ran twice, after a heartbeat timeout.
    assert completed == Counter(understand=1, think=1, act=2, reply=1, summarize=1)
    retried = started["reply"].activity_task_started_event_attributes
    assert retried.attempt == 2
    assert retried.last_failure.timeout_failure_info.timeout_type == (
        TimeoutType.TIMEOUT_TYPE_HEARTBEAT
    )
    assert not retried.identity.startswith(f"{victim}@")
    assert all(
        e.activity_task_started_event_attributes.attempt == 1
        for name, e in started.items()
        if name != "reply"
    )
    # Recovered within seconds of server time: the reply was scheduled, died with its
    # worker, and the turn completed on the other worker.
    reply_scheduled = next(
        e for e in events if e.event_id in scheduled and scheduled[e.event_id] == "reply"
    )
    end = events[-1].event_time.ToDatetime() - reply_scheduled.event_time.ToDatetime()
    assert end.total_seconds() < RECOVERED_WITHIN, end
    assert end.total_seconds() >= LLM_HEARTBEAT.total_seconds()  # it did wait for the beat
    async with user_transaction(sessions, str(user)) as session:
        rows = await repository.list_rows(session, "shopping_list")
    assert [r["name"] for r in rows] == ["milk"]  # written once
    assert await replay_failures(history) == []
