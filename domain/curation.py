"""Apply Understand's entity curation to the registry (seed 000 "Entity Curation"), and
forget the content of what it dropped.

The model's refs are untrusted: unknown refs are skipped and reported, never raised.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.conversation import CurationSummary
from domain.nodes import UnderstandOutput
from domain.registry import SessionIdRegistry


def apply_curation(
    registry: SessionIdRegistry, understand: UnderstandOutput
) -> tuple[CurationSummary, list[str]]:
    """Retain, demote, drop or clear as Understand decided; (what was done, ignored refs)."""
    known = set(registry.known_refs())
    ignored: list[str] = []
    summary = CurationSummary()

    def usable(ref: str) -> bool:
        if ref in known:
            return True
        ignored.append(ref)
        return False

    for ref in understand.referenced_entities:
        if usable(ref):
            registry.touch(ref)
    curation = understand.entity_curation
    if curation.clear_all:
        registry.clear_all()
        summary.cleared_all = True
        return summary, ignored
    for decision in curation.retain_active:
        if usable(decision.ref):
            registry.set_active_reason(decision.ref, decision.reason)
            summary.retained.append(decision)
    for ref in curation.demote:
        if usable(ref):
            registry.clear_active_reason(ref)
            summary.demoted.append(ref)
    for ref in curation.drop:
        if usable(ref):
            registry.remove_ref(ref)
            summary.dropped.append(ref)
    return summary, ignored


def without_forgotten(archive: dict[str, Any], summary: CurationSummary) -> dict[str, Any]:
    """The content archive without the generated content the user asked to forget
    (dropped, or everything cleared): it is not offered to a later step or turn again."""
    if summary.cleared_all:
        return {}
    return {key: content for key, content in archive.items() if key not in summary.dropped}


def forget_what_was_shown(
    registry: SessionIdRegistry, unsaved: Mapping[str, str], summary: CurationSummary
) -> list[str]:
    """For a message that only asks to forget what was suggested ("forget that recipe"):
    the labels of the unsaved content forgotten, ``unsaved`` being the unsaved refs and
    labels before Understand's curation. That is what Understand dropped or, when it dropped
    none, the one artifact the last turn showed, dropped here (added to ``summary``).
    Empty: nothing unsaved to forget, or several that could be meant."""
    if summary.cleared_all:
        return list(unsaved.values())
    dropped = [ref for ref in summary.dropped if ref in unsaved]
    if not dropped:
        shown = [
            ref
            for ref in unsaved
            if ref in registry.entries and (registry.last_referenced(ref) or 0) >= registry.turn - 1
        ]
        if len(shown) != 1:
            return []
        registry.remove_ref(shown[0])
        summary.dropped.append(shown[0])
        dropped = shown
    return [unsaved[ref] for ref in dropped]
