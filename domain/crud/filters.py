"""Compile validated filters into SQLAlchemy expressions — every operator, in both groups.

Semantics the model is told about (see ``prompts`` and the subdomain schemas):
- text ``=``, ``!=``, ``in`` and ``not_in`` ignore case; ``!=`` and ``not_in`` keep NULLs
  (a missing value is "not equal");
- ``ilike`` without a ``%`` matches anywhere in the text;
- ``contains``: array holds every given value / text contains the substring / JSON contains;
- ``similar``: trigram similarity where pg_trgm is installed, plus substring match;
- ``=`` with a single value on an array column means "contains that value".
Smart ingredient matching for inventory and shopping_list names is applied by the executor,
which hands the matched catalog ids in here.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, Table, Text, and_, cast, false, func, literal, not_, or_, true
from sqlalchemy.dialects.postgresql import ARRAY

from domain.crud.calls import Filter
from domain.crud.validate import LIST_OPS, coerce
from domain.kitchen.tables import Column, TableSpec

SIMILARITY_THRESHOLD = 0.3


@dataclass(frozen=True)
class NameMatch:
    """The catalog's answer for a smart name filter (``inventory.name = "chicken"``)."""

    ingredient_ids: tuple[uuid.UUID, ...] = ()
    names: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _contains_pattern(text: str) -> str:
    return f"%{_escape_like(text)}%"


def compile_filter(
    table: Table,
    col: Column,
    flt: Filter,
    *,
    where: str,
    table_name: str,
    trigram: bool,
    name_match: NameMatch | None = None,
) -> ColumnElement[bool]:
    target = table.c[col.name]
    op = flt.op
    if op == "is_null":
        return target.is_(None)
    if op == "is_not_null":
        return target.is_not(None)
    if name_match is not None:
        return _smart_name(table, target, op, str(flt.value), name_match, trigram)

    if op in LIST_OPS:
        values = [coerce(col, v, f"{where}.value", table=table_name) for v in flt.value]
        return _in(target, col, values, negate=op == "not_in")
    if op == "contains":
        return _contains(target, col, flt.value, where, table_name)
    if op == "ilike":
        pattern = str(flt.value)
        return target.ilike(pattern if "%" in pattern else _contains_pattern(pattern), escape="\\")
    if op == "similar":
        return _similar(target, str(flt.value), trigram)

    if col.kind == "array" and op == "=" and not isinstance(flt.value, list):
        return _contains(target, col, [flt.value], where, table_name)
    value = coerce(col, flt.value, f"{where}.value", table=table_name)
    if col.kind == "text" and op in ("=", "!="):
        equal = func.lower(target) == value.lower()
        return equal if op == "=" else or_(target.is_(None), not_(equal))
    if op == "=":
        return target == value
    if op == "!=":
        return target.is_distinct_from(value)
    return {">": target > value, "<": target < value, ">=": target >= value, "<=": target <= value}[
        op
    ]


def _in(target: Any, col: Column, values: Sequence[Any], *, negate: bool) -> ColumnElement[bool]:
    if not values:
        return true() if negate else false()
    if col.kind == "text":
        lowered = [str(v).lower() for v in values]
        member = func.lower(target).in_(lowered)
    else:
        member = target.in_(values)
    return or_(target.is_(None), not_(member)) if negate else member


def _contains(target: Any, col: Column, value: Any, where: str, table: str) -> ColumnElement[bool]:
    if col.kind == "array":
        items = coerce(col, value, f"{where}.value", table=table)
        return target.contains(cast(items, ARRAY(Text)))
    if col.kind == "json":
        return target.contains(value)
    return target.ilike(_contains_pattern(str(value)), escape="\\")


def _similar(target: Any, text: str, trigram: bool) -> ColumnElement[bool]:
    substring = target.ilike(_contains_pattern(text), escape="\\")
    if not trigram:
        return substring
    return or_(func.similarity(target, literal(text)) > SIMILARITY_THRESHOLD, substring)


def _smart_name(
    table: Table, target: Any, op: str, text: str, match: NameMatch, trigram: bool
) -> ColumnElement[bool]:
    """Catalog ids first, the plain name always: never a dropped filter (the original's bug)."""
    plain = func.lower(target) == text.lower() if op == "=" else _similar(target, text, trigram)
    if not match.ingredient_ids:
        return plain
    return or_(table.c.ingredient_id.in_(match.ingredient_ids), plain)


def compile_where(
    compiled_and: Sequence[ColumnElement[bool]], compiled_or: Sequence[ColumnElement[bool]]
) -> ColumnElement[bool]:
    """``filters`` all hold and, when given, at least one of ``or_filters`` holds."""
    clauses = list(compiled_and)
    if compiled_or:
        clauses.append(or_(*compiled_or))
    return and_(*clauses) if clauses else true()


CROSSED = "no row can match: "
"""How the note on filters no row can meet (``crossed``) opens."""


def crossed(filters: Sequence[Filter], or_filters: Sequence[Filter]) -> str | None:
    """The note on filters no row can meet (None when some row might): a column held to
    one value by ``filters`` while every ``or_filters`` entry holds it to another. For "got
    the paper towels and the bread" the 1.5B local model sent ``name = bread`` in
    ``filters`` and ``name = paper towels`` in ``or_filters``, meaning either, three
    times."""
    if not or_filters:
        return _named_twice(filters)
    if any(f.op != "=" for f in or_filters):
        return None
    fields = {f.field for f in or_filters}
    if len(fields) != 1:
        return None
    (name,) = fields
    held = [f for f in filters if f.field == name and f.op == "="]
    wanted = {_said(f.value) for f in or_filters}
    if not held or any(_said(f.value) in wanted for f in held):
        return None
    asked = " or ".join(repr(f.value) for f in or_filters)
    return (
        f"{CROSSED}filters ask for {name} = {held[0].value!r} and or_filters for "
        f"{name} = {asked} at once (a row meets every filter and at least one or_filter); "
        f"for rows of any of these, put them all in or_filters, or use {name} in [...]"
    )


def named_twice(filters: Sequence[Filter]) -> tuple[str, list[Filter]] | None:
    """The name column (``name``, ``title``: text, never an array) that ``filters`` hold
    to two different values or more at once, with those filters; None when none is."""
    for name in ("name", "title"):
        held = [f for f in filters if f.field == name and f.op == "="]
        if len({_said(f.value) for f in held}) > 1:
            return name, held
    return None


def _named_twice(filters: Sequence[Filter]) -> str | None:
    """The note on ``filters`` that hold a name to two values at once (``named_twice``):
    for "take bread and olive oil off the list" the 1.5B local model deleted ``name =
    bread`` and ``name = olive oil``, both in filters, three times."""
    if (twice := named_twice(filters)) is None:
        return None
    name, held = twice
    asked = " and ".join(repr(f.value) for f in held)
    return (
        f"{CROSSED}filters ask for {name} = {asked} at once (a row meets every filter); for "
        f"rows of any of these, put them all in or_filters, or use {name} in [...]"
    )


KEPT = {
    True: ("matched no row", "kept every row"),
    False: ("matches no row", "keeps every row"),
}
"""What a null test on a never-empty column does (``is_null``, ``is_not_null``), said of
a read that ran and of one not yet run."""


def never_empty(spec: TableSpec, filters: Sequence[Filter], *, ran: bool = True) -> list[str]:
    """Notes on filters that ask whether a column no row leaves empty is empty: they keep
    every row or none (``ran``: said of a read that ran, else of one not yet run). For
    "Read the tasks not completed" the 1.5B local model read ``completed is_not_null``,
    twice, and listed the done task as still to do."""
    notes = []
    for flt in filters:
        col = spec.columns.get(flt.field)
        if flt.op not in ("is_null", "is_not_null") or col is None or col.nullable:
            continue
        kept = KEPT[ran][flt.op == "is_not_null"]
        values = " (= true or = false)" if col.kind == "boolean" else ""
        notes.append(
            f"{flt.field} is never empty, so {flt.op} {kept}: compare it with a value{values}"
        )
    return notes


def _said(value: Any) -> Any:
    return value.strip().casefold() if isinstance(value, str) else value
