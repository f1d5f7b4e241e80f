"""The batch manifest: which generated items a write step saves, and how each one fared."""

from __future__ import annotations

from domain.batch import BatchManifest, start_manifest, track_write
from domain.registry import SessionIdRegistry
from domain.tool_results import ToolEntry

UUIDS = [f"00000000-0000-0000-0000-00000000000{n}" for n in range(1, 4)]


def three_recipes() -> SessionIdRegistry:
    registry = SessionIdRegistry()
    for name in ("Butter Chicken", "Dal", "Naan"):
        registry.register_generated("recipe", {"name": name})
    registry.register_generated("task", {"title": "Soak the lentils"})
    return registry


def manifest(description: str, words: str = "", subdomain: str = "recipes"):
    return start_manifest(three_recipes(), 1, subdomain, description, words)


def test_saving_without_naming_any_takes_every_unsaved_item_of_the_subdomain():
    made = manifest("Save the generated recipes")
    assert made is not None
    assert [(i.ref, i.label, i.status) for i in made.items] == [
        ("gen_recipe_1", "Butter Chicken", "pending"),
        ("gen_recipe_2", "Dal", "pending"),
        ("gen_recipe_3", "Naan", "pending"),
    ]


def test_items_named_by_ref_or_by_label_are_the_batch():
    by_ref = manifest("Save gen_recipe_3 and gen_recipe_1")
    by_label = manifest("Store it", words="save the dal please")
    assert by_ref is not None and [i.ref for i in by_ref.items] == ["gen_recipe_1", "gen_recipe_3"]
    assert by_label is not None and [i.ref for i in by_label.items] == ["gen_recipe_2"]


def test_a_write_step_that_saves_nothing_generated_has_no_manifest():
    assert manifest("Delete the old tacos recipe") is None
    assert manifest("Save the list", subdomain="shopping") is None  # nothing generated there


def test_a_saved_item_completes_and_a_failed_write_that_named_one_fails_it():
    registry = three_recipes()
    made = start_manifest(registry, 0, "recipes", "Save the recipes", "")
    assert made is not None
    registry.register_created(
        UUIDS[0], "recipes", {"name": "Butter Chicken"}, gen_ref="gen_recipe_1"
    )
    track_write(
        made, registry, ToolEntry(tool="db_create", params={"data": [{"id": "gen_recipe_1"}]})
    )
    track_write(
        made,
        registry,
        ToolEntry(
            tool="db_create", params={"data": [{"id": "gen_recipe_2"}]}, error="name: too long"
        ),
    )
    assert [(i.status, i.result_ref, i.error) for i in made.items] == [
        ("completed", "gen_recipe_1", None),
        ("failed", None, "name: too long"),
        ("pending", None, None),
    ]
    assert made.progress() == (
        "1 of 3 saved; Dal (gen_recipe_2) failed: name: too long; "
        "not saved yet: Naan (gen_recipe_3)"
    )
    assert "1 of 3 items of this batch are not saved yet: gen_recipe_3 (Naan)" in made.refusal()
    registry.register_created(UUIDS[1], "recipes", {"name": "Dal"}, gen_ref="gen_recipe_2")
    track_write(
        made, registry, ToolEntry(tool="db_create", params={"data": [{"id": "gen_recipe_2"}]})
    )
    assert made.items[1].status == "completed" and made.items[1].error is None


def test_the_manifest_reads_as_lines():
    made = BatchManifest.model_validate(
        {
            "step_index": 0,
            "items": [
                {
                    "ref": "gen_meal_1",
                    "label": "Mon dinner",
                    "status": "completed",
                    "result_ref": "gen_meal_1",
                },
                {
                    "ref": "gen_meal_2",
                    "label": "Tue dinner",
                    "status": "failed",
                    "error": "no date",
                },
            ],
        }
    )
    assert made.lines() == [
        "- gen_meal_1 (Mon dinner): completed as gen_meal_1",
        "- gen_meal_2 (Tue dinner): failed: no date",
    ]
    assert made.pending() == []


def test_unnamed_items_are_only_the_recent_ones_and_add_is_no_save():
    registry = SessionIdRegistry()
    registry.begin_turn(1)
    registry.register_generated("recipe", {"name": "Red Lentil Dal"})  # kept from turn 1
    registry.begin_turn(3)
    registry.register_generated("recipe", {"name": "Cookies"})
    saving = start_manifest(registry, 0, "recipes", "Save the recipe", "")
    assert saving is not None and [i.label for i in saving.items] == ["Cookies"]
    assert start_manifest(registry, 0, "recipes", "Add the recipe the user dictated", "") is None
    named = start_manifest(registry, 0, "recipes", "Save the dal", "")
    assert named is not None and [i.label for i in named.items] == ["Red Lentil Dal"]


def test_a_write_that_is_not_a_save_has_no_batch_even_if_it_names_a_label():
    registry = three_recipes()
    assert start_manifest(registry, 0, "recipes", "Delete the old butter chicken", "") is None


def test_another_write_step_of_a_turn_that_saves_is_no_batch():
    registry = three_recipes()
    words = "save the dal and delete the old butter chicken"
    assert start_manifest(registry, 1, "recipes", "Delete the old recipe", words) is None
