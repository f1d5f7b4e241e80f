"""Understand's curation, applied to the registry deterministically (seed 000 "Entity
Curation"); the model's refs are untrusted."""

from __future__ import annotations

import uuid

from domain.conversation import CurationSummary
from domain.curation import apply_curation, forget_what_was_shown, without_forgotten
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


def suggestions(*shown_in: int) -> SessionIdRegistry:
    """A registry at turn 5 with one unsaved recipe generated in each of ``shown_in``."""
    registry = SessionIdRegistry()
    for turn in shown_in:
        registry.begin_turn(turn)
        registry.register_generated("recipe", {"name": f"Idea {turn}"})
    registry.begin_turn(5)
    return registry


def unsaved(registry: SessionIdRegistry) -> dict[str, str]:
    return {ref: registry.label(ref) for ref in registry.get_truly_pending_artifacts()}


def test_forgetting_names_what_understand_dropped_of_the_unsaved_content():
    registry = suggestions(3, 4)
    before = unsaved(registry)
    summary, _ = apply_curation(registry, curated(drop=["gen_recipe_1"]))
    assert forget_what_was_shown(registry, before, summary) == ["Idea 3"]
    assert registry.known_refs() == ["gen_recipe_2"]  # the other suggestion stays


def test_when_understand_dropped_nothing_the_one_suggestion_just_shown_is_forgotten():
    registry = suggestions(2, 4)  # turn 4 showed Idea 4; Idea 2 is older
    summary = CurationSummary()
    assert forget_what_was_shown(registry, unsaved(registry), summary) == ["Idea 4"]
    assert registry.known_refs() == ["gen_recipe_1"] and summary.dropped == ["gen_recipe_2"]


def test_nothing_is_forgotten_when_what_was_meant_is_not_one_just_shown_suggestion():
    for registry in (suggestions(4, 4), suggestions(2), SessionIdRegistry()):
        summary = CurationSummary()
        assert forget_what_was_shown(registry, unsaved(registry), summary) == []
        assert summary.dropped == []
    saved = SessionIdRegistry()  # a saved recipe is deleted by a plan, never "forgotten"
    saved.begin_turn(4)
    saved.ref_for_uuid(str(uuid.UUID(int=1)), "recipe", action="read", label="Dal")
    saved.begin_turn(5)
    summary, _ = apply_curation(saved, curated(drop=["recipe_1"]))
    assert forget_what_was_shown(saved, unsaved(saved), summary) == []


def test_starting_over_forgets_every_suggestion():
    registry = suggestions(1, 4)
    before = unsaved(registry)
    summary, _ = apply_curation(registry, curated(clear_all=True))
    assert forget_what_was_shown(registry, before, summary) == ["Idea 1", "Idea 4"]
