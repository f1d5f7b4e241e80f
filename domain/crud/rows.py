"""Database values to JSON-safe values (what activities return and operations record)."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Any


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
