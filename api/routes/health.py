"""Liveness and readiness (no authentication)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text

from api.deps import ServicesDep
from api.problems import RETRY_AFTER_SECONDS

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(svc: ServicesDep) -> JSONResponse:
    """PostgreSQL and Temporal are reachable and this process's other parts are up (in
    ``alfred run``: the worker runs and the start-up is done, the dev token written); a
    503 naming what is not."""
    checks = {"database": False, "temporal": await svc.turns.healthy()}
    checks.update((name, up()) for name, up in svc.parts.items())
    try:
        async with svc.sessions() as session:
            checks["database"] = (await session.scalar(text("SELECT 1"))) == 1
    except Exception:  # noqa: BLE001 - any failure means not ready; the body says which
        checks["database"] = False
    ready = all(checks.values())
    if ready:
        return JSONResponse({"ready": True, "checks": checks})
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    return JSONResponse({"ready": False, "checks": checks}, status_code=503, headers=headers)
