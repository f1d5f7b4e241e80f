"""Specification of SessionIdRegistry: refs, lifecycle, enrichment, pending artifacts, context."""

from __future__ import annotations

import json
import uuid

import pytest
from pydantic import ValidationError

from domain.registry import (
    PENDING,
    PendingRefError,
    RegistryDelta,
    SessionIdRegistry,
    UnknownRefError,
    is_ref,
    is_uuid,
)


def uid(n: int) -> str:
    """A fixed, readable UUID string for test data."""
    return str(uuid.UUID(int=n))


RECIPE_A = uid(1)
RECIPE_B = uid(2)
MEAL = uid(3)
INV = uid(4)
NEW_ROW = uid(5)
RI_1 = uid(6)
RI_2 = uid(7)
USER = uid(99)


def recipe_row(id_: str = RECIPE_A, name: str = "Butter Chicken", **extra: object) -> dict:
    return {"id": id_, "user_id": USER, "name": name, **extra}


def full_recipe_row() -> dict:
    return recipe_row(
        instructions=["Marinate", "Simmer"],
        recipe_ingredients=[
            {"id": RI_1, "recipe_id": RECIPE_A, "name": "chicken", "user_id": USER},
            {"id": RI_2, "recipe_id": RECIPE_A, "name": "butter", "user_id": USER},
        ],
    )


# ---------------------------------------------------------------- ref format


def test_is_ref_accepts_known_types_and_gen_refs() -> None:
    assert is_ref("recipe_1")
    assert is_ref("gen_recipe_2")
    assert is_ref("ri_10")


def test_is_ref_rejects_uuids_unknown_types_and_non_strings() -> None:
    assert not is_ref(RECIPE_A)
    assert not is_ref("widget_1")
    assert not is_ref("recipe_x")
    assert not is_ref("recipe")
    assert not is_ref(3)
    assert not is_ref(None)


def test_is_uuid_accepts_only_canonical_uuid_strings() -> None:
    assert is_uuid(RECIPE_A)
    assert not is_uuid(RECIPE_A.replace("-", ""))
    assert not is_uuid("recipe_1")
    assert not is_uuid(PENDING)
    assert not is_uuid(uuid.UUID(int=1))


# ---------------------------------------------------------------- assignment


def test_first_read_assigns_sequential_refs_per_type() -> None:
    reg = SessionIdRegistry()
    out = reg.translate_read_output([recipe_row(), recipe_row(RECIPE_B, "Dal")], "recipes")
    inv = reg.translate_read_output([{"id": INV, "name": "rice"}], "inventory")
    assert [r["id"] for r in out] == ["recipe_1", "recipe_2"]
    assert inv[0]["id"] == "inv_1"


def test_reading_the_same_uuid_again_reuses_its_ref() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    reg.begin_turn(1)
    again = reg.translate_read_output([recipe_row(RECIPE_B, "Dal"), recipe_row()], "recipes")
    assert [r["id"] for r in again] == ["recipe_2", "recipe_1"]
    assert reg.ref_turn_created["recipe_1"] == 0
    assert reg.ref_turn_last_ref["recipe_1"] == 1


def test_upper_case_uuid_maps_to_the_same_ref() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    assert reg.ref_for_uuid(RECIPE_A.upper(), "recipe", action="read") == "recipe_1"


def test_read_of_a_table_without_entity_type_raises() -> None:
    with pytest.raises(ValueError):
        SessionIdRegistry().translate_read_output([{"id": USER}], "users")


def test_read_sets_action_label_and_type() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes", step=2)
    assert reg.action("recipe_1") == "read"
    assert reg.label("recipe_1") == "Butter Chicken"
    assert reg.type_of("recipe_1") == "recipe"
    assert reg.ref_source_step["recipe_1"] == 2


def test_ref_for_uuid_reuses_ref_and_updates_action_and_label() -> None:
    reg = SessionIdRegistry()
    first = reg.ref_for_uuid(RECIPE_A, "recipe", action="read", label="Old")
    reg.begin_turn(3)
    second = reg.ref_for_uuid(RECIPE_A, "recipe", action="updated", label="New")
    assert first == second == "recipe_1"
    assert reg.action("recipe_1") == "updated"
    assert reg.label("recipe_1") == "New"
    assert reg.ref_turn_last_ref["recipe_1"] == 3


def test_translate_read_output_does_not_mutate_input() -> None:
    reg = SessionIdRegistry()
    row = full_recipe_row()
    snapshot = json.loads(json.dumps(row))
    reg.translate_read_output([row], "recipes")
    assert row == snapshot


def test_user_id_is_dropped_from_read_output() -> None:
    reg = SessionIdRegistry()
    out = reg.translate_read_output([full_recipe_row()], "recipes")
    assert "user_id" not in out[0]
    assert all("user_id" not in item for item in out[0]["recipe_ingredients"])


def test_record_without_id_passes_through_with_fks_translated() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    out = reg.translate_read_output([{"recipe_id": RECIPE_A, "servings": 2}], "meal_plans")
    assert out == [{"recipe_id": "recipe_1", "_recipe_id_label": "Butter Chicken", "servings": 2}]
    assert reg.known_refs() == ["recipe_1"]


# ---------------------------------------------------------------- counters


def test_counters_are_not_reused_after_remove_ref() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    reg.remove_ref("recipe_1")
    out = reg.translate_read_output([recipe_row()], "recipes")
    assert out[0]["id"] == "recipe_2"
    assert "recipe_1" not in reg.known_refs()


def test_counters_are_not_reused_after_clear_all() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    reg.register_generated("recipe", {"name": "Tofu Curry"})
    reg.clear_all()
    assert reg.known_refs() == []
    assert reg.get_all_pending_artifacts() == {}
    assert reg.translate_read_output([recipe_row()], "recipes")[0]["id"] == "recipe_2"
    assert reg.register_generated("recipe", {"name": "Tofu Curry"}) == "gen_recipe_2"


def test_counters_keep_counting_after_round_trip() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    reg.register_generated("recipe", {"name": "Tofu Curry"})
    restored = SessionIdRegistry.from_dict(json.loads(json.dumps(reg.to_dict())))
    assert restored.ref_for_uuid(RECIPE_B, "recipe", action="read") == "recipe_2"
    assert restored.register_generated("recipe", {"name": "Dal"}) == "gen_recipe_2"


def test_lagging_counter_from_old_state_never_hands_out_a_live_ref() -> None:
    reg = SessionIdRegistry.from_dict(
        {"ref_to_uuid": {"recipe_1": RECIPE_A}, "uuid_to_ref": {RECIPE_A: "recipe_1"}}
    )
    assert reg.ref_for_uuid(RECIPE_B, "recipe", action="read") == "recipe_2"


# ---------------------------------------------------------------- serialization


def test_to_dict_round_trip_is_exact_and_json_serializable() -> None:
    reg = SessionIdRegistry(session_id="s-1")
    reg.begin_turn(2)
    reg.translate_read_output([full_recipe_row()], "recipes", step=1)
    reg.register_generated("recipe", {"name": "Tofu Curry", "tags": ["vegan"]}, step=2)
    reg.set_active_reason("recipe_1", "weekly plan")
    data = reg.to_dict()
    restored = SessionIdRegistry.from_dict(json.loads(json.dumps(data)))
    assert restored.to_dict() == data
    assert restored == reg


def test_to_dict_excludes_the_enrichment_queue() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([{"id": MEAL, "recipe_id": RECIPE_A}], "meal_plans")
    assert reg.lazy_enrich_queue()
    assert "_lazy_enrich_queue" not in reg.to_dict()
    assert SessionIdRegistry.from_dict(reg.to_dict()).lazy_enrich_queue() == {}


def test_from_dict_fills_missing_keys_with_defaults() -> None:
    reg = SessionIdRegistry.from_dict(
        {"ref_to_uuid": {"recipe_1": RECIPE_A}, "counters": {"recipe": 1}, "current_turn": 4}
    )
    assert reg.resolve("recipe_1") == RECIPE_A
    assert reg.current_turn == 4
    assert reg.ref_active_reason == {}
    assert reg.pending_artifacts == {}


def test_from_dict_of_none_or_empty_gives_an_empty_registry() -> None:
    assert SessionIdRegistry.from_dict(None) == SessionIdRegistry()
    assert SessionIdRegistry.from_dict({}).to_dict() == SessionIdRegistry().to_dict()


def test_identical_call_sequences_give_identical_state() -> None:
    def run() -> dict:
        reg = SessionIdRegistry(session_id="s")
        reg.begin_turn(1)
        reg.translate_read_output([full_recipe_row()], "recipes")
        reg.translate_read_output([{"id": MEAL, "recipe_id": RECIPE_B}], "meal_plans")
        reg.apply_enrichment({"recipe_2": "Dal"})
        gen = reg.register_generated("recipe", {"name": "Greek Salad"})
        reg.update_entity_data(gen, {"name": "Greek Salad with Feta"})
        reg.begin_turn(2)
        reg.register_created(NEW_ROW, "recipes", {"name": "greek salad with feta"})
        reg.set_active_reason("meal_1", "plan")
        return reg.to_dict()

    assert json.dumps(run()) == json.dumps(run())


# ---------------------------------------------------------------- resolution


def test_resolve_unknown_ref_raises_unknown_ref_error_naming_it() -> None:
    reg = SessionIdRegistry()
    with pytest.raises(UnknownRefError, match="unknown ref 'recipe_9'"):
        reg.resolve("recipe_9")


def test_resolve_pending_gen_ref_raises_pending_ref_error() -> None:
    reg = SessionIdRegistry()
    ref = reg.register_generated("recipe", {"name": "Tofu Curry"})
    with pytest.raises(PendingRefError, match="save it first"):
        reg.resolve(ref)


def test_errors_are_value_errors() -> None:
    assert issubclass(UnknownRefError, ValueError)
    assert issubclass(PendingRefError, ValueError)


def test_translate_value_resolves_refs_in_lists_and_passes_uuids_through() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row(), recipe_row(RECIPE_B, "Dal")], "recipes")
    assert reg.translate_value("recipe_2") == RECIPE_B
    assert reg.translate_value(["recipe_1", RECIPE_B]) == [RECIPE_A, RECIPE_B]
    assert reg.translate_value(INV) == INV
    assert reg.translate_value("just text") == "just text"
    assert reg.translate_value(None) is None


def test_translate_value_raises_for_unknown_ref_inside_a_list() -> None:
    reg = SessionIdRegistry()
    with pytest.raises(UnknownRefError):
        reg.translate_value([RECIPE_A, "recipe_3"])


# ---------------------------------------------------------------- generated artifacts


def test_register_generated_assigns_gen_ref_with_pending_uuid() -> None:
    reg = SessionIdRegistry()
    ref = reg.register_generated("recipe", {"name": "Tofu Curry"})
    assert ref == "gen_recipe_1"
    assert reg.ref_to_uuid[ref] == PENDING
    assert reg.action(ref) == "generated"
    assert reg.label(ref) == "Tofu Curry"
    assert PENDING not in reg.uuid_to_ref


def test_register_generated_stores_a_copy_of_the_content() -> None:
    reg = SessionIdRegistry()
    content = {"name": "Tofu Curry", "tags": ["vegan"]}
    ref = reg.register_generated("recipe", content)
    content["tags"].append("spicy")
    assert reg.get_entity_data(ref) == {"name": "Tofu Curry", "tags": ["vegan"]}


def test_reading_a_pending_gen_ref_is_rerouted_to_its_content() -> None:
    reg = SessionIdRegistry()
    ref = reg.register_generated("recipe", {"name": "Tofu Curry", "servings": 2})
    rows = reg.reroute_pending_read("recipes", [ref])
    assert rows == [{"id": "gen_recipe_1", "name": "Tofu Curry", "servings": 2}]


def test_reroute_returns_none_for_real_refs_or_other_tables() -> None:
    reg = SessionIdRegistry()
    gen = reg.register_generated("recipe", {"name": "Tofu Curry"})
    reg.translate_read_output([recipe_row()], "recipes")
    assert reg.reroute_pending_read("recipes", [gen, "recipe_1"]) is None
    assert reg.reroute_pending_read("inventory", [gen]) is None
    assert reg.reroute_pending_read("recipes", []) is None


def test_update_entity_data_revises_a_pending_artifact_in_place() -> None:
    reg = SessionIdRegistry()
    ref = reg.register_generated("recipe", {"name": "Greek Salad", "ingredients": ["tomato"]})
    revised = {"name": "Greek Salad with Feta", "ingredients": ["tomato", "feta"]}
    reg.update_entity_data(ref, revised)
    assert reg.get_entity_data(ref) == revised
    assert reg.label(ref) == "Greek Salad with Feta"
    assert reg.known_refs() == [ref]


def test_update_entity_data_rejects_refs_that_are_not_generated() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    with pytest.raises(ValueError):
        reg.update_entity_data("recipe_1", {"name": "x"})


# ---------------------------------------------------------------- promotion


def test_register_created_with_gen_ref_promotes_it() -> None:
    reg = SessionIdRegistry()
    gen = reg.register_generated("recipe", {"name": "Tofu Curry"})
    reg.begin_turn(1)
    ref = reg.register_created(NEW_ROW, "recipes", {"name": "Tofu Curry v2"}, gen_ref=gen)
    assert ref == gen
    assert reg.resolve(gen) == NEW_ROW
    assert reg.uuid_to_ref[NEW_ROW] == gen
    assert reg.action(gen) == "created"
    assert reg.ref_turn_promoted[gen] == 1


def test_register_created_promotes_pending_artifact_with_matching_label() -> None:
    reg = SessionIdRegistry()
    reg.register_generated("recipe", {"name": "Dal"})
    gen = reg.register_generated("recipe", {"name": "Tofu Curry"})
    ref = reg.register_created(NEW_ROW, "recipes", {"name": "TOFU CURRY"})
    assert ref == gen
    assert reg.resolve(gen) == NEW_ROW


def test_promoted_gen_ref_is_no_longer_rerouted() -> None:
    reg = SessionIdRegistry()
    gen = reg.register_generated("recipe", {"name": "Tofu Curry"})
    reg.register_created(NEW_ROW, "recipes", {"name": "Tofu Curry"})
    assert reg.reroute_pending_read("recipes", [gen]) is None
    assert reg.translate_value(gen) == NEW_ROW


def test_register_created_without_match_assigns_a_fresh_ref() -> None:
    reg = SessionIdRegistry()
    reg.register_generated("recipe", {"name": "Tofu Curry"})
    ref = reg.register_created(NEW_ROW, "recipes", {"name": "Lemon Pasta"})
    assert ref == "recipe_1"
    assert reg.action(ref) == "created"
    assert list(reg.get_truly_pending_artifacts()) == ["gen_recipe_1"]


def test_created_row_label_never_quotes_a_raw_uuid() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    row = {"recipe_id": RECIPE_A, "cooked_at": "2026-11-20"}
    reg.register_created(uid(10), "cooking_log", row)
    reg.register_created(uid(11), "cooking_log", {**row, "recipe_id": RECIPE_B})
    assert reg.label("log_1") == "cooked Butter Chicken 2026-11-20"
    assert reg.label("log_2") == "cooked a recipe 2026-11-20"


def test_register_created_rejects_gen_ref_of_another_type() -> None:
    reg = SessionIdRegistry()
    gen = reg.register_generated("meal", {"date": "2026-11-23", "meal_type": "dinner"})
    with pytest.raises(ValueError):
        reg.register_created(NEW_ROW, "recipes", {"name": "Tofu Curry"}, gen_ref=gen)


def test_promoted_content_survives_until_clear_turn_promoted_artifacts() -> None:
    reg = SessionIdRegistry()
    gen = reg.register_generated("recipe", {"name": "Tofu Curry"})
    still_pending = reg.register_generated("recipe", {"name": "Dal"})
    reg.begin_turn(1)
    reg.register_created(NEW_ROW, "recipes", {"name": "Tofu Curry"}, gen_ref=gen)
    assert reg.get_entity_data(gen) == {"name": "Tofu Curry"}
    assert list(reg.get_just_promoted_artifacts()) == [gen]
    assert list(reg.get_truly_pending_artifacts()) == [still_pending]
    assert list(reg.get_all_pending_artifacts()) == [gen, still_pending]
    assert reg.clear_turn_promoted_artifacts() == [gen]
    assert reg.get_entity_data(gen) is None
    assert reg.resolve(gen) == NEW_ROW
    assert list(reg.get_all_pending_artifacts()) == [still_pending]


def test_clear_pending_artifact_drops_only_that_content() -> None:
    reg = SessionIdRegistry()
    first = reg.register_generated("recipe", {"name": "Tofu Curry"})
    second = reg.register_generated("recipe", {"name": "Dal"})
    reg.clear_pending_artifact(first)
    assert list(reg.get_all_pending_artifacts()) == [second]


# ---------------------------------------------------------------- FK lazy registration


def test_unknown_fk_uuid_is_lazily_registered_as_linked_and_queued() -> None:
    reg = SessionIdRegistry()
    out = reg.translate_read_output(
        [{"id": MEAL, "recipe_id": RECIPE_A, "date": "2026-11-23", "meal_type": "dinner"}],
        "meal_plans",
    )
    assert out[0]["id"] == "meal_1"
    assert out[0]["recipe_id"] == "recipe_1"
    assert "_recipe_id_label" not in out[0]
    assert reg.action("recipe_1") == "linked"
    assert reg.lazy_enrich_queue() == {"recipe_1": ("recipes", "name", RECIPE_A)}


def test_enrichment_labels_linked_refs_and_clears_the_queue() -> None:
    reg = SessionIdRegistry()
    out = reg.translate_read_output([{"id": MEAL, "recipe_id": RECIPE_A}], "meal_plans")
    reg.apply_enrichment({"recipe_1": "Butter Chicken"})
    labelled = reg.add_enriched_labels(out, "meal_plans")
    assert labelled[0]["_recipe_id_label"] == "Butter Chicken"
    assert reg.label("recipe_1") == "Butter Chicken"
    assert reg.lazy_enrich_queue() == {}
    assert "_recipe_id_label" not in out[0]


def test_known_fk_gets_its_label_directly_without_queueing() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    out = reg.translate_read_output([{"id": MEAL, "recipe_id": RECIPE_A}], "meal_plans")
    assert out[0]["recipe_id"] == "recipe_1"
    assert out[0]["_recipe_id_label"] == "Butter Chicken"
    assert reg.lazy_enrich_queue() == {}
    assert reg.action("recipe_1") == "read"


def test_none_fk_stays_none() -> None:
    reg = SessionIdRegistry()
    out = reg.translate_read_output([{"id": MEAL, "recipe_id": None}], "meal_plans")
    assert out[0]["recipe_id"] is None
    assert reg.known_refs() == ["meal_1"]


def test_nameless_known_fk_is_queued_again_after_the_queue_was_lost() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([{"id": MEAL, "recipe_id": RECIPE_A}], "meal_plans")
    restored = SessionIdRegistry.from_dict(reg.to_dict())
    restored.translate_read_output([{"id": MEAL, "recipe_id": RECIPE_A}], "meal_plans")
    assert restored.lazy_enrich_queue() == {"recipe_1": ("recipes", "name", RECIPE_A)}


def test_enrichment_relabels_rows_whose_label_uses_the_fk_label() -> None:
    reg = SessionIdRegistry()
    log = {"id": uid(9), "recipe_id": RECIPE_A, "cooked_at": "2026-11-20T19:00:00"}
    out = reg.translate_read_output([log], "cooking_log")
    assert reg.label("log_1") == "cooked recipe_1 2026-11-20"
    reg.apply_enrichment({"recipe_1": "Butter Chicken"})
    reg.add_enriched_labels(out, "cooking_log")
    assert reg.label("log_1") == "cooked Butter Chicken 2026-11-20"


def test_nested_recipe_ingredients_get_ri_refs_pointing_at_the_parent() -> None:
    reg = SessionIdRegistry()
    out = reg.translate_read_output([full_recipe_row()], "recipes")
    items = out[0]["recipe_ingredients"]
    assert [item["id"] for item in items] == ["ri_1", "ri_2"]
    assert [item["recipe_id"] for item in items] == ["recipe_1", "recipe_1"]
    assert items[0]["_recipe_id_label"] == "Butter Chicken"
    assert reg.label("ri_2") == "butter"
    assert reg.lazy_enrich_queue() == {}


# ---------------------------------------------------------------- detail tracking


def test_full_recipe_read_is_tracked_as_full_with_its_turn() -> None:
    reg = SessionIdRegistry()
    reg.begin_turn(3)
    reg.translate_read_output([full_recipe_row()], "recipes")
    assert reg.ref_detail_tracking["recipe_1"] == {"level": "full", "full_turn": 3}


def test_summary_recipe_read_is_tracked_as_summary() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    assert reg.ref_detail_tracking["recipe_1"] == {"level": "summary"}


def test_summary_read_after_full_read_does_not_downgrade() -> None:
    reg = SessionIdRegistry()
    reg.begin_turn(1)
    reg.translate_read_output([full_recipe_row()], "recipes")
    reg.begin_turn(2)
    reg.translate_read_output([recipe_row()], "recipes")
    assert reg.ref_detail_tracking["recipe_1"] == {"level": "full", "full_turn": 1}


def test_untracked_types_get_no_detail_entry() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([{"id": INV, "name": "rice"}], "inventory")
    assert reg.ref_detail_tracking == {}


# ---------------------------------------------------------------- UI and actions


@pytest.mark.parametrize(
    "action", ["created:user", "updated:user", "deleted:user", "mentioned:user"]
)
def test_register_from_ui_records_the_user_action(action: str) -> None:
    reg = SessionIdRegistry()
    ref = reg.register_from_ui(INV, "inventory", {"name": "rice"}, action)
    assert ref == "inv_1"
    assert reg.action(ref) == action
    assert reg.label(ref) == "rice"


def test_register_from_ui_reuses_the_ref_of_a_known_uuid() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([{"id": INV, "name": "rice"}], "inventory")
    reg.begin_turn(1)
    ref = reg.register_from_ui(INV, "inventory", None, "updated:user")
    assert ref == "inv_1"
    assert reg.label(ref) == "rice"
    assert reg.ref_turn_last_ref[ref] == 1


def test_register_from_ui_rejects_non_user_actions() -> None:
    reg = SessionIdRegistry()
    with pytest.raises(ValueError):
        reg.register_from_ui(INV, "inventory", None, "read")


def test_mark_action_tags_the_ref_and_touches_it() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    reg.begin_turn(2)
    reg.mark_action("recipe_1", "deleted")
    assert reg.action("recipe_1") == "deleted"
    assert reg.ref_turn_last_ref["recipe_1"] == 2


def test_touch_of_unknown_ref_raises() -> None:
    with pytest.raises(UnknownRefError):
        SessionIdRegistry().touch("recipe_1")


# ---------------------------------------------------------------- active context


def test_active_entities_are_those_referenced_within_the_window() -> None:
    reg = SessionIdRegistry()
    reg.begin_turn(1)
    reg.translate_read_output([recipe_row()], "recipes")
    reg.begin_turn(2)
    reg.translate_read_output([{"id": INV, "name": "rice"}], "inventory")
    assert reg.get_active_entities() == (["recipe_1", "inv_1"], [])
    reg.begin_turn(3)
    assert reg.get_active_entities() == (["inv_1"], [])


def test_older_refs_with_an_active_reason_are_retained() -> None:
    reg = SessionIdRegistry()
    reg.begin_turn(1)
    reg.translate_read_output([recipe_row(), recipe_row(RECIPE_B, "Dal")], "recipes")
    reg.set_active_reason("recipe_2", "weekly plan goal")
    reg.begin_turn(5)
    assert reg.get_active_entities() == ([], ["recipe_2"])
    reg.clear_active_reason("recipe_2")
    assert reg.get_active_entities() == ([], [])


def test_touch_brings_an_old_ref_back_into_the_window() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    reg.begin_turn(4)
    reg.touch("recipe_1")
    assert reg.get_active_entities(turns_window=1) == (["recipe_1"], [])


def test_remove_ref_forgets_the_ref_and_its_uuid() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    reg.set_active_reason("recipe_1", "x")
    reg.remove_ref("recipe_1")
    with pytest.raises(UnknownRefError):
        reg.resolve("recipe_1")
    assert RECIPE_A not in reg.uuid_to_ref
    assert reg.ref_active_reason == {}
    assert reg.counters == {"recipe": 1}


# --- deltas: what an activity sends back instead of the whole registry ----------------------


def test_a_delta_applied_to_the_registry_before_gives_the_registry_after():
    before = SessionIdRegistry()
    before.begin_turn(3)
    before.register_generated("recipe", {"name": "Dal"})
    before.ref_for_uuid("00000000-0000-0000-0000-00000000000a", "inv", action="read", label="rice")
    snapshot = before.to_dict()

    after = SessionIdRegistry.from_dict(snapshot)
    after.register_created("00000000-0000-0000-0000-00000000000b", "recipes", {"name": "Dal"})
    after.ref_for_uuid("00000000-0000-0000-0000-00000000000c", "inv", action="read", label="oats")
    after.remove_ref("inv_1")
    after.begin_turn(4)
    delta = after.delta_since(snapshot)

    applied = SessionIdRegistry.from_dict(snapshot)
    applied.apply_delta(delta)
    assert applied.to_dict() == after.to_dict()
    assert "inv_1" in delta.removed["ref_to_uuid"] and dict(delta.scalars.given()) == {
        "current_turn": 4
    }
    assert "gen_recipe_1" not in delta.changed.pending_artifacts  # unchanged content


def test_the_entries_a_call_touched_with_its_changes_rebuild_a_copy_lacking_them():
    saved = SessionIdRegistry()
    saved.begin_turn(1)
    saved.ref_for_uuid("00000000-0000-0000-0000-00000000000a", "inv", action="read", label="rice")
    copy_ = saved.only([])  # a later turn's working copy: the rice is too old to show
    before = saved.to_dict()
    saved.begin_turn(9)
    saved.touch("inv_1")
    saved.ref_for_uuid("00000000-0000-0000-0000-00000000000c", "inv", action="read", label="oats")
    changes = saved.delta_since(before)
    touched = [ref for ref in saved.known_refs() if ref in saved.refs_in(changes)]
    copy_.adopt(saved.entries_of(touched))
    copy_.apply_delta(changes)
    assert copy_.known_refs() == ["inv_1", "inv_2"]
    assert copy_.label("inv_1") == "rice" and copy_.ref_turn_last_ref["inv_1"] == 9
    assert copy_.current_turn == 9 and copy_.counters == {"inv": 2}


def test_a_delta_is_typed_as_the_registry_and_written_as_before():
    written = {
        "changed": {"ref_to_uuid": {"inv_1": "u1"}, "ref_turn_created": {"inv_1": 3}},
        "removed": {"ref_labels": ["inv_9"]},
        "scalars": {"current_turn": 3},
    }
    delta = RegistryDelta.model_validate(written)
    assert delta.changed.ref_turn_created == {"inv_1": 3}
    assert delta.model_dump(mode="json") == written  # what histories and results hold
    assert RegistryDelta().model_dump(mode="json") == {}
    with pytest.raises(ValidationError):
        RegistryDelta.model_validate({"changed": {"ref_turn_created": {"inv_1": "soon"}}})
    with pytest.raises(ValidationError):
        RegistryDelta.model_validate({"removed": {"no_such_map": ["inv_1"]}})
    with pytest.raises(ValidationError):
        RegistryDelta.model_validate({"changed": {"no_such_map": {"inv_1": 1}}})


def test_a_copy_never_hands_out_a_ref_it_does_not_hold_when_counters_lag():
    """A state saved by older code: gen_recipe_3 exists, its counter says 1. The working
    copy (which does not hold the old recipe) numbers the next one 4, not 3 again."""
    saved = SessionIdRegistry()
    saved.begin_turn(1)
    for name in ("A", "B", "C"):
        saved.register_generated("recipe", {"name": name})
    saved.gen_counters["recipe"] = 1
    saved.counters["inv"] = 0
    saved.ref_for_uuid(uid(20), "inv", action="read", label="rice")  # skips a live number
    saved.ref_to_uuid["inv_7"] = uid(21)
    copy_ = saved.only([])
    assert copy_.register_generated("recipe", {"name": "D"}) == "gen_recipe_4"
    assert copy_.ref_for_uuid(uid(22), "inv", action="read", label="oats") == "inv_8"


def test_adopting_entries_adds_the_refs_a_copy_lacks_and_keeps_the_ones_it_holds():
    """Entries read while the copy moved on (a sibling step saved the soup meanwhile) must
    not take the copy back; a ref the copy never had joins it whole."""
    saved = SessionIdRegistry()
    saved.begin_turn(1)
    saved.ref_for_uuid(uid(10), "inv", action="read", label="rice")
    soup = saved.register_generated("recipe", {"name": "Soup"})
    stale = saved.entries_of(["inv_1", soup])
    copy_ = saved.only([soup])
    copy_.register_created(uid(11), "recipes", {"name": "Soup"})  # promotes the soup
    copy_.adopt(stale)
    assert copy_.resolve(soup) == uid(11) and copy_.action(soup) == "created"
    assert copy_.resolve("inv_1") == uid(10) and copy_.label("inv_1") == "rice"
    assert copy_.uuid_to_ref == {uid(10): "inv_1", uid(11): soup}


def test_no_change_is_an_empty_delta():
    registry = SessionIdRegistry()
    registry.register_generated("recipe", {"name": "Dal"})
    assert registry.delta_since(registry.to_dict()).is_empty()
