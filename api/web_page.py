"""The chat page at ``/``: static files from ``api/web`` (no build step, no CDN)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

WEB = Path(__file__).parent / "web"


def install(app: FastAPI) -> None:
    app.mount("/web", StaticFiles(directory=WEB), name="web")

    @app.get("/", include_in_schema=False)
    async def chat_page() -> FileResponse:
        return FileResponse(WEB / "index.html", media_type="text/html")
