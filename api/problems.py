"""One error vocabulary for the API: every error is ``{"error": {"code", "message"}}`` (422s add
``details``); domain errors become 4xx with a reason, an unreachable database a 503."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException

from api.temporal import AnswerNotTaken, AnswerRefused
from domain.errors import CrudValidationError, DomainError
from domain.turn_store import (
    ConversationConflict,
    ConversationNotFound,
    TurnInProgress,
    TurnNotFound,
)

TURN_BUSY_RETRY_SECONDS = 2
"""A message while a turn works on its reply: when to send it again."""
STATUS: dict[type[DomainError], int] = {
    ConversationNotFound: 404,
    TurnNotFound: 404,
    TurnInProgress: 409,
    ConversationConflict: 409,
    CrudValidationError: 422,
}

RETRY_AFTER_SECONDS = 5
"""What a 503 asks the client to wait before trying again."""

DATABASE_UNAVAILABLE: tuple[type[Exception], ...] = (
    # What SQLAlchemy raises (wrapping psycopg's) when the server refuses the connection or
    # goes away mid-request (OperationalError), a connection is already closed
    # (InterfaceError), or every pooled connection stays busy (TimeoutError).
    sa_exc.OperationalError,
    sa_exc.InterfaceError,
    sa_exc.TimeoutError,
    # The same from psycopg itself, should one escape unwrapped.
    psycopg.OperationalError,
    psycopg.InterfaceError,
)


class ApiError(Exception):
    """An HTTP error with a machine-readable code and a sentence for people."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _printable(text: str) -> str:
    """``text`` as JSON can carry it: a lone surrogate from the request (echoed in a field
    name or a message) would make encoding the error response itself fail, a 500."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _body(code: str, message: str, **extra: Any) -> dict:
    return {"error": {"code": code, "message": _printable(message), **extra}}


def _where(loc: tuple | list) -> str:
    return ".".join(_printable(str(part)) for part in loc) or "request"


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_: Request, error: ApiError) -> JSONResponse:
        headers = None
        if error.status == 401:
            headers = {"WWW-Authenticate": "Bearer"}
        elif error.status == 503:  # every 503 says when to come back
            headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
        return JSONResponse(
            _body(error.code, error.message), status_code=error.status, headers=headers
        )

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, error: RequestValidationError) -> JSONResponse:
        # FastAPI's default echoes each bad input back, and a NaN or an infinity in the
        # body cannot be encoded as JSON (a 500 for bad input): say where and why only.
        details = [
            {
                "loc": [p if isinstance(p, int) else _printable(str(p)) for p in e.get("loc", ())],
                "msg": _printable(e.get("msg", "")),
                "type": e.get("type", ""),
            }
            for e in error.errors()
        ]
        reasons: dict[str, str] = {}
        for d in details:
            reasons.setdefault(_where(d["loc"]), d["msg"])  # one reason per field
        message = "invalid " + "; ".join(f"{where}: {msg}" for where, msg in reasons.items())
        return JSONResponse(_body("invalid_request", message, details=details), status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        # Starlette's own 404 (no such route), 405 (with its Allow header), and the 400 for
        # a body FastAPI cannot read, in the same shape as every other error.
        phrase = HTTPStatus(error.status_code).phrase
        code = phrase.lower().replace(" ", "_").replace("-", "_")
        message = error.detail if isinstance(error.detail, str) else phrase
        if error.status_code in (404, 405):
            message = f"{message}: {request.method} {request.url.path}"
        return JSONResponse(
            _body(code, message), status_code=error.status_code, headers=error.headers
        )

    @app.exception_handler(DomainError)
    async def domain_error(_: Request, error: DomainError) -> JSONResponse:
        status = next((s for kind, s in STATUS.items() if isinstance(error, kind)), 400)
        headers = None
        if isinstance(error, TurnInProgress):  # the turn is working on its reply: come back
            headers = {"Retry-After": str(TURN_BUSY_RETRY_SECONDS)}
        return JSONResponse(_body(error.code, str(error)), status_code=status, headers=headers)

    async def database_unavailable(_: Request, __: Exception) -> JSONResponse:
        # Not the driver's text: it names hosts and SQL. A restart or failover is what this
        # usually is, so the client is told to come back rather than that it failed.
        return JSONResponse(
            _body("database_unavailable", "the database is unavailable; try again shortly"),
            status_code=503,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )

    for kind in DATABASE_UNAVAILABLE:
        app.add_exception_handler(kind, database_unavailable)

    @app.exception_handler(AnswerRefused)
    async def answer_refused(request: Request, error: AnswerRefused) -> JSONResponse:
        return await api_error(request, ApiError(409, error.code, str(error)))

    @app.exception_handler(AnswerNotTaken)
    async def answer_not_taken(request: Request, error: AnswerNotTaken) -> JSONResponse:
        return await api_error(request, ApiError(503, "worker_unavailable", str(error)))
