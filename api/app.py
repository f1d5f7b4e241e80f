"""The FastAPI application: routes under /v1, bearer auth, OpenAPI at /docs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from api import problems, web_page
from api.deps import Services
from api.routes import agui, conversations, health, kitchen, turns, usage
from api.temporal import TurnClient
from domain.db.engine import create_engine, session_factory
from domain.settings import Settings


def create_app(
    settings: Settings, services: Services | None = None, *, database_url: str | None = None
) -> FastAPI:
    """The app. Tests pass ready ``services``; ``alfred api`` lets the lifespan build them
    from ``database_url`` (the application role's URL) and the Temporal settings."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if services is not None:
            app.state.services = services
            yield
            return
        if database_url is None:
            raise RuntimeError("create_app needs services or a database_url")
        engine = create_engine(database_url, pool_size=settings.db_pool_size)
        client = await Client.connect(
            settings.temporal_target,
            namespace=settings.temporal_namespace,
            data_converter=pydantic_data_converter,
        )
        app.state.services = Services(
            settings=settings,
            sessions=session_factory(engine),
            turns=TurnClient.from_settings(client, settings),
        )
        try:
            yield
        finally:
            await engine.dispose()

    app = FastAPIOffline(  # /docs and /redoc from packaged files, not a CDN: they work offline
        title="Alfred",
        summary="A kitchen assistant on a durable Temporal backend.",
        version="1.0.0",
        lifespan=lifespan,
    )
    if services is not None:
        app.state.services = services  # also without a lifespan (in-process test clients)
    problems.install(app)
    web_page.install(app)
    app.include_router(health.router)
    app.include_router(conversations.router)
    app.include_router(turns.router)
    app.include_router(kitchen.router)
    app.include_router(agui.router)
    app.include_router(usage.router)
    return app
