"""API test harness: the real app in-process over httpx, the Temporal test server, a worker
with a scripted model, PostgreSQL as the application role."""

from __future__ import annotations

import asyncio
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
import pytest
import uvicorn
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment

from activities.llm.script_provider import ScriptProvider
from api.app import create_app
from api.deps import Services
from api.temporal import TurnClient
from domain.settings import Settings
from domain.users import create_user
from tests.conftest import replayed_environment
from workflows.worker import build_worker


@dataclass
class Api:
    """An HTTP client for one user, with the worker that runs their turns."""

    http: httpx.AsyncClient
    token: str
    user_id: uuid.UUID
    services: Services

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    async def get(
        self, url: str, headers: dict[str, str] | None = None, **kwargs
    ) -> httpx.Response:
        return await self.http.get(url, headers={**self.auth, **(headers or {})}, **kwargs)

    async def post(self, url: str, json=None, **kwargs) -> httpx.Response:
        return await self.http.post(url, json=json, headers=self.auth, **kwargs)

    async def put(self, url: str, json=None, **kwargs) -> httpx.Response:
        return await self.http.put(url, json=json, headers=self.auth, **kwargs)

    async def patch(self, url: str, json=None, **kwargs) -> httpx.Response:
        return await self.http.patch(url, json=json, headers=self.auth, **kwargs)

    async def delete(self, url: str, **kwargs) -> httpx.Response:
        return await self.http.delete(url, headers=self.auth, **kwargs)

    @asynccontextmanager
    async def worker(self, provider: ScriptProvider, **options):
        turns = self.services.turns
        async with build_worker(
            turns.client,
            task_queue=turns.task_queue,
            sessions=self.services.sessions,
            provider=provider,
            **options,
        ):
            yield

    @asynccontextmanager
    async def served(self):
        """The same app on a real socket (uvicorn in this event loop): responses stream as
        they are written, which the in-process transport cannot show. Yields a client."""
        app = create_app(self.services)
        server = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
        )
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:  # noqa: ASYNC110 - uvicorn has a flag, not an event
            await asyncio.sleep(0.01)
        try:
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{port}", headers=self.auth, timeout=30
            ) as client:
                yield client
        finally:
            server.should_exit = True
            server.force_exit = True
            await task
            sock.close()

    async def conversation(self) -> str:
        response = await self.post("/v1/conversations", json={"title": "test"})
        assert response.status_code == 201, response.text
        return response.json()["id"]


async def sse_blocks(response: httpx.Response) -> AsyncIterator[dict[str, str]]:
    """An open SSE response's blocks as they come, each as its fields (comments too)."""
    block: dict[str, str] = {}
    async for line in response.aiter_lines():
        if line:
            key, _, value = line.partition(": ")
            block[key] = value
        elif block:
            yield block
            block = {}


class RecordingTurnClient(TurnClient):
    """Remembers the turns it started, so the test can end those it left running."""

    started: list[str]

    async def start(self, workflow_id, turn, status="running"):
        self.started.append(workflow_id)
        return await super().start(workflow_id, turn, status)


@pytest.fixture(scope="session")
async def api_temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    """The API tests' own test server: turns they leave running (or waiting for a worker
    that has gone) must not hold the clock of the workflow tests' time-skipping server."""
    async with replayed_environment() as env:
        yield env


@pytest.fixture
async def api_services(api_temporal_env, sessions) -> AsyncIterator[Services]:
    settings = Settings(
        _env_file=None,
        api_wait_seconds=20,
        sse_poll_seconds=0.02,
        sse_max_seconds=30,
        task_queue=f"api-{uuid.uuid4().hex[:8]}",
    )
    turns = RecordingTurnClient(
        api_temporal_env.client,
        task_queue=settings.task_queue,
        query_timeout=0.5,
        answer_timeout=2,
    )
    turns.started = []
    yield Services(settings=settings, sessions=sessions, turns=turns)
    # A turn left without a worker keeps a workflow task open, and the shared time-skipping
    # server skips no time while one is open: end them so later tests are not stalled.
    for workflow_id in turns.started:
        try:
            await turns.handle(workflow_id).terminate("test finished")
        except RPCError:
            pass  # already closed


@pytest.fixture
async def http(api_services) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(api_services)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://alfred") as client:
        yield client


async def _api(http, api_services, sessions, name: str) -> Api:
    user_id, token = await create_user(sessions, name)
    return Api(http, token, user_id, api_services)


@pytest.fixture
async def api(http, api_services, sessions) -> Api:
    return await _api(http, api_services, sessions, "ada")


@pytest.fixture
async def other_api(http, api_services, sessions) -> Api:
    """A second user on the same app: sees none of the first user's data."""
    return await _api(http, api_services, sessions, "bob")
