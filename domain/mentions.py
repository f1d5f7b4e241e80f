"""``@[Label](type:uuid)`` mentions in a chat message (seed 000 "@-Mention Resolution").

A chat UI lets the user point at a kitchen row; the message then carries the row's label,
its entity type (``recipe`` or its table ``recipes``) and its id. Parsing is pure; the
turn fetches each mentioned row (scoped to the user) before Understand runs.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass

from domain.kitchen.entities import BY_TABLE, BY_TYPE

MENTION = re.compile(
    r"@\[(?P<label>[^\]\n]{1,200})\]\((?P<type>[a-z_]{2,40}):(?P<id>[^)\s]{1,64})\)"
)
MAX_MENTIONS = 10
"""Mentions past this many in one message are ignored (each one is a database read)."""


@dataclass(frozen=True)
class Mention:
    label: str
    table: str
    id: str
    """Canonical (lower-case, hyphenated) UUID."""


@dataclass(frozen=True)
class ParsedMentions:
    mentions: tuple[Mention, ...]
    invalid: tuple[str, ...]
    """The raw text of mentions with an unknown type or a malformed id."""


def _resolve(match: re.Match[str]) -> tuple[str, str] | None:
    """(table, canonical id) of a mention, or None when its type or id is malformed."""
    entity = BY_TYPE.get(match["type"]) or BY_TABLE.get(match["type"])
    try:
        canonical = str(uuid.UUID(match["id"]))
    except ValueError:
        return None
    return None if entity is None else (entity.table, canonical)


def parse_mentions(message: str) -> ParsedMentions:
    """The message's mentions in order, each (table, id) once; malformed ones reported."""
    found: list[Mention] = []
    invalid: list[str] = []
    seen: set[tuple[str, str]] = set()
    for match in MENTION.finditer(message):
        key = _resolve(match)
        if key is None:
            invalid.append(match.group(0))
            continue
        if key in seen or len(found) >= MAX_MENTIONS:
            continue
        seen.add(key)
        found.append(Mention(label=match["label"].strip(), table=key[0], id=key[1]))
    return ParsedMentions(tuple(found), tuple(invalid))


def plain_text(message: str) -> str:
    """The message with each mention replaced by its label ("make @[Tacos](recipe:…)" →
    "make Tacos"), for the places that show the user's words rather than the markup."""
    return MENTION.sub(lambda m: m["label"].strip(), message)


def with_refs(message: str, refs: Mapping[tuple[str, str], str]) -> str:
    """The message as a model reads it: each mention becomes its label and the ref the
    registry gave the row ("make @[Tacos](recipe:…)" → "make Tacos (recipe_3)"); a mention
    of no row of the user's keeps only its label. No id of the markup is left."""

    def replace(match: re.Match[str]) -> str:
        label = match["label"].strip()
        key = _resolve(match)
        ref = refs.get(key) if key is not None else None
        return f"{label} ({ref})" if ref else label

    return MENTION.sub(replace, message)
