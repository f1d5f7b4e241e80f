"""What is in context, as a client shows it: one card per entity (seed 000's
``active_context`` event, the conversation view's ``active_entities``)."""

from __future__ import annotations

from pydantic import BaseModel

from domain.registry import SessionIdRegistry


class EntityCard(BaseModel):
    """One entity in context: its ref, type, label and what last happened to it."""

    ref: str
    type: str
    label: str
    action: str


PARTS = frozenset({"ri", "ing"})
"""A recipe's ingredient rows and the ingredient catalog: parts of what the user talks
about, never what they talk about (no card, no row in Understand's table)."""


def active_refs(registry: SessionIdRegistry) -> list[str]:
    """Refs referenced in the last two turns, those Understand retained, and unsaved
    generated content however old (it stays in context until it is saved)."""
    recent, retained = registry.get_active_entities()
    unsaved = [r for r in registry.unsaved_refs() if r not in recent and r not in retained]
    return [r for r in (*recent, *retained, *unsaved) if registry.type_of(r) not in PARTS]


def entity_cards(registry: SessionIdRegistry) -> list[EntityCard]:
    """``{ref, type, label, action}`` for each ref in context, in ``active_refs`` order."""
    return [
        EntityCard(
            ref=ref,
            type=registry.type_of(ref),
            label=registry.label(ref),
            action=registry.action(ref),
        )
        for ref in active_refs(registry)
    ]
