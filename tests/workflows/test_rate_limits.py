"""A model that answers 429 with Retry-After is waited for when its call can wait that long,
and otherwise said to be rate-limited, for how long, with what was saved: never "the model
did not answer". The Temporal server decides: it retries after the Retry-After
(``next_retry_delay``) unless that goes past the call's schedule-to-close timeout. A real
dev server, whose rules those are (the time-skipping test server checks the timeout only
now and then); the model's answers travel from the fake OpenAI server."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from activities.llm.openai_provider import OpenAIProvider
from activities.llm.script_provider import ScriptProvider
from api.temporal import connect
from domain.settings import Settings
from domain.turn_store import create_conversation
from tests.activities.llm.fake_openai import FakeOpenAI
from tests.replay import replay_failures
from tests.workflows.conftest import COMPRESS, SUMMARIZE
from tests.workflows.script import complete, plan, reply, step, tool, understand
from tests.workflows.wire import WireLog, WireScript, http_error
from workflows.interface import TurnInput
from workflows.turn import TurnWorkflow
from workflows.worker import build_worker

LONGER_THAN_THE_CALL = 1200
"""Seconds: past a model call's schedule-to-close timeout (10.5 minutes by default)."""
WAITED = 5
"""Seconds: well within it, and longer than the retry policy's own first interval (2 s)."""
MILK = step("Add milk to the shopping list", "write", "shopping")
TASK = step("Add a task to buy bread", "write", "tasks", group=1)


@pytest.fixture
async def wire() -> AsyncIterator[WireLog]:
    with FakeOpenAI() as fake:
        provider = OpenAIProvider(
            api_key="-", base_url=fake.base_url, model="full", mini_model="mini", timeout=30
        )
        yield WireLog(fake, provider)
        await provider.aclose()


@pytest.fixture
async def client(dev_temporal) -> Client:
    return await connect(Settings(_env_file=None, temporal_address=dev_temporal))


async def run_turn(client, sessions, user, model: WireScript, message: str, **turn):
    """One turn on a worker of its own, its model ``model``: its result and history."""
    queue = f"rate-{uuid.uuid4().hex[:8]}"
    conversation = await create_conversation(sessions, user, "rate limits")
    async with build_worker(client, task_queue=queue, sessions=sessions, provider=model):
        handle = await client.start_workflow(
            TurnWorkflow.run,
            TurnInput(
                conversation_id=conversation,
                user_id=str(user),
                turn_number=1,
                message=message,
                **turn,
            ),
            id=f"turn-{conversation}-1",
            task_queue=queue,
        )
        result = await handle.result()
        history = await handle.fetch_history()
    assert await replay_failures(history) == []
    return result, history


def script(wire: WireLog, *responses: dict) -> WireScript:
    return wire.script(ScriptProvider.from_responses([*responses, SUMMARIZE, COMPRESS]))


async def test_a_rate_limit_longer_than_the_call_can_wait_is_said_with_its_wait(
    client, sessions, user, wire
):
    model = script(wire, http_error("understand", 429, retry_after=LONGER_THAN_THE_CALL))

    result, _ = await run_turn(client, sessions, user, model, "hello")

    assert result.status == "completed"
    assert result.response == (
        "I couldn't work out what you meant: the model is rate-limited for 20 minutes. "
        "Nothing was changed. Please ask again after that."
    )
    assert result.fallbacks == ["understand: rate_limited"]
    assert [c.node for c in model.calls] == ["understand"]  # asked once: not retried


async def test_a_rate_limit_after_a_write_says_what_was_saved(client, sessions, user, wire):
    model = script(
        wire,
        understand(),
        plan("Shopping and a task", MILK, TASK),
        tool("db_create", 0, table="shopping_list", data={"name": "milk"}),
        complete("Added milk", 0),
        http_error("act", 429, retry_after=LONGER_THAN_THE_CALL),
        http_error("reply", 429, retry_after=LONGER_THAN_THE_CALL),
    )

    result, _ = await run_turn(
        client, sessions, user, model, "add milk and remind me to buy bread", mode="create"
    )

    assert result.fallbacks == ["act step 2: rate_limited", "reply: rate_limited"]
    assert "Added 1 item to your shopping list: milk." in result.response
    assert "Step 2 stopped: the model is rate-limited for 20 minutes." in result.response
    assert "did not answer" not in result.response


async def test_a_rate_limit_the_call_can_wait_out_is_waited_and_the_model_then_answers(
    client, sessions, user, wire
):
    model = script(
        wire,
        http_error("understand", 429, retry_after=WAITED, repeat=False),
        understand(),
        plan("Add milk", MILK),
        tool("db_create", table="shopping_list", data={"name": "milk"}),
        complete("Added milk"),
        reply("Milk is on your list."),
    )

    result, history = await run_turn(client, sessions, user, model, "add milk")

    assert result.response == "Milk is on your list." and result.fallbacks == []
    assert [c.node for c in model.calls].count("understand") == 2
    events = history.events
    scheduled = next(e for e in events if e.HasField("activity_task_scheduled_event_attributes"))
    retried = next(
        e
        for e in events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
        and e.activity_task_started_event_attributes.scheduled_event_id == scheduled.event_id
    )
    attempt = retried.activity_task_started_event_attributes
    assert attempt.attempt == 2
    assert attempt.last_failure.application_failure_info.type == "http_429"
    waited = retried.event_time.ToDatetime() - scheduled.event_time.ToDatetime()
    assert waited.total_seconds() >= WAITED  # the server's clock: the Retry-After was kept
