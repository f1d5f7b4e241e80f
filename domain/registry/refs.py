"""What a ref looks like: ``{type}_{n}`` names a row (``recipe_1``, ``inv_4``), ``gen_{type}_{n}``
generated content (``gen_recipe_1``), ``type`` being an entity type of
``domain.kitchen.entities`` (seed 001, "Ref Naming Convention")."""

from __future__ import annotations

import re
import uuid as uuid_lib
from typing import NamedTuple

from domain.kitchen.entities import BY_TYPE

UI_ACTIONS: tuple[str, ...] = ("created:user", "updated:user", "deleted:user", "mentioned:user")
"""Action tags for changes the user made in the frontend (or an @-mention in chat)."""

GEN = "gen_"
_UUID = re.compile(r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")
_REF_TOKEN = re.compile(r"\b(?:gen_)?[a-z]+_\d+\b")


class UnknownRefError(ValueError):
    """A ref the registry has never assigned (or has since forgotten) was used."""

    def __init__(self, ref: object) -> None:
        super().__init__(f"unknown ref {ref!r}")
        self.ref = ref


class PendingRefError(ValueError):
    """A ``gen_`` ref that is not saved yet was used where a database id is needed."""

    def __init__(self, ref: str) -> None:
        super().__init__(
            f"ref {ref!r} is generated content that is not saved yet; "
            "save it first (db_create) before using it as a database id"
        )
        self.ref = ref


class RefParts(NamedTuple):
    type_name: str
    number: int
    generated: bool


def parse_ref(value: object) -> RefParts | None:
    """Split ``gen_recipe_2`` into ``("recipe", 2, True)``; None for anything else."""
    if not isinstance(value, str) or "_" not in value:
        return None
    prefix, _, digits = value.rpartition("_")
    # isascii() guards against str.isdigit() accepting characters such as "²".
    if not (digits.isascii() and digits.isdigit()):
        return None
    generated = prefix.startswith(GEN)
    type_name = prefix.removeprefix(GEN)
    if type_name not in BY_TYPE:
        return None
    return RefParts(type_name, int(digits), generated)


def is_ref(value: object) -> bool:
    """Whether ``value`` has the shape of a ref of a known type (``ri_10``, ``gen_recipe_2``)."""
    return parse_ref(value) is not None


def refs_in_text(text: str) -> list[str]:
    """The ref tokens in a piece of prose, in order (``"saved recipe_2"`` → ``[recipe_2]``)."""
    return [m.group(0) for m in _REF_TOKEN.finditer(text) if is_ref(m.group(0))]


def is_uuid(value: object) -> bool:
    """Whether ``value`` is a UUID string in canonical 8-4-4-4-12 form."""
    return isinstance(value, str) and len(value) == 36 and _UUID.match(value) is not None


def canonical_uuid(value: object) -> str | None:
    """The lower-case string form of a UUID value, or None when ``value`` is no UUID.

    Lower-casing keeps one UUID from getting two refs just because two code paths
    spelled it differently; ``uuid.UUID`` objects are accepted for the same reason.
    """
    if isinstance(value, uuid_lib.UUID):
        return str(value)
    return value.lower() if is_uuid(value) else None  # type: ignore[union-attr]
