"""A model call longer than the heartbeat timeout (a real model's often is) lives as long
as its worker does, and no longer: model activities heartbeat while they wait, so a slow
call on a live worker completes once, and a worker that dies in it is noticed within the
heartbeat timeout and the call retried once on another worker, not after the call's
start-to-close timeout (minutes). Real ``alfred worker`` processes on a real dev server
(heartbeat timeouts need real time), their model the fake OpenAI server, which counts the
requests; a worker is killed with SIGKILL."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from temporalio.api.enums.v1 import EventType, TimeoutType
from temporalio.client import Client, WorkflowHandle

from api.temporal import connect
from bench.recovery import running, start_worker, stop
from domain.db.engine import user_transaction
from domain.kitchen import repository
from domain.settings import Settings
from domain.turn_store import create_conversation
from tests.activities.llm.fake_openai import FakeOpenAI
from tests.replay import replay_failures
from tests.workflows.conftest import SUMMARIZE
from tests.workflows.script import complete, plan, reply, step, tool, understand
from workflows.interface import TurnInput
from workflows.policies import LLM_HEARTBEAT
from workflows.turn import TurnWorkflow

SLOW_SECONDS = LLM_HEARTBEAT.total_seconds() + 4
"""How long the model takes to write the reply: longer than the heartbeat timeout, so
only the heartbeats keep the call alive."""
REPLY = "Added milk to your shopping list."
TURN = [
    understand(),
    plan("Add milk", step("Add milk to the shopping list", "write", "shopping")),
    tool("db_create", table="shopping_list", data={"name": "milk"}),
    complete("Added milk"),
]


def answer(fake: FakeOpenAI, replies: int) -> None:
    """The turn's answers, in the order the turn asks: ``replies`` slow replies."""
    for entry in [*TURN, *[reply(REPLY)] * replies, SUMMARIZE]:
        slow = SLOW_SECONDS if entry["node"] == "reply" else 0
        fake.reply(json.dumps(entry["output"]), delay=slow)


def asked(fake: FakeOpenAI) -> Counter[str]:
    """Requests the model received, per node (the schema each request was sent is named
    after its node)."""
    return Counter(r.body["response_format"]["json_schema"]["name"] for r in fake.requests)


@asynccontextmanager
async def milk_turn(
    address: str, owner_url: str, sessions, user, fake: FakeOpenAI
) -> AsyncIterator[tuple[Client, WorkflowHandle, list, Callable[[], None]]]:
    """One ``alfred worker`` on a fresh queue, a turn started on it, and how to start
    another worker on the queue; the workers are stopped on the way out."""
    queue = f"recovery-{uuid.uuid4().hex[:8]}"
    workers = [start_worker(address, owner_url, queue, openai=fake.base_url)]
    try:
        client = await connect(Settings(_env_file=None, temporal_address=address))
        conversation = await create_conversation(sessions, user, "recovery")
        handle = await client.start_workflow(
            TurnWorkflow.run,
            TurnInput(
                conversation_id=conversation, user_id=str(user), turn_number=1, message="milk"
            ),
            id=f"turn-{conversation}-1",
            task_queue=queue,
        )

        def another() -> None:
            workers.append(start_worker(address, owner_url, queue, openai=fake.base_url))

        yield client, handle, workers, another
    finally:
        stop(workers)


def started(history) -> list[tuple[str, Any]]:
    """Each activity attempt's start: the activity type and the start's attributes."""
    kind = EventType
    scheduled = {
        e.event_id: e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.event_type == kind.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    }
    return [
        (
            scheduled[e.activity_task_started_event_attributes.scheduled_event_id],
            e.activity_task_started_event_attributes,
        )
        for e in history.events
        if e.event_type == kind.EVENT_TYPE_ACTIVITY_TASK_STARTED
    ]


async def written(sessions, user) -> list[str]:
    async with user_transaction(sessions, str(user)) as session:
        return [r["name"] for r in await repository.list_rows(session, "shopping_list")]


async def test_a_model_call_longer_than_the_heartbeat_timeout_completes_once_on_a_live_worker(
    dev_temporal, owner_url, sessions, user
):
    with FakeOpenAI() as fake:
        answer(fake, replies=1)
        async with milk_turn(dev_temporal, owner_url, sessions, user, fake) as (_, handle, _, _):
            result = await asyncio.wait_for(handle.result(), timeout=120)
            history = await handle.fetch_history()
        assert asked(fake) == Counter(understand=1, think=1, act=2, reply=1, summarize=1)
    assert result.status == "completed" and result.fallbacks == []
    assert result.response == REPLY  # the model's own reply, not a fallback
    starts = started(history)
    assert [name for name, _ in starts].count("reply") == 1
    assert all(start.attempt == 1 for _, start in starts)  # nothing was retried
    assert await written(sessions, user) == ["milk"]
    assert await replay_failures(history) == []


async def test_a_worker_killed_during_a_long_model_call_costs_one_retry_on_another_worker(
    dev_temporal, owner_url, sessions, user
):
    with FakeOpenAI() as fake:
        answer(fake, replies=2)
        async with milk_turn(dev_temporal, owner_url, sessions, user, fake) as turn:
            client, handle, workers, another = turn
            async with asyncio.timeout(60):
                while True:  # the model is writing the reply: kill the worker waiting for it
                    if asked(fake)["reply"]:
                        break
                    await asyncio.sleep(0.05)
            victim = await running(client, handle.id, "reply")
            os.kill(victim, signal.SIGKILL)
            another()
            result = await asyncio.wait_for(handle.result(), timeout=120)
            history = await handle.fetch_history()
        assert victim == workers[0].pid
        # the model was asked for the reply once more, and for nothing else again
        assert asked(fake) == Counter(understand=1, think=1, act=2, reply=2, summarize=1)
    assert result.status == "completed" and result.fallbacks == []
    assert result.response == REPLY

    starts = started(history)
    # the history keeps the start of an activity's last attempt, with the failure before it
    (retried,) = (start for name, start in starts if name == "reply")
    assert retried.attempt == 2 and not retried.identity.startswith(f"{victim}@")
    # noticed by the heartbeat timeout (seconds), not the start-to-close timeout (minutes)
    assert retried.last_failure.timeout_failure_info.timeout_type == (
        TimeoutType.TIMEOUT_TYPE_HEARTBEAT
    )
    assert all(start.attempt == 1 for name, start in starts if name != "reply")
    assert await written(sessions, user) == ["milk"]  # written once
    assert await replay_failures(history) == []
