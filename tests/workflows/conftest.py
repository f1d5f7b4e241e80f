"""Workflow test harness: the real time-skipping Temporal test server, real PostgreSQL for
the activities, and the script provider standing in for the model, its outputs sent over
the wire to the real ``openai`` provider (``tests.workflows.wire``)."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from activities.llm.openai_provider import OpenAIProvider
from activities.llm.provider import LlmProvider
from activities.llm.script_provider import ScriptProvider
from domain.turn_store import create_conversation
from tests.activities.llm.fake_openai import FakeOpenAI
from tests.workflows.wire import WireLog, WireScript
from workflows.bypass_turn import BypassTurnWorkflow
from workflows.interface import (
    InputReceipt,
    ProgressQuery,
    TurnInput,
    TurnLimits,
    TurnProgress,
    UiChange,
    UserInput,
)
from workflows.turn import TurnWorkflow
from workflows.worker import build_worker

HISTORIES = Path(__file__).parent / "histories"


async def keep_history(handle: WorkflowHandle, name: str) -> None:
    """With ALFRED_RECORD_HISTORIES=1, save the run's history for the replay test.

    Re-record only on purpose (docs/HOWTO.md "Change the turn's control flow"): a change
    ships behind ``rt.versions.has``, its runs recorded beside the committed ones with
    ``ALFRED_HISTORY_SUFFIX=.<change id>``; the runs without it are the old path's proof.
    """
    if os.environ.get("ALFRED_RECORD_HISTORIES") == "1":
        suffix = os.environ.get("ALFRED_HISTORY_SUFFIX", "")
        history = await handle.fetch_history()
        (HISTORIES / f"{name}{suffix}.json").write_text(history.to_json())


SUMMARIZE = {
    "node": "summarize",
    "repeat": True,
    "output": {
        "assistant_summary": "Alfred helped in the kitchen.",
        "engagement_summary": "Kitchen help.",
        "conversation_phase": "executing",
        "user_expressed": "",
    },
}
COMPRESS = {"node": "compress", "repeat": True, "output": {"summary": "An earlier turn."}}


@dataclass
class Turns:
    """Starts turns of one conversation on a fresh task queue, with a scripted model."""

    env: WorkflowEnvironment
    sessions: Any
    user_id: str
    conversation_id: str
    task_queue: str
    wire: WireLog | None = None
    next_turn: int = 1

    def script(self, *responses: dict[str, Any], summarize: bool = True) -> WireScript:
        extra = [SUMMARIZE, COMPRESS] if summarize else []
        script = ScriptProvider.from_responses([*responses, *extra])
        assert self.wire is not None
        return self.wire.script(script)

    @asynccontextmanager
    async def worker(self, provider: LlmProvider, activities: list | None = None, **options):
        async with build_worker(
            self.env.client,
            task_queue=self.task_queue,
            sessions=self.sessions,
            provider=provider,
            activities=activities,
            **options,
        ):
            yield

    async def start(
        self,
        message: str,
        *,
        mode: str | None = None,
        limits: TurnLimits | None = None,
        ui_changes: list[UiChange] | None = None,
        **options: Any,
    ) -> WorkflowHandle:
        """Start the next turn; ``options`` go to ``start_workflow`` (e.g. task_timeout)."""
        number = self.next_turn
        self.next_turn += 1
        turn = TurnInput(
            conversation_id=self.conversation_id,
            user_id=self.user_id,
            turn_number=number,
            message=message,
            mode=mode,
            limits=limits or TurnLimits(),
            ui_changes=ui_changes or [],
        )
        kind = BypassTurnWorkflow.run if mode in ("cook", "brainstorm") else TurnWorkflow.run
        return await self.env.client.start_workflow(
            kind,
            turn,
            id=f"turn-{self.conversation_id}-{number}-{uuid.uuid4().hex[:6]}",
            task_queue=self.task_queue,
            **options,
        )


async def send(handle: WorkflowHandle, user_input: UserInput) -> InputReceipt:
    """Answer the turn's open pause through the ``answer`` update, as the API does."""
    return await handle.execute_update(
        "answer", user_input, id=user_input.input_id, result_type=InputReceipt
    )


async def progress(handle: WorkflowHandle, after: int = 0) -> TurnProgress:
    return await handle.query("progress", ProgressQuery(after_seq=after), result_type=TurnProgress)


async def wait_for(
    handle: WorkflowHandle, condition: Callable[[TurnProgress], bool]
) -> TurnProgress:
    """Poll the progress query until ``condition`` holds (queries never skip time)."""
    async with asyncio.timeout(20):
        while True:
            current = await progress(handle)
            if condition(current):
                return current
            await asyncio.sleep(0.05)


@pytest.fixture(scope="session")
async def wire() -> AsyncIterator[WireLog]:
    """Every request the suite's scripted turns send to a model, checked at the end."""
    with FakeOpenAI() as fake:
        provider = OpenAIProvider(
            api_key="sk-wire", base_url=fake.base_url, model="full", mini_model="mini", timeout=30
        )
        log = WireLog(fake, provider)
        yield log
        await provider.aclose()
    problems = log.problems()
    if problems:
        pytest.fail(
            f"{len(problems)} model requests broke the rules:\n" + "\n".join(problems[:20]),
            pytrace=False,
        )


@pytest.fixture
async def turns(temporal_env, sessions, user, wire) -> Turns:
    conversation_id = await create_conversation(sessions, user, "test")
    return Turns(
        temporal_env,
        sessions,
        str(user),
        conversation_id,
        task_queue=f"turns-{uuid.uuid4().hex[:8]}",
        wire=wire,
    )


async def the_turns_day(turns: Turns) -> dt.date:
    """The day a turn started now runs on, in UTC (the user's timezone here): the test
    server's clock, which time skipping moves on, taken past midnight when it is an hour
    away, so that the turn's day is the one its script names."""
    now = (await turns.env.get_current_time()).astimezone(dt.UTC)
    midnight = dt.datetime.combine(now.date() + dt.timedelta(days=1), dt.time(), dt.UTC)
    if midnight - now < dt.timedelta(hours=1):
        await turns.env.sleep(midnight - now + dt.timedelta(minutes=1))
    return (await turns.env.get_current_time()).astimezone(dt.UTC).date()
