"""API test harness: the real app in-process over httpx, the Temporal test server, a worker
with a scripted model, PostgreSQL as the application role."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
import pytest

from activities.llm.script_provider import ScriptProvider
from api.app import create_app
from api.deps import Services
from api.temporal import TurnClient
from domain.settings import Settings
from domain.users import create_user
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
    async def worker(self, provider: ScriptProvider):
        turns = self.services.turns
        async with build_worker(
            turns.client,
            task_queue=turns.task_queue,
            sessions=self.services.sessions,
            provider=provider,
        ):
            yield

    async def conversation(self) -> str:
        response = await self.post("/v1/conversations", json={"title": "test"})
        assert response.status_code == 201, response.text
        return response.json()["id"]


@pytest.fixture
def api_services(temporal_env, sessions) -> Services:
    settings = Settings(
        _env_file=None,
        api_wait_seconds=20,
        sse_poll_seconds=0.02,
        sse_max_seconds=30,
        task_queue=f"api-{uuid.uuid4().hex[:8]}",
    )
    return Services(
        settings=settings,
        sessions=sessions,
        turns=TurnClient(temporal_env.client, task_queue=settings.task_queue, query_timeout=0.5),
    )


@pytest.fixture
async def http(api_services) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(api_services.settings, api_services)
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
