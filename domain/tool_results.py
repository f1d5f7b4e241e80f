"""One entry of a step's tool results: what the Act loop did and what came back.

An entry is one of these shapes, each with only its own fields set:

- a tool call: ``tool``, ``params``, then ``table``, ``count``, ``rows``, ``notes`` or an
  ``error`` (a refused call has no ``params``);
- a schema the step asked for: ``schema``, ``text``;
- a step of this turn it retrieved: ``retrieved_step``, ``result``;
- archived content it retrieved: ``archive_key``, ``content``;
- the user's answer to its question: ``user_answer``.

Entries are stored with the conversation and shown to Act as JSON: they serialize to the
fields that were set, in this order, exactly as the dicts they replace (``as_dict``).
``params``, ``rows``, ``result`` and ``content`` are the model's or the database's own JSON.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue, model_serializer, model_validator

from domain.crud.calls import WRITE_TOOLS, CrudResult
from domain.crud.merge import ALREADY, GROWN_FROM

_WIRE_NAMES = {"schema_name": "schema"}
"""Fields whose key on the wire differs (``schema`` is taken on BaseModel)."""


class ToolEntry(BaseModel):
    model_config = ConfigDict(extra="allow")
    """A key this version does not know (a state saved by another) is kept, not refused:
    one odd entry must not make a conversation unloadable."""

    tool: str | None = None
    params: dict[str, JsonValue] | None = None
    table: str | None = None
    count: int | None = None
    rows: list[dict[str, JsonValue]] | None = None
    notes: list[str] | None = None
    error: str | None = None
    schema_name: str | None = None
    text: str | None = None
    retrieved_step: int | None = None
    result: JsonValue = None
    archive_key: str | None = None
    content: JsonValue = None
    user_answer: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_wire(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for field, wire in _WIRE_NAMES.items():
                if wire in data:
                    data = {(field if k == wire else k): v for k, v in data.items()}
        return data

    @model_serializer(mode="plain")
    def as_dict(self) -> dict[str, Any]:
        """The fields that were set, by their wire names, in field order (then any key
        this version does not know); a merged row as it is, without the quantity it had
        or the mark of a row already there (``GROWN_FROM``, ``ALREADY``: for the
        confirmation; shown the quantity it had, the 1.5B local model added the 6 eggs
        bought once more, 18)."""
        known = {
            _WIRE_NAMES.get(name, name): getattr(self, name)
            for name in type(self).model_fields
            if name in self.model_fields_set
        }
        if self.rows is not None and "rows" in known:
            hidden = (GROWN_FROM, ALREADY)
            known["rows"] = [{k: v for k, v in r.items() if k not in hidden} for r in self.rows]
        return {**known, **(self.model_extra or {})}

    @classmethod
    def of_call(
        cls, tool: str, params: dict[str, Any], result: CrudResult | None, error: str | None
    ) -> ToolEntry:
        """A CRUD call and its error, or else its rows."""
        if error is not None:
            return cls(tool=tool, params=params, error=error)
        if result is None:
            return cls(tool=tool, params=params)
        return cls(
            tool=tool,
            params=params,
            table=result.table,
            count=result.count,
            rows=result.rows,
            notes=result.notes,
        )

    @property
    def failed(self) -> bool:
        return self.error is not None

    @property
    def is_write(self) -> bool:
        return self.tool in WRITE_TOOLS

    def succeeded_write(self) -> bool:
        """A create, update or delete that ran without an error."""
        return self.is_write and not self.failed
