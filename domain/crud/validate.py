"""Check CRUD calls against the whitelist and coerce JSON values to column types.

Pure functions: no SQL, no registry. Every error names the table, column, operator or
value at fault (``filters[1].op``), so the model's retry can fix exactly that. Values must
also be storable, so no call reaches PostgreSQL only to fail there: numbers finite and in the
column type's range, text (also inside arrays and JSON) without NUL characters.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import uuid
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy import BigInteger, Integer, SmallInteger

from domain.clock import is_timezone
from domain.crud.calls import OPERATORS, Filter
from domain.db.models import Base
from domain.errors import CrudValidationError
from domain.kitchen.tables import ENUMS, HIDDEN, SYSTEM_SET, TABLES, Column, TableSpec
from domain.recipe_fit import NUMBERS

POSITIVE = frozenset({"quantity", "servings"})
"""Columns that hold an amount: a write of zero or less is refused, whatever the table."""
LIST_OPS = frozenset({"in", "not_in"})
NO_VALUE_OPS = frozenset({"is_null", "is_not_null"})
ORDERING_OPS = frozenset({">", "<", ">=", "<="})
TEXTUAL_OPS = frozenset({"ilike", "similar"})
ORDERABLE = frozenset({"text", "integer", "number", "date", "datetime"})
INTEGER_BOUNDS = ((BigInteger, 2**63), (SmallInteger, 2**15), (Integer, 2**31))
"""PostgreSQL integer types by SQLAlchemy type (subclasses first): values lie in -b..b-1."""
NUMERIC_SCALE = 16383
"""Digits PostgreSQL ``numeric`` holds after the decimal point."""


class Unstorable(Exception):
    """A value of the right kind that PostgreSQL cannot store; the message says why."""


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


ORDER_SUFFIX = re.compile(r"^\s*(?P<name>\w+)\s+(?P<direction>asc|desc)\s*$", re.IGNORECASE)


def ordering(spec: TableSpec, order_by: str, order_dir: str | None) -> tuple[str, str]:
    """The column a read orders by and its direction. "created_at DESC", as SQL writes it,
    is the column and its direction (the 1.5B local model sent it with ``order_dir``
    "desc" as well, was refused twice, and its write step ended without the write); any
    other name that is no column is refused."""
    said = ORDER_SUFFIX.match(order_by)
    if said is not None and said.group("name") in spec.columns:
        order_by, order_dir = said.group("name"), said.group("direction").lower()
    return column(spec, order_by, "order_by").name, order_dir or "asc"


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
    # Every value is checked here, before any SQL: some operators (ilike, similar, contains,
    # the catalog's name matching) use the raw value. Refs are the executor's to translate.
    if col.kind == "uuid":
        return col
    items = enumerate(flt.value) if op in LIST_OPS else [(None, flt.value)]
    for i, item in items:
        at = f"{where}.value" if i is None else f"{where}.value[{i}]"
        if col.kind == "json" and op == "contains":
            _storable_json(item, at, f"{spec.name}.{col.name}")
        else:
            convert(col, item, at, table=spec.name)
    return col


def coerce(col: Column, value: Any, where: str, *, table: str = "") -> Any:
    """A JSON value converted to what the column stores; a clear error when it cannot be."""
    if value is None:
        return None
    converted = convert(col, value, where, table=table)
    allowed = ENUMS.get((table, col.name))
    if allowed and converted not in allowed:
        raise CrudValidationError(
            f"{where}: {value!r} is not allowed for {col.name!r}; one of {', '.join(allowed)}"
        )
    if (table, col.name) == ("preferences", "timezone") and not is_timezone(converted):
        raise CrudValidationError(
            f"{where}: {value!r} is not a timezone; use an IANA name such as "
            "'Europe/Paris', 'America/New_York' or 'UTC'"
        )
    return converted


def convert(col: Column, value: Any, where: str, *, table: str = "") -> Any:
    """``coerce`` without the closed value sets (a pattern may be part of an allowed value)."""
    if value is None:
        return None
    try:
        if col.kind == "integer":
            converted = _integer(value, bound=_integer_bound(table, col.name))
        else:
            converted = _COERCE[col.kind](value)
    except Unstorable as problem:
        field = f"{table}.{col.name}" if table else col.name
        raise CrudValidationError(f"{where}: {problem} (column {field})") from None
    except (TypeError, ValueError, InvalidOperation, ArithmeticError):
        written = WRITTEN.get(col.kind, "")
        raise CrudValidationError(
            f"{where}: {value!r} is not a valid {col.kind} for column {col.name!r}{written}"
        ) from None
    return converted


WRITTEN = {
    "date": " (a date is written YYYY-MM-DD)",
    "datetime": " (a time is written YYYY-MM-DDTHH:MM)",
}
"""How a value of a kind is written, said where one could not be read."""


def _integer_bound(table: str, name: str) -> int:
    model = Base.metadata.tables.get(table)
    sql_type = model.c[name].type if model is not None and name in model.c else Integer()
    return next(b for t, b in INTEGER_BOUNDS if isinstance(sql_type, t))


def _text(value: Any) -> str:
    if isinstance(value, (dict, list)):
        raise TypeError("not text")
    return _no_nul(str(value))


def _no_nul(text: str) -> str:
    if "\x00" in text:
        raise Unstorable("text cannot contain a NUL character (\\u0000)")
    return text


def _finite(value: Any) -> Decimal:
    """Decimal accepts NaN and Infinity (and a JSON 1e400 arrives as inf): PostgreSQL
    integers cannot hold them and the rest of the system cannot carry them as JSON."""
    number = Decimal(str(value))
    if number.is_nan():
        raise Unstorable("NaN is not a number the kitchen can store")
    if number.is_infinite():
        sign = "-" if number < 0 else ""
        raise Unstorable(f"{sign}Infinity is not a number the kitchen can store")
    return number


def _integer(value: Any, *, bound: int = 2**31) -> int:
    if isinstance(value, bool):
        raise TypeError("bool is not an integer")
    number = _finite(value)
    # Compared as a Decimal: "1e100000000" is not expanded, and not echoed, to say so.
    if not -bound <= number < bound:
        raise Unstorable(f"out of range for an integer column ({-bound}..{bound - 1})")
    if number != number.to_integral_value():
        raise ValueError("not whole")
    return int(number)


def _number(value: Any) -> Decimal:
    if isinstance(value, bool):
        raise TypeError("bool is not a number")
    number = _finite(value)
    # Rows go back to the model as JSON through a float (rows.to_json): beyond a double's
    # range a stored number would come back as Infinity.
    if math.isinf(float(number)):
        raise Unstorable("too large for a number column (at most about 1.8e308)")
    if number.as_tuple().exponent < -NUMERIC_SCALE:
        raise Unstorable(f"more than {NUMERIC_SCALE} decimal places")
    return number


def _storable_json(value: Any, where: str, field: str) -> None:
    """A ``contains`` value for a json column, checked like a stored one."""
    try:
        _check_json(value)
    except Unstorable as problem:
        raise CrudValidationError(f"{where}: {problem} (column {field})") from None


def _check_json(value: Any) -> None:
    """Finite numbers and no NUL in strings or keys, at any depth (what jsonb accepts)."""
    if isinstance(value, float):
        _finite(value)
    elif isinstance(value, str):
        _no_nul(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _no_nul(str(key))
            _check_json(item)
    elif isinstance(value, list):
        for item in value:
            _check_json(item)


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
    _check_json(value)
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
        if key in POSITIVE and clean[key] is not None and clean[key] <= 0:
            raise CrudValidationError(
                f"{where}.{key}: {value!r} is not an amount; {key} must be more than 0 "
                "(to remove an item, delete it)"
            )
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


AMOUNT_NAMED = re.compile(
    rf"^\s*(?P<amount>\d+(?:[.,]\d+)?|{'|'.join(w for w in NUMBERS if w != 'one')})"
    r"\s*(?P<unit>[a-z]+)\s+of\s+(?P<thing>\S.*)$",
    re.IGNORECASE,
)
AMOUNTED = frozenset({"inventory", "shopping_list"})
"""The tables whose rows keep an amount apart from the name (quantity, unit)."""


def amount_in_name(table: str, row: dict[str, Any], where: str) -> str | None:
    """Why a row of ``AMOUNTED`` may not be created with its amount in its name (None when
    it may): "3 rolls of paper towels" is paper towels, 3, rolls. The 1.5B local model
    created the list row "3 rolls of paper towels" with quantity 1, which no later "got
    the paper towels" or "make it 4" finds by its name. Only a number and a unit before
    "of": "00 flour" and "cream of tartar" are names."""
    name = row.get("name")
    found = AMOUNT_NAMED.match(name) if table in AMOUNTED and isinstance(name, str) else None
    if found is None:
        return None
    amount, unit, thing = found.group("amount", "unit", "thing")
    amount = str(NUMBERS.get(amount.lower(), amount))
    return (
        f"{where}.name: {name!r} holds its amount; name the thing alone ({thing.strip()!r}) "
        f"and put {amount} in quantity and {unit!r} in unit"
    )


DOZENS = frozenset({"dozen", "dozens"})
UNIT_SPELLINGS = {
    **dict.fromkeys(("litre", "litres", "liter", "liters", "ltr", "ltrs"), "l"),
    **dict.fromkeys(("millilitre", "millilitres", "milliliter", "milliliters"), "ml"),
    **dict.fromkeys(("gram", "grams", "gr", "grm", "gms"), "g"),
    **dict.fromkeys(("kilogram", "kilograms", "kilo", "kilos", "kgs"), "kg"),
    **dict.fromkeys(("pieces", "pcs", "pc"), "piece"),
    "bottles": "bottle",
    "tins": "tin",
    "cans": "can",
    "jars": "jar",
    "bags": "bag",
    "packs": "pack",
    "packets": "packet",
    "boxes": "box",
    "loaves": "loaf",
    "rolls": "roll",
    "bunches": "bunch",
    "heads": "head",
    "cloves": "clove",
}
"""A unit as the stock and the list write it: the 1.5B local model bought "another litre
of milk" as 1 litre beside the 1 l in the fridge, a second row, where one unit is one row
that grows (``domain.crud.merge``)."""


def in_pieces(table: str, row: dict[str, Any]) -> dict[str, Any]:
    """A stock or list row counted in dozens ("1 dozen" eggs) as the pieces it is (12
    piece): a dozen eggs bought then merges with the eggs in stock, counted in pieces,
    and "used 4 eggs" takes 4 of them. The 1.5B local model put "a dozen" eggs on the list
    as 1 dozen, and bought "a dozen eggs" as 12 dozen: a number of dozens that is itself
    a multiple of 12 is the pieces written under the wrong unit, and is kept as pieces.
    An update that sets the unit without a quantity is left as it is. A unit spelled out
    or plural is written as the short one (``UNIT_SPELLINGS``: "litre" is "l")."""
    unit = row.get("unit")
    if table in AMOUNTED and isinstance(unit, str) and unit.strip().lower() in UNIT_SPELLINGS:
        unit = UNIT_SPELLINGS[unit.strip().lower()]
        row = {**row, "unit": unit}
    quantity = row.get("quantity")
    if table not in AMOUNTED or not isinstance(unit, str) or unit.strip().lower() not in DOZENS:
        return row
    if quantity is None:
        return row
    pieces = quantity if quantity % 12 == 0 else quantity * 12
    return {**row, "quantity": pieces, "unit": "piece"}
