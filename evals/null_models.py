"""Two models that know nothing, for proving the suite grades honestly.

Each answers every call from the JSON schema the call sends (``strict_schema`` of the
request's answer model, what a real model is held to), never from the prompt:

- ``minimal``: the least it may write: empty lists (or the fewest items allowed), the
  shortest text, ``false``, ``null`` wherever a value may be absent, the smallest number,
  the first enum value, and the first variant of a union only where no ``null`` is allowed;
- ``first option``: the first thing it may pick everywhere: the first enum value, the first
  variant of every union (a value where a ``null`` is allowed), ``true`` for a yes/no, and
  otherwise the minimal answer.

Both answers fit the contract, so the turn runs through the whole stack. A scenario
either of them passes checks too little: ``make test`` proves both score 0.
"""

from __future__ import annotations

import re
from typing import Any

from activities.llm.provider import LlmReply, LlmRequest, Usage, stream_whole
from activities.llm.schema import strict_schema

SOME_TEXT = "x"
"""The shortest text that says something (the schema's ``pattern: \\S``)."""


class SchemaModel:
    """A provider whose answer is built from the request's schema alone."""

    def __init__(self, name: str, *, first: bool) -> None:
        self.name = name
        self.first = first
        """Take the first option everywhere (else the minimal one)."""

    async def complete(self, request: LlmRequest) -> LlmReply:
        schema = strict_schema(request.answer)
        content = self.value(schema, schema.get("$defs", {}))
        stream_whole(request, content)
        return LlmReply(content=content, model=self.name, usage=Usage())

    def value(self, node: dict[str, Any], defs: dict[str, Any]) -> Any:
        """The answer this model writes for one schema node."""
        if "$ref" in node:
            return self.value(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        if "anyOf" in node:
            variants = node["anyOf"]
            nullable = any(v.get("type") == "null" for v in variants)
            if nullable and not self.first:
                return None
            return self.value(variants[0], defs)
        if "enum" in node:
            return node["enum"][0]
        kind = node.get("type")
        if kind == "object":
            props = node.get("properties", {})
            return {name: self.value(sub, defs) for name, sub in props.items()}
        if kind == "array":
            return [self.value(node["items"], defs) for _ in range(node.get("minItems", 0))]
        if kind == "string":
            return _text(node.get("pattern"))
        if kind in ("integer", "number"):
            low = node.get("minimum", 0)
            if "exclusiveMinimum" in node:
                low = node["exclusiveMinimum"] + 1
            return low
        if kind == "boolean":
            return self.first
        if kind == "null":
            return None
        raise ValueError(f"no answer for a schema node {node!r}")


def _text(pattern: str | None) -> str:
    """The shortest text the pattern allows (the empty string when there is none)."""
    if pattern is None:
        return ""
    if re.search(pattern, SOME_TEXT) is None:
        raise ValueError(f"no shortest text known for the pattern {pattern!r}")
    return SOME_TEXT


def minimal_model() -> SchemaModel:
    return SchemaModel("null-minimal", first=False)


def first_option_model() -> SchemaModel:
    return SchemaModel("null-first-option", first=True)


NULL_MODELS = {"minimal": minimal_model, "first option": first_option_model}
