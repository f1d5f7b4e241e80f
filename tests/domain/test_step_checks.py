"""The Act loop's checks of a model's writes and completions."""

from __future__ import annotations

from domain.step_checks import completion_flags, scope_error, write_key
from domain.tool_results import ToolEntry

READ_OK = ToolEntry(tool="db_read", table="inventory", count=2, rows=[])
READ_FAILED = ToolEntry(tool="db_read", error="unknown table 'inventry'")
CREATED = ToolEntry(tool="db_create", table="shopping_list", count=1, rows=[])


def test_a_write_stays_in_its_steps_subdomain_reads_may_look_anywhere():
    assert scope_error("recipes", "db_create", "recipe_ingredients") is None
    assert scope_error("shopping", "db_read", "recipes") is None
    problem = scope_error("shopping", "db_create", "recipes")
    assert problem is not None
    assert problem.startswith("a shopping step cannot write 'recipes': it writes only")


def test_the_same_write_is_the_same_key_whatever_the_key_order():
    a = write_key("db_create", {"table": "recipes", "data": {"name": "Dal", "servings": 2}})
    b = write_key("db_create", {"data": {"servings": 2, "name": "Dal"}, "table": "recipes"})
    assert a == b != write_key("db_create", {"table": "recipes", "data": {"name": "Dal"}})


def test_a_completion_that_the_outcomes_support_has_no_flags():
    assert completion_flags("read", [READ_OK], ["found inv_1"], {"inv_1"}) == []
    assert completion_flags("write", [READ_OK, CREATED], ["added"], set()) == []


def test_a_read_step_whose_reads_all_failed_or_never_happened_is_flagged():
    assert completion_flags("read", [READ_FAILED], ["found 3"], set()) == [
        "every read it made failed, so its result is not from the database"
    ]
    assert completion_flags("read", [], ["found 3"], set()) == ["it read nothing from the database"]


def test_a_write_step_that_wrote_nothing_is_flagged():
    refused = ToolEntry(tool="db_create", error="already done: ...")
    empty = CREATED.model_copy(update={"count": 0})
    for results in ([READ_OK], [refused], [empty]):
        assert completion_flags("write", results, ["saved"], set()) == [
            "it wrote nothing: no row was created, changed or removed"
        ]


def test_refs_the_registry_never_issued_are_flagged_wherever_they_are_named():
    flags = completion_flags(
        "analyze", [], ["Best: recipe_9", {"pick": ["recipe_1", "gen_recipe_4"]}], {"recipe_1"}
    )
    assert flags == ["it names refs that do not exist: gen_recipe_4, recipe_9"]
