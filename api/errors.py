"""One error vocabulary for the API: domain errors become 4xx with a reason."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from domain.errors import CrudValidationError, DomainError
from domain.turns import ConversationConflict, ConversationNotFound, TurnInProgress, TurnNotFound

STATUS: dict[type[DomainError], int] = {
    ConversationNotFound: 404,
    TurnNotFound: 404,
    TurnInProgress: 409,
    ConversationConflict: 409,
    CrudValidationError: 422,
}


class ApiError(Exception):
    """An HTTP error with a machine-readable code and a sentence for people."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _body(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message}}


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_: Request, error: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if error.status == 401 else None
        return JSONResponse(
            _body(error.code, error.message), status_code=error.status, headers=headers
        )

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, error: RequestValidationError) -> JSONResponse:
        # FastAPI's default echoes each bad input back, and a NaN or an infinity in the
        # body cannot be encoded as JSON (a 500 for bad input): say where and why only.
        detail = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in error.errors()
        ]
        return JSONResponse({"detail": detail}, status_code=422)

    @app.exception_handler(DomainError)
    async def domain_error(_: Request, error: DomainError) -> JSONResponse:
        status = next((s for kind, s in STATUS.items() if isinstance(error, kind)), 400)
        return JSONResponse(_body(error.code, str(error)), status_code=status)
