"""Specification of SessionIdRegistry: refs and their entries, rows translated into refs,
generated content until it is saved, the active window, copies and deltas."""

from __future__ import annotations

import json
import uuid

import pytest
from pydantic import ValidationError

from domain.registry import (
    PendingRefError,
    RefEntry,
    RegistryDelta,
    RowTranslator,
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


def stored(reg: SessionIdRegistry) -> SessionIdRegistry:
    """``reg`` as saved in the conversation state and loaded again (JSON both ways)."""
    return SessionIdRegistry.model_validate_json(reg.model_dump_json())


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
    assert not is_ref("recipe_²")
    assert not is_ref(3)
    assert not is_ref(None)


def test_is_uuid_accepts_only_canonical_uuid_strings() -> None:
    assert is_uuid(RECIPE_A)
    assert not is_uuid(RECIPE_A.replace("-", ""))
    assert not is_uuid("recipe_1")
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
    assert reg.entries["recipe_1"].created == 0
    assert reg.entries["recipe_1"].last_ref == 1


def test_upper_case_uuid_maps_to_the_same_ref() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    assert reg.ref_for_uuid(RECIPE_A.upper(), "recipe", action="read") == "recipe_1"
    assert reg.ref_of(RECIPE_A.upper()) == reg.ref_of(uuid.UUID(RECIPE_A)) == "recipe_1"


def test_read_of_a_table_without_entity_type_raises() -> None:
    with pytest.raises(ValueError):
        SessionIdRegistry().translate_read_output([{"id": USER}], "users")


def test_read_makes_an_entry_with_uuid_type_label_action_and_turns() -> None:
    reg = SessionIdRegistry()
    reg.begin_turn(2)
    reg.translate_read_output([recipe_row()], "recipes")
    assert reg.entries["recipe_1"] == RefEntry(
        type="recipe",
        uuid=RECIPE_A,
        label="Butter Chicken",
        action="read",
        created=2,
        last_ref=2,
        detail="summary",
    )
    assert (reg.label("recipe_1"), reg.type_of("recipe_1"), reg.action("recipe_1")) == (
        "Butter Chicken",
        "recipe",
        "read",
    )


def test_ref_for_uuid_reuses_ref_and_updates_action_and_label() -> None:
    reg = SessionIdRegistry()
    first = reg.ref_for_uuid(RECIPE_A, "recipe", action="read", label="Old")
    reg.begin_turn(3)
    second = reg.ref_for_uuid(RECIPE_A, "recipe", action="updated", label="New")
    assert first == second == "recipe_1"
    assert reg.action("recipe_1") == "updated"
    assert reg.label("recipe_1") == "New"
    assert reg.last_referenced("recipe_1") == 3


def test_entries_are_frozen_a_change_replaces_them() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    before = reg.entries["recipe_1"]
    with pytest.raises(ValidationError):
        before.label = "Other"  # type: ignore[misc]
    reg.begin_turn(4)
    reg.touch("recipe_1")
    assert before.last_ref == 0 and reg.entries["recipe_1"].last_ref == 4


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
    assert reg.artifacts == {}
    assert reg.translate_read_output([recipe_row()], "recipes")[0]["id"] == "recipe_2"
    assert reg.register_generated("recipe", {"name": "Tofu Curry"}) == "gen_recipe_2"


def test_counters_count_rows_and_generated_content_apart_and_survive_storage() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    reg.register_generated("recipe", {"name": "Tofu Curry"})
    assert reg.counters == {"recipe": 1, "gen_recipe": 1}
    restored = stored(reg)
    assert restored.ref_for_uuid(RECIPE_B, "recipe", action="read") == "recipe_2"
    assert restored.register_generated("recipe", {"name": "Dal"}) == "gen_recipe_2"


# ---------------------------------------------------------------- storage


def test_stored_and_loaded_the_registry_is_the_same() -> None:
    reg = SessionIdRegistry()
    reg.begin_turn(2)
    reg.translate_read_output([full_recipe_row()], "recipes")
    reg.register_generated("recipe", {"name": "Tofu Curry", "tags": ["vegan"]})
    reg.set_active_reason("recipe_1", "weekly plan")
    restored = stored(reg)
    assert restored == reg
    assert restored.model_dump() == reg.model_dump()
    assert restored.ref_of(RI_2) == "ri_2"  # the UUID index is rebuilt on load


def test_the_stored_shape_is_entries_counters_artifacts_and_turn() -> None:
    reg = SessionIdRegistry()
    reg.begin_turn(1)
    reg.translate_read_output([{"id": INV, "name": "rice"}], "inventory")
    gen = reg.register_generated("recipe", {"name": "Dal"})
    assert json.loads(reg.model_dump_json()) == {
        "entries": {
            "inv_1": {
                "type": "inv",
                "uuid": INV,
                "label": "rice",
                "action": "read",
                "created": 1,
                "last_ref": 1,
                "promoted": None,
                "active_reason": None,
                "detail": None,
            },
            gen: {
                "type": "recipe",
                "uuid": None,
                "label": "Dal",
                "action": "generated",
                "created": 1,
                "last_ref": 1,
                "promoted": None,
                "active_reason": None,
                "detail": None,
            },
        },
        "counters": {"inv": 1, "gen_recipe": 1},
        "artifacts": {gen: {"name": "Dal"}},
        "turn": 1,
    }


def test_a_stored_registry_missing_fields_loads_with_their_defaults() -> None:
    reg = SessionIdRegistry.model_validate(
        {"entries": {"recipe_1": {"type": "recipe", "uuid": RECIPE_A}}, "turn": 4}
    )
    assert reg.resolve("recipe_1") == RECIPE_A
    assert reg.turn == 4 and reg.label("recipe_1") == "" and reg.artifacts == {}
    assert SessionIdRegistry.model_validate({}) == SessionIdRegistry()


def test_a_registry_in_an_unknown_shape_is_refused_not_read_as_empty() -> None:
    """A state saved in the shape before migration 0005 fails loudly: read as an empty
    registry, every ref of the conversation would be lost without a word."""
    with pytest.raises(ValidationError):
        SessionIdRegistry.model_validate({"ref_to_uuid": {"recipe_1": RECIPE_A}})
    with pytest.raises(ValidationError):
        SessionIdRegistry.model_validate({"entries": {"recipe_1": {"type": "recipe", "x": 1}}})


def test_identical_call_sequences_give_identical_state() -> None:
    def run() -> str:
        reg = SessionIdRegistry()
        reg.begin_turn(1)
        reg.translate_read_output([full_recipe_row()], "recipes")
        rows = RowTranslator(reg)
        read = rows.rows([{"id": MEAL, "recipe_id": RECIPE_B}], "meal_plans")
        rows.named(read, "meal_plans", {"recipe_2": "Dal"})
        gen = reg.register_generated("recipe", {"name": "Greek Salad"})
        reg.update_entity_data(gen, {"name": "Greek Salad with Feta"})
        reg.begin_turn(2)
        reg.register_created(NEW_ROW, "recipes", {"name": "greek salad with feta"})
        reg.set_active_reason("meal_1", "plan")
        return reg.model_dump_json()

    assert run() == run()


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


def test_register_generated_assigns_a_gen_ref_without_a_uuid() -> None:
    reg = SessionIdRegistry()
    ref = reg.register_generated("recipe", {"name": "Tofu Curry"})
    assert ref == "gen_recipe_1"
    assert reg.entries[ref].uuid is None
    assert reg.action(ref) == "generated"
    assert reg.label(ref) == "Tofu Curry"


def test_register_generated_stores_a_copy_of_the_content() -> None:
    reg = SessionIdRegistry()
    content = {"name": "Tofu Curry", "tags": ["vegan"]}
    ref = reg.register_generated("recipe", content)
    content["tags"].append("spicy")
    assert reg.get_entity_data(ref) == {"name": "Tofu Curry", "tags": ["vegan"]}
    reg.get_entity_data(ref)["tags"].append("hot")  # type: ignore[index]
    assert reg.artifacts[ref] == {"name": "Tofu Curry", "tags": ["vegan"]}


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
    assert reg.ref_of(NEW_ROW) == gen
    assert reg.action(gen) == "created"
    assert reg.entries[gen].promoted == 1
    assert reg.promoted() == [gen]


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
    assert list(reg.get_truly_pending_artifacts()) == reg.unsaved_refs() == ["gen_recipe_1"]


def test_register_created_again_for_the_same_row_keeps_its_ref() -> None:
    reg = SessionIdRegistry()
    gen = reg.register_generated("recipe", {"name": "Tofu Curry"})
    reg.register_created(NEW_ROW, "recipes", {"name": "Tofu Curry"}, gen_ref=gen)
    assert reg.register_created(NEW_ROW, "recipes", {"name": "Tofu Curry"}) == gen
    assert reg.register_created(NEW_ROW, "recipes", {"name": "Tofu Curry"}, gen_ref=gen) == gen
    with pytest.raises(ValueError, match="already registered"):
        reg.register_created(NEW_ROW, "recipes", {"name": "x"}, gen_ref="gen_recipe_7")


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
    assert list(reg.get_truly_pending_artifacts()) == reg.unsaved_refs() == [still_pending]
    assert list(reg.artifacts) == [gen, still_pending]
    assert reg.clear_turn_promoted_artifacts() == [gen]
    assert reg.get_entity_data(gen) is None
    assert reg.resolve(gen) == NEW_ROW
    assert list(reg.artifacts) == [still_pending]


# ---------------------------------------------------------------- FK lazy registration


def test_unknown_fk_uuid_is_lazily_registered_as_linked_and_left_unnamed() -> None:
    reg = SessionIdRegistry()
    rows = RowTranslator(reg)
    out = rows.rows(
        [{"id": MEAL, "recipe_id": RECIPE_A, "date": "2026-11-23", "meal_type": "dinner"}],
        "meal_plans",
    )
    assert out[0]["id"] == "meal_1"
    assert out[0]["recipe_id"] == "recipe_1"
    assert "_recipe_id_label" not in out[0]
    assert reg.action("recipe_1") == "linked"
    assert rows.unnamed == {"recipe_1": ("recipes", RECIPE_A)}


def test_naming_labels_linked_refs_and_their_rows() -> None:
    reg = SessionIdRegistry()
    rows = RowTranslator(reg)
    out = rows.rows([{"id": MEAL, "recipe_id": RECIPE_A}], "meal_plans")
    labelled = rows.named(out, "meal_plans", {"recipe_1": "Butter Chicken"})
    assert labelled[0]["_recipe_id_label"] == "Butter Chicken"
    assert reg.label("recipe_1") == "Butter Chicken"
    assert rows.unnamed == {}
    assert "_recipe_id_label" not in out[0]


def test_known_fk_gets_its_label_directly_without_waiting_for_a_name() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    rows = RowTranslator(reg)
    out = rows.rows([{"id": MEAL, "recipe_id": RECIPE_A}], "meal_plans")
    assert out[0]["recipe_id"] == "recipe_1"
    assert out[0]["_recipe_id_label"] == "Butter Chicken"
    assert rows.unnamed == {}
    assert reg.action("recipe_1") == "read"


def test_none_fk_stays_none() -> None:
    reg = SessionIdRegistry()
    out = reg.translate_read_output([{"id": MEAL, "recipe_id": None}], "meal_plans")
    assert out[0]["recipe_id"] is None
    assert reg.known_refs() == ["meal_1"]


def test_a_nameless_known_fk_is_named_again_by_the_next_read() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([{"id": MEAL, "recipe_id": RECIPE_A}], "meal_plans")  # not named
    rows = RowTranslator(stored(reg))
    rows.rows([{"id": MEAL, "recipe_id": RECIPE_A}], "meal_plans")
    assert rows.unnamed == {"recipe_1": ("recipes", RECIPE_A)}


def test_naming_relabels_rows_whose_label_uses_the_fk_label() -> None:
    reg = SessionIdRegistry()
    log = {"id": uid(9), "recipe_id": RECIPE_A, "cooked_at": "2026-11-20T19:00:00"}
    rows = RowTranslator(reg)
    out = rows.rows([log], "cooking_log")
    assert reg.label("log_1") == "cooked recipe_1 2026-11-20"
    rows.named(out, "cooking_log", {"recipe_1": "Butter Chicken"})
    assert reg.label("log_1") == "cooked Butter Chicken 2026-11-20"


def test_nested_recipe_ingredients_get_ri_refs_pointing_at_the_parent() -> None:
    reg = SessionIdRegistry()
    rows = RowTranslator(reg)
    out = rows.rows([full_recipe_row()], "recipes")
    items = out[0]["recipe_ingredients"]
    assert [item["id"] for item in items] == ["ri_1", "ri_2"]
    assert [item["recipe_id"] for item in items] == ["recipe_1", "recipe_1"]
    assert items[0]["_recipe_id_label"] == "Butter Chicken"
    assert reg.label("ri_2") == "butter"
    assert rows.unnamed == {}


def test_a_recipe_read_with_its_ingredients_key_shows_them_by_ref_too() -> None:
    """The kitchen repository (an @-mention, a UI change) gives a recipe's ingredients as
    ``ingredients``: their ids and the recipe's reached cook mode's prompt as UUIDs."""
    row = full_recipe_row()
    row["ingredients"] = row.pop("recipe_ingredients")
    out = SessionIdRegistry().translate_read_output([row], "recipes")
    assert [item["id"] for item in out[0]["ingredients"]] == ["ri_1", "ri_2"]
    assert {item["recipe_id"] for item in out[0]["ingredients"]} == {"recipe_1"}
    assert RI_1 not in json.dumps(out) and RECIPE_A not in json.dumps(out)


# ---------------------------------------------------------------- detail tracking


def test_full_recipe_read_is_tracked_as_full() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([full_recipe_row()], "recipes")
    assert reg.entries["recipe_1"].detail == "full"


def test_summary_recipe_read_is_tracked_as_summary() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([recipe_row()], "recipes")
    assert reg.entries["recipe_1"].detail == "summary"


def test_summary_read_after_full_read_does_not_downgrade() -> None:
    reg = SessionIdRegistry()
    reg.begin_turn(1)
    reg.translate_read_output([full_recipe_row()], "recipes")
    reg.begin_turn(2)
    reg.translate_read_output([recipe_row()], "recipes")
    assert reg.entries["recipe_1"].detail == "full"


def test_untracked_types_get_no_detail() -> None:
    reg = SessionIdRegistry()
    reg.translate_read_output([{"id": INV, "name": "rice"}], "inventory")
    assert reg.entries["inv_1"].detail is None


# ---------------------------------------------------------------- UI and touches


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
    assert reg.last_referenced(ref) == 1


def test_register_from_ui_rejects_non_user_actions() -> None:
    reg = SessionIdRegistry()
    with pytest.raises(ValueError):
        reg.register_from_ui(INV, "inventory", None, "read")


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
    assert reg.ref_of(RECIPE_A) is None
    assert reg.entries == {}
    assert reg.counters == {"recipe": 1}


# --- deltas: what an activity sends back instead of the whole registry ----------------------


def test_a_delta_applied_to_the_registry_before_gives_the_registry_after():
    before = SessionIdRegistry()
    before.begin_turn(3)
    before.register_generated("recipe", {"name": "Dal"})
    before.ref_for_uuid(uid(10), "inv", action="read", label="rice")

    after = before.clone()
    after.register_created(uid(11), "recipes", {"name": "Dal"})
    after.ref_for_uuid(uid(12), "inv", action="read", label="oats")
    after.remove_ref("inv_1")
    after.begin_turn(4)
    delta = after.delta_since(before)

    applied = stored(before)
    applied.apply_delta(RegistryDelta.model_validate_json(delta.model_dump_json()))
    assert applied == after
    assert applied.ref_of(uid(11)) == "gen_recipe_1" and applied.ref_of(uid(10)) is None
    assert delta.entries["inv_1"] is None and delta.turn == 4
    assert set(delta.entries) == {"gen_recipe_1", "inv_2", "inv_1"}  # changed ones only
    assert delta.counters == {"inv": 2} and delta.artifacts == {}  # unchanged content


def test_a_delta_carries_changed_entries_whole_so_a_copy_lacking_them_gets_them():
    saved = SessionIdRegistry()
    saved.begin_turn(1)
    saved.ref_for_uuid(uid(10), "inv", action="read", label="rice")
    copy_ = saved.only([])  # a later turn's working copy: the rice is too old to show
    before = saved.clone()
    saved.begin_turn(9)
    saved.touch("inv_1")
    saved.ref_for_uuid(uid(12), "inv", action="read", label="oats")
    copy_.apply_delta(saved.delta_since(before))
    assert copy_.known_refs() == ["inv_1", "inv_2"]
    assert copy_.label("inv_1") == "rice" and copy_.last_referenced("inv_1") == 9
    assert copy_.ref_of(uid(10)) == "inv_1"
    assert copy_.turn == 9 and copy_.counters == {"inv": 2}


def test_dropped_content_crosses_as_none():
    registry = SessionIdRegistry()
    gen = registry.register_generated("recipe", {"name": "Dal"})
    before = registry.clone()
    registry.register_created(uid(11), "recipes", {"name": "Dal"})
    registry.clear_turn_promoted_artifacts()
    delta = registry.delta_since(before)
    assert delta.artifacts == {gen: None}
    before.apply_delta(delta)
    assert before.artifacts == {} and before.resolve(gen) == uid(11)


def test_a_delta_is_typed_and_refuses_what_is_not_a_change():
    written = {
        "entries": {"inv_1": {"type": "inv", "uuid": uid(1), "created": 3}, "inv_9": None},
        "counters": {"inv": 1},
        "artifacts": {},
        "turn": 3,
    }
    delta = RegistryDelta.model_validate(written)
    assert delta.entries["inv_1"] == RefEntry(type="inv", uuid=uid(1), created=3)
    with pytest.raises(ValidationError):
        RegistryDelta.model_validate({"entries": {"inv_1": {"type": "inv", "created": "soon"}}})
    with pytest.raises(ValidationError):
        RegistryDelta.model_validate({"changed": {"ref_to_uuid": {"inv_1": uid(1)}}})


def test_adopting_entries_adds_the_refs_a_copy_lacks_and_keeps_the_ones_it_holds():
    """Entries read while the copy moved on (a sibling step saved the soup meanwhile) must
    not take the copy back; a ref the copy never had joins it whole."""
    saved = SessionIdRegistry()
    saved.begin_turn(1)
    saved.ref_for_uuid(uid(10), "inv", action="read", label="rice")
    soup = saved.register_generated("recipe", {"name": "Soup"})
    stale = saved.entries_of(["inv_1", soup, "inv_404"])
    assert list(stale.entries) == ["inv_1", soup]
    copy_ = saved.only([soup])
    copy_.register_created(uid(11), "recipes", {"name": "Soup"})  # promotes the soup
    copy_.adopt(stale)
    assert copy_.resolve(soup) == uid(11) and copy_.action(soup) == "created"
    assert copy_.resolve("inv_1") == uid(10) and copy_.label("inv_1") == "rice"
    assert (copy_.ref_of(uid(10)), copy_.ref_of(uid(11))) == ("inv_1", soup)


def test_a_copy_changes_on_its_own():
    registry = SessionIdRegistry()
    registry.ref_for_uuid(uid(10), "inv", action="read", label="rice")
    copy_ = registry.clone()
    copy_.ref_for_uuid(uid(11), "inv", action="read", label="oats")
    copy_.touch("inv_1")
    copy_.register_generated("recipe", {"name": "Dal"})
    assert registry.known_refs() == ["inv_1"] and registry.ref_of(uid(11)) is None
    assert registry.counters == {"inv": 1} and registry.artifacts == {}


def test_no_change_is_an_empty_delta():
    registry = SessionIdRegistry()
    registry.register_generated("recipe", {"name": "Dal"})
    assert registry.delta_since(registry.clone()) == RegistryDelta()
