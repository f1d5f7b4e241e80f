"""``@[Label](type:uuid)`` mentions in a chat message (seed 000 "@-Mention Resolution").

A chat UI lets the user point at a kitchen row; the message then carries the row's label,
its entity type (``recipe`` or its table ``recipes``) and its id. Parsing is pure; the
turn fetches each mentioned row (scoped to the user) before Understand runs.
"""

from __future__ import annotations

import re
import uuid
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


def parse_mentions(message: str) -> ParsedMentions:
    """The message's mentions in order, each (table, id) once; malformed ones reported."""
    found: list[Mention] = []
    invalid: list[str] = []
    seen: set[tuple[str, str]] = set()
    for match in MENTION.finditer(message):
        kind = match["type"]
        entity = BY_TYPE.get(kind) or BY_TABLE.get(kind)
        try:
            canonical = str(uuid.UUID(match["id"]))
        except ValueError:
            canonical = None
        if entity is None or canonical is None:
            invalid.append(match.group(0))
            continue
        key = (entity.table, canonical)
        if key in seen or len(found) >= MAX_MENTIONS:
            continue
        seen.add(key)
        found.append(Mention(label=match["label"].strip(), table=entity.table, id=canonical))
    return ParsedMentions(tuple(found), tuple(invalid))


def plain_text(message: str) -> str:
    """The message with each mention replaced by its label ("make @[Tacos](recipe:…)" →
    "make Tacos"), for the places that show the user's words rather than the markup."""
    return MENTION.sub(lambda m: m["label"].strip(), message)
