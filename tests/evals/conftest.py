"""The eval suite on the test stack: its own time-skipping Temporal server (the clock other
tests advance would move the scenarios' dates), PostgreSQL, the real app in-process."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from activities.llm.provider import LlmProvider
from api.app import create_app
from api.deps import Services
from api.temporal import TurnClient
from domain.settings import Settings
from evals.cassette import Watch
from evals.runner import Stack
from tests.conftest import replayed_environment
from workflows.worker import build_worker


@pytest.fixture(scope="session")
async def evals_temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    async with replayed_environment() as env:
        yield env


@pytest.fixture
def eval_stack(evals_temporal_env, sessions, executor) -> Callable:
    """``async with eval_stack(provider) as stack``: a worker with that model, and the API."""

    @asynccontextmanager
    async def start(provider: LlmProvider) -> AsyncIterator[Stack]:
        settings = Settings(
            _env_file=None, api_wait_seconds=20, task_queue=f"evals-{uuid.uuid4().hex[:8]}"
        )
        turns = TurnClient(
            evals_temporal_env.client,
            task_queue=settings.task_queue,
            query_timeout=2,
            answer_timeout=10,
        )
        services = Services(settings=settings, sessions=sessions, turns=turns)
        watch = Watch(provider)
        app = create_app(services)
        transport = httpx.ASGITransport(app=app)
        async with (
            build_worker(
                evals_temporal_env.client,
                task_queue=settings.task_queue,
                sessions=sessions,
                provider=watch,
            ),
            httpx.AsyncClient(transport=transport, base_url="http://eval") as http,
        ):
            yield Stack(http=http, sessions=sessions, executor=executor, watch=watch)

    return start
