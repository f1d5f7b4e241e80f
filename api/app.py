"""The FastAPI application: routes under /v1, bearer auth, OpenAPI at /docs."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from api import problems, web_page
from api.deps import Services
from api.routes import agui, conversations, health, kitchen, turns, usage


def create_app(services: Services | None = None) -> FastAPI:
    """The app, serving ``services`` (``api.stack`` builds them; ``None`` only to read the
    OpenAPI document)."""
    app = FastAPIOffline(  # /docs and /redoc from packaged files, not a CDN: they work offline
        title="Alfred",
        summary="A kitchen assistant on a durable Temporal backend.",
        version="1.0.0",
    )
    if services is not None:
        app.state.services = services
    problems.install(app)
    web_page.install(app)
    app.include_router(health.router)
    app.include_router(conversations.router)
    app.include_router(turns.router)
    app.include_router(kitchen.router)
    app.include_router(agui.router)
    app.include_router(usage.router)
    return app
