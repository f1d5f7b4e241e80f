"""``serve``, the worker and the API in one process: ready only once its start-up is done,
and stopped by a signal."""

from __future__ import annotations

import asyncio
import os
import signal
import uuid

import httpx

from activities.llm.script_provider import ScriptProvider
from api import stack
from api.devserver import dev_server, free_port
from domain.db.urls import app_url
from domain.settings import Settings


async def readiness(http: httpx.AsyncClient) -> httpx.Response:
    """``/readyz`` once the API answers at all."""
    async with asyncio.timeout(60):
        while True:
            try:
                return await http.get("/readyz")
            except httpx.TransportError:
                await asyncio.sleep(0.05)


async def test_readyz_is_503_until_the_start_up_is_done_then_200_with_every_part(owner_url):
    """`alfred run` writes the dev token in its start-up (``announce``): a script that
    waits for /readyz and then reads the token must find it."""
    writing_the_token = asyncio.Event()
    written = asyncio.Event()

    async def announce(sessions) -> None:
        writing_the_token.set()
        await written.wait()

    with dev_server() as address:
        settings = Settings(
            _env_file=None,
            temporal_address=address,
            api_port=free_port(),
            task_queue=f"stack-{uuid.uuid4().hex[:8]}",
        )
        serving = asyncio.create_task(
            stack.serve(
                settings,
                app_url(owner_url),
                provider=ScriptProvider.from_responses([]),
                announce=announce,
            )
        )
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{settings.api_port}") as http:
                async with asyncio.timeout(60):
                    await writing_the_token.wait()
                early = await readiness(http)
                written.set()
                async with asyncio.timeout(30):
                    while (ready := await http.get("/readyz")).status_code != 200:  # noqa: ASYNC110
                        await asyncio.sleep(0.05)
        finally:
            if not serving.done():
                os.kill(os.getpid(), signal.SIGINT)  # to serve's handler: stop
            async with asyncio.timeout(30):
                await serving
    assert early.status_code == 503
    assert early.json()["checks"]["started"] is False
    assert early.headers["Retry-After"] == "5"
    assert ready.json() == {
        "ready": True,
        "checks": {"database": True, "temporal": True, "started": True, "worker": True},
    }
