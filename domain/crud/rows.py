"""Database rows as JSON-safe values, and the checked execution every write goes through."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

from sqlalchemy.exc import DataError, IntegrityError

from domain.errors import CrudValidationError


def to_json(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


def row_to_json(row: Any) -> dict[str, Any]:
    """A SQLAlchemy ``Row`` (or mapping) as a plain dict of JSON-safe values."""
    mapping = row._mapping if hasattr(row, "_mapping") else row
    return {key: to_json(value) for key, value in mapping.items()}


def visible_columns(table: Any) -> list[Any]:
    """A table's columns minus ``user_id`` (never shown to the model or to clients)."""
    return [c for c in table.c if c.name != "user_id"]


async def execute_checked(session: Any, statement: Any, *, where: str = "") -> Any:
    """Execute; values the database refuses (constraints, types, ranges) become a
    CrudValidationError naming why, so bad input is a 4xx or a message the model can act
    on. Connection and server failures propagate: they are retried, not blamed on input."""
    try:
        return await session.execute(statement)
    except IntegrityError as exc:
        # A constraint's message names the constraint and is the model's best hint.
        diag = getattr(exc.orig, "diag", None)
        message = getattr(diag, "message_primary", None) or str(exc.orig)
        prefix = f"{where}: " if where else ""
        raise CrudValidationError(f"{prefix}the database refused the write: {message}") from None
    except DataError:
        raise refused_value(where) from None


def refused_value(where: str = "") -> CrudValidationError:
    """A value validation should have refused but the database did: no retry can fix it.
    The driver's text (with SQL and parameters) is never shown, only what to check."""
    prefix = f"{where}: " if where else ""
    return CrudValidationError(
        f"{prefix}the database refused a value of this call; numbers must be finite and in "
        "the column's range, text must not contain NUL characters"
    )
