"""Understand's curation, applied to the registry deterministically (seed 000 "Entity
Curation"); the model's refs are untrusted."""

from __future__ import annotations

import uuid

from domain.conversation import CurationSummary
from domain.curation import apply_curation, without_forgotten
from domain.nodes import EntityCuration, RetainDecision, UnderstandOutput
from domain.registry import SessionIdRegistry


def registry_with(count: int) -> SessionIdRegistry:
    registry = SessionIdRegistry()
    registry.begin_turn(1)
    for n in range(1, count + 1):
        registry.ref_for_uuid(str(uuid.UUID(int=n)), "recipe", action="read", label=f"R{n}")
    registry.begin_turn(5)
    return registry


def curated(**curation) -> UnderstandOutput:
    return UnderstandOutput(entity_curation=EntityCuration(**curation))


def test_retained_refs_stay_active_beyond_the_window_with_their_reason():
    registry = registry_with(2)
    assert registry.get_active_entities() == ([], [])
    summary, ignored = apply_curation(
        registry, curated(retain_active=[RetainDecision(ref="recipe_1", reason="the plan")])
    )
    assert registry.get_active_entities() == ([], ["recipe_1"])
    assert registry.entries["recipe_1"].active_reason == "the plan"
    assert [d.ref for d in summary.retained] == ["recipe_1"] and ignored == []


def test_demote_forgets_the_reason_drop_forgets_the_ref():
    registry = registry_with(3)
    registry.set_active_reason("recipe_1", "old")
    summary, _ = apply_curation(registry, curated(demote=["recipe_1"], drop=["recipe_2"]))
    assert registry.entries["recipe_1"].active_reason is None
    assert registry.known_refs() == ["recipe_1", "recipe_3"]
    assert (summary.demoted, summary.dropped) == (["recipe_1"], ["recipe_2"])


def test_clear_all_starts_over_and_ignores_the_rest():
    registry = registry_with(2)
    summary, _ = apply_curation(
        registry,
        curated(clear_all=True, retain_active=[RetainDecision(ref="recipe_1", reason="x")]),
    )
    assert registry.known_refs() == [] and summary.cleared_all and summary.retained == []


def test_referenced_refs_count_as_seen_this_turn_and_unknown_refs_are_reported():
    registry = registry_with(2)
    output = UnderstandOutput(
        referenced_entities=["recipe_2", "recipe_9"],
        entity_curation=EntityCuration(drop=["inv_4"]),
    )
    summary, ignored = apply_curation(registry, output)
    assert registry.get_active_entities() == (["recipe_2"], [])
    assert ignored == ["recipe_9", "inv_4"] and summary.dropped == []


def test_dropped_content_leaves_the_archive_and_the_rest_stays():
    archive = {"gen_recipe_1": {"name": "Lime Chicken"}, "gen_recipe_2": None}
    dropped = CurationSummary(dropped=["gen_recipe_1", "recipe_4"])
    assert without_forgotten(archive, dropped) == {"gen_recipe_2": None}
    assert without_forgotten(archive, CurationSummary()) == archive


def test_starting_over_forgets_every_archived_content():
    archive = {"gen_recipe_1": {"name": "Lime Chicken"}}
    assert without_forgotten(archive, CurationSummary(cleared_all=True)) == {}
