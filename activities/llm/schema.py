"""The JSON schema a model is sent for an answer model, in OpenAI's strict subset.

``to_strict_json_schema`` (the ``openai`` SDK's own, which its ``parse`` helpers use)
requires every property, closes every object and unravels ``$ref``s with siblings. What
it leaves outside the subset is changed here: pydantic's tagged unions (``oneOf`` with a
``discriminator``) become ``anyOf``, ``const`` becomes a one-value ``enum``, and defaults
and titles go (a strict schema has no optional fields, and titles only cost tokens).
``strict_problems`` checks the result against the subset; ``strict_schema`` refuses a
schema that fails it, so a contract that drifts out of the subset fails in tests, never
at a real API.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

from openai.lib._pydantic import to_strict_json_schema
from pydantic import BaseModel

KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "enum",
        "description",
        "$defs",
        "$ref",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "pattern",
        "format",
    }
)
"""What OpenAI's strict mode accepts; anything else (``default``, ``oneOf``, ``allOf``,
``const``, ``minLength``, ``discriminator``, ...) is refused by the API."""
MAX_DEPTH = 10
MAX_PROPERTIES = 5000
MAX_ENUM_VALUES = 1000


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model``'s schema in the strict subset: a fresh copy of one built once per model."""
    return copy.deepcopy(_strict(model))


@cache
def _strict(model: type[BaseModel]) -> dict[str, Any]:
    schema = _tidy(to_strict_json_schema(model))
    problems = strict_problems(schema)
    if problems:
        raise ValueError(f"{model.__name__}'s schema is outside the strict subset: {problems}")
    return schema


@cache
def schema_text(model: type[BaseModel]) -> str:
    """The schema as compact JSON, for servers that take it in the prompt."""
    return json.dumps(_strict(model), separators=(",", ":"), ensure_ascii=False)


def _tidy(node: Any) -> Any:
    if isinstance(node, list):
        return [_tidy(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("default", "title", "discriminator"):
            continue
        if key == "oneOf":
            key = "anyOf"
        if key == "const":
            key, value = "enum", [value]
        if key in ("properties", "$defs"):
            out[key] = {name: _tidy(sub) for name, sub in value.items()}
        else:
            out[key] = _tidy(value)
    if "enum" in out and "type" not in out and out["enum"]:
        out["type"] = _json_type(out["enum"][0])
    return out


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"


def strict_problems(schema: dict[str, Any]) -> list[str]:
    """Where ``schema`` leaves OpenAI's strict subset (an empty list: it is inside)."""
    problems: list[str] = []
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("(root): must be an object, not a union")
    counts = {"properties": 0}
    _check(schema, "(root)", problems, counts)
    for name, sub in schema.get("$defs", {}).items():
        _check(sub, f"$defs.{name}", problems, counts)
    depth = _depth(schema, schema.get("$defs", {}))
    if depth > MAX_DEPTH:
        problems.append(f"objects nested {depth} deep (at most {MAX_DEPTH})")
    if counts["properties"] > MAX_PROPERTIES:
        problems.append(f"{counts['properties']} properties in all (at most {MAX_PROPERTIES})")
    return problems


def _depth(node: Any, defs: dict[str, Any], seen: tuple[str, ...] = ()) -> int:
    """How many objects deep the schema goes, following ``$ref``s."""
    if not isinstance(node, dict):
        return 0
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        if name in seen:  # a recursive schema: deep without bound
            return MAX_DEPTH + 1
        return _depth(defs.get(name, {}), defs, (*seen, name))
    inner = [*node.get("properties", {}).values(), *node.get("anyOf", [])]
    if "items" in node:
        inner.append(node["items"])
    below = max((_depth(sub, defs, seen) for sub in inner), default=0)
    own = 1 if node.get("type") == "object" else 0
    return own + below


def _check(node: Any, where: str, problems: list[str], counts: dict[str, int]) -> None:
    if not isinstance(node, dict):
        problems.append(f"{where}: not a schema")
        return
    for key in node:
        if key not in KEYWORDS:
            problems.append(f"{where}: {key!r} is not allowed")
    if "$ref" in node and len(node) > 1:
        problems.append(f"{where}: $ref with other keywords")
    if len(node.get("enum", ())) > MAX_ENUM_VALUES:
        problems.append(f"{where}: more than {MAX_ENUM_VALUES} enum values")
    if node.get("type") == "object" or "properties" in node:
        properties = node.get("properties", {})
        counts["properties"] += len(properties)
        if node.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties must be false")
        if sorted(node.get("required", [])) != sorted(properties):
            problems.append(f"{where}: every property must be required")
        for name, sub in properties.items():
            _check(sub, f"{where}.{name}", problems, counts)
    if "items" in node:
        _check(node["items"], f"{where}[]", problems, counts)
    for i, variant in enumerate(node.get("anyOf", [])):
        _check(variant, f"{where}|{i}", problems, counts)
