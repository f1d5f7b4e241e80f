"""Check CRUD calls against the whitelist and coerce JSON values to column types.

Pure functions: no SQL, no registry. Every error names the table, column, operator or
value at fault (``filters[1].op``), so the model's retry can fix exactly that.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal, InvalidOperation
from typing import Any

from domain.crud.contracts import OPERATORS, Filter
from domain.errors import CrudValidationError
from domain.kitchen.tables import ENUMS, HIDDEN, SYSTEM_SET, TABLES, Column, TableSpec

LIST_OPS = frozenset({"in", "not_in"})
NO_VALUE_OPS = frozenset({"is_null", "is_not_null"})
ORDERING_OPS = frozenset({">", "<", ">=", "<="})
TEXTUAL_OPS = frozenset({"ilike", "similar"})
ORDERABLE = frozenset({"text", "integer", "number", "date", "datetime"})


def table_spec(name: str, *, write: bool = False) -> TableSpec:
    spec = TABLES.get(name)
    if spec is None:
        raise CrudValidationError(f"unknown table {name!r}; allowed: {', '.join(sorted(TABLES))}")
    if write and not spec.writable:
        raise CrudValidationError(f"table {name!r} is read only")
    return spec


def column(spec: TableSpec, name: str, where: str) -> Column:
    found = spec.columns.get(name)
    if found is None or name in HIDDEN:
        allowed = ", ".join(spec.readable)
        raise CrudValidationError(
            f"{where}: unknown column {name!r} in table {spec.name!r}; allowed: {allowed}"
        )
    return found


def check_filter(spec: TableSpec, flt: Filter, where: str) -> Column:
    """Validate one filter's column, operator and value shape; return its column."""
    col = column(spec, flt.field, f"{where}.field")
    op = flt.op
    if op not in OPERATORS:
        raise CrudValidationError(
            f"{where}.op: unknown operator {op!r}; allowed: {' '.join(OPERATORS)}"
        )
    if op in NO_VALUE_OPS:
        return col
    if flt.value is None:
        raise CrudValidationError(f"{where}.value: operator {op!r} needs a value")
    if op in LIST_OPS and not isinstance(flt.value, list):
        raise CrudValidationError(f"{where}.value: operator {op!r} needs a list")
    if op in ORDERING_OPS and col.kind not in ORDERABLE:
        raise CrudValidationError(f"{where}.op: {op!r} does not apply to {col.kind} column")
    if op in TEXTUAL_OPS and col.kind != "text":
        raise CrudValidationError(
            f"{where}.op: {op!r} applies to text columns, {flt.field!r} is {col.kind}"
        )
    if op == "contains" and col.kind not in ("array", "text", "json"):
        raise CrudValidationError(
            f"{where}.op: 'contains' applies to array, text or json columns, "
            f"{flt.field!r} is {col.kind}"
        )
    return col


def coerce(col: Column, value: Any, where: str, *, table: str = "") -> Any:
    """A JSON value converted to what the column stores; a clear error when it cannot be."""
    if value is None:
        return None
    try:
        converted = _COERCE[col.kind](value)
    except (TypeError, ValueError, InvalidOperation, ArithmeticError):
        raise CrudValidationError(
            f"{where}: {value!r} is not a valid {col.kind} for column {col.name!r}"
        ) from None
    allowed = ENUMS.get((table, col.name))
    if allowed and converted not in allowed:
        raise CrudValidationError(
            f"{where}: {value!r} is not allowed for {col.name!r}; one of {', '.join(allowed)}"
        )
    return converted


def _text(value: Any) -> str:
    if isinstance(value, (dict, list)):
        raise TypeError("not text")
    text = str(value)
    if "\x00" in text:
        raise ValueError("PostgreSQL text cannot hold a NUL character")
    return text


def _integer(value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError("bool is not an integer")
    number = Decimal(str(value))
    if number != number.to_integral_value():
        raise ValueError("not whole")
    return int(number)


def _number(value: Any) -> Decimal:
    if isinstance(value, bool):
        raise TypeError("bool is not a number")
    return Decimal(str(value))


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise TypeError("not a boolean")


def _date(value: Any) -> dt.date:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    return dt.date.fromisoformat(str(value)[:10])


def _datetime(value: Any) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value
    parsed = dt.datetime.fromisoformat(str(value))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def _uuid(value: Any) -> uuid.UUID:
    return uuid.UUID(str(value))


def _array(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [_text(item) for item in items]


def _json(value: Any) -> Any:
    if not isinstance(value, (dict, list)):
        raise TypeError("not an object")
    return value


_COERCE = {
    "text": _text,
    "integer": _integer,
    "number": _number,
    "boolean": _boolean,
    "date": _date,
    "datetime": _datetime,
    "uuid": _uuid,
    "array": _array,
    "json": _json,
}


def check_row(
    spec: TableSpec,
    row: Any,
    where: str,
    *,
    partial: bool,
    implied: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Validate and coerce a create (``partial=False``) or update (``partial=True``) payload.

    Nested relation keys (a recipe's ``recipe_ingredients``) are returned unchanged for the
    executor; FK values must already be UUIDs (the executor translates refs first).
    ``implied`` names required columns the executor fills in itself (a nested row's parent).
    """
    if not isinstance(row, dict):
        raise CrudValidationError(f"{where}: a row must be an object, got {type(row).__name__}")
    if not row:
        raise CrudValidationError(f"{where}: empty row")
    clean: dict[str, Any] = {}
    for key, value in row.items():
        if key in spec.nested:
            if partial:
                raise CrudValidationError(f"{where}.{key}: nested rows are created, not updated")
            clean[key] = value
            continue
        if key in SYSTEM_SET:
            raise CrudValidationError(f"{where}.{key}: set by the system, not writable")
        col = column(spec, key, f"{where}.{key}")
        clean[key] = coerce(col, value, f"{where}.{key}", table=spec.name)
    if not partial:
        missing = [
            c.name
            for c in spec.columns.values()
            if c.required_on_create and c.name not in clean and c.name not in implied
        ]
        if missing:
            raise CrudValidationError(
                f"{where}: missing required column(s) {', '.join(missing)} for {spec.name!r}"
            )
    return clean
