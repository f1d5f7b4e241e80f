"""The CRUD tool calls the model may make, and what the executor returns.

Field names follow the seeds (``db_read`` with filters, or_filters, columns, limit,
order_by, order_dir; ``db_create`` with one row or a batch; ``db_update``; ``db_delete``).
Tables, columns, operators and values are checked by the executor against the whitelist
in ``domain/kitchen/tables.py``, with errors that name the bad part.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, Field, JsonValue

OPERATORS: tuple[str, ...] = (
    "=",
    "!=",
    ">",
    "<",
    ">=",
    "<=",
    "in",
    "not_in",
    "ilike",
    "is_null",
    "is_not_null",
    "contains",
    "similar",
)

Row = dict[str, JsonValue]


class Filter(BaseModel):
    field: str
    op: str
    value: JsonValue = None


class DbRead(BaseModel):
    tool: Literal["db_read"] = "db_read"
    table: str
    filters: list[Filter] = Field(default_factory=list)
    """All must hold (AND)."""
    or_filters: list[Filter] = Field(default_factory=list)
    """At least one must hold (OR), on top of ``filters``."""
    columns: list[str] | None = None
    limit: int | None = None
    order_by: str | None = None
    order_dir: Literal["asc", "desc"] = "asc"


class DbCreate(BaseModel):
    tool: Literal["db_create"] = "db_create"
    table: str
    data: Row | list[Row]
    """One row or a batch; a batch is written in one transaction."""


class DbUpdate(BaseModel):
    tool: Literal["db_update"] = "db_update"
    table: str
    filters: list[Filter] = Field(default_factory=list)
    or_filters: list[Filter] = Field(default_factory=list)
    data: Row


class DbDelete(BaseModel):
    tool: Literal["db_delete"] = "db_delete"
    table: str
    filters: list[Filter] = Field(default_factory=list)
    or_filters: list[Filter] = Field(default_factory=list)


CrudRequest = Annotated[DbRead | DbCreate | DbUpdate | DbDelete, Field(discriminator="tool")]
WRITE_TOOLS = ("db_create", "db_update", "db_delete")


class CrudResult(BaseModel):
    """Rows as the model sees them: refs instead of UUIDs, labels for FK refs."""

    tool: str
    table: str
    rows: list[Row] = Field(default_factory=list)
    count: int = 0
    notes: list[str] = Field(default_factory=list)
    """What the executor did on the model's behalf (catalog matches, fallbacks, reroutes)."""
    rerouted: bool = False
    """Served from pending (generated, unsaved) artifacts without a database read."""
    replayed: bool = False
    """A repeated idempotency key: the recorded result, nothing written again."""


CUT_SHORT = "read with a higher limit or narrower filters to see them"


def cut_short(limit: int, total: int) -> str:
    """The note on a read its limit cut short: the 1.5B local model read tomorrow's meal
    plan with limit 1 for "whats for lunch tmrw", got the dinner, and named it."""
    return (
        f"the limit of {limit} left out {total - limit} more matching row(s): {total} in all; "
        + CUT_SHORT
    )


def was_cut_short(notes: list[str] | None) -> bool:
    """Whether a read's ``notes`` say its limit left matching rows out (``cut_short``)."""
    return cut_total(notes) is not None


def cut_total(notes: list[str] | None) -> int | None:
    """How many rows matched a read its limit cut short (``cut_short``); None for a read
    that showed every matching row."""
    for note in notes or []:
        if note.endswith(CUT_SHORT) and (total := re.search(r"(\d+) in all;", note)):
            return int(total.group(1))
    return None


HELD_ALREADY = "every row it matched already held these values, so nothing was changed"
"""The note on an update that changed no value: told "Updated 1 item" when the milk it set
to 1 l was already 1 l, the 1.5B local model's next update, setting the half it meant, was
held as the same change made twice (``act_rules._set_before``)."""
