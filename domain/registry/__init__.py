"""The SessionIdRegistry (seed 001): the map between database UUIDs and the refs the model
sees (``recipe_1``, ``gen_recipe_1``). ``refs``: what a ref looks like; ``table``: one entry
per ref, copies and deltas; ``translate``: rows into refs; ``artifacts``: generated content
until it is saved."""

from domain.registry.artifacts import SessionIdRegistry
from domain.registry.refs import (
    UI_ACTIONS,
    PendingRefError,
    UnknownRefError,
    is_ref,
    is_uuid,
    refs_in_text,
)
from domain.registry.table import PROMPT_TURNS, RefEntry, RegistryDelta
from domain.registry.translate import RowTranslator

__all__ = [
    "PROMPT_TURNS",
    "UI_ACTIONS",
    "PendingRefError",
    "RefEntry",
    "RegistryDelta",
    "RowTranslator",
    "SessionIdRegistry",
    "UnknownRefError",
    "is_ref",
    "is_uuid",
    "refs_in_text",
]
