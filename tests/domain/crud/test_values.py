"""Values PostgreSQL cannot store are refused by the validator, before any SQL.

NaN, infinities, numbers beyond a column's range and text with a NUL character used to
reach the database and fail there, with the driver's text and retries. Now each is a
validation error (a tool error the model reads) that names the field and the problem.
"""

from __future__ import annotations

import json
import math

import pytest

from domain.crud import validate
from domain.crud.calls import DbCreate, DbDelete, DbRead, DbUpdate
from domain.errors import CrudValidationError
from tests.kitchen_helper import Kitchen, f

NOT_STORABLE = "is not a number the kitchen can store"
NUL = "text cannot contain a NUL character"
INT4_RANGE = "out of range for an integer column (-2147483648..2147483647)"
DRIVER_TEXT = ("psycopg", "sqlalchemy", "[SQL", "SELECT", "INSERT", "UPDATE", "DETAIL", "0x00")


async def refused(kitchen: Kitchen, request) -> str:
    with pytest.raises(CrudValidationError) as error:
        await kitchen.run(request)
    message = str(error.value)
    assert not [text for text in DRIVER_TEXT if text in message], message
    return message


async def test_a_nan_quantity_is_a_tool_error_naming_the_field(kitchen: Kitchen):
    message = await refused(
        kitchen, DbCreate(table="inventory", data={"name": "rice", "quantity": math.nan})
    )
    assert message == (
        "data[0].quantity: NaN is not a number the kitchen can store (column inventory.quantity)"
    )
    assert await kitchen.names("inventory") == []


@pytest.mark.parametrize(
    ("quantity", "shown"),
    [
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        (json.loads("1e400"), "Infinity"),  # what a JSON 1e400 parses to
        ("Infinity", "Infinity"),
        ("NaN", "NaN"),
    ],
    ids=["inf", "-inf", "1e400 as a float", "Infinity as text", "NaN as text"],
)
async def test_a_number_that_is_not_finite_is_refused(kitchen: Kitchen, quantity, shown):
    message = await refused(
        kitchen, DbCreate(table="inventory", data={"name": "rice", "quantity": quantity})
    )
    assert message.startswith(f"data[0].quantity: {shown} {NOT_STORABLE}")
    assert await kitchen.names("inventory") == []


async def test_a_number_too_large_to_come_back_is_refused(kitchen: Kitchen):
    # PostgreSQL's numeric holds 1e400, but the row would come back to the model as Infinity.
    message = await refused(
        kitchen, DbCreate(table="inventory", data={"name": "rice", "quantity": "1e400"})
    )
    assert message.startswith("data[0].quantity: too large for a number column")
    assert await kitchen.names("inventory") == []


async def test_a_nul_in_a_name_is_refused_naming_the_field(kitchen: Kitchen):
    message = await refused(kitchen, DbCreate(table="inventory", data={"name": "ri\x00ce"}))
    assert message == f"data[0].name: {NUL} (\\u0000) (column inventory.name)"
    assert await kitchen.names("inventory") == []


@pytest.mark.parametrize(
    "flt",
    [
        f("name", "=", "mi\x00lk"),  # the catalog's name matching uses the raw value
        f("name", "similar", "mi\x00lk"),
        f("location", "ilike", "fri\x00"),
        f("notes", "contains", "free\x00range"),
        f("location", "!=", "fri\x00dge"),
    ],
    ids=lambda flt: flt.op,
)
async def test_a_nul_inside_a_filter_value_is_refused(pantry: Kitchen, flt):
    message = await refused(pantry, DbRead(table="inventory", filters=[f("unit", "=", "l"), flt]))
    assert message.startswith(f"filters[1].value: {NUL}")
    assert message.endswith(f"(column inventory.{flt.field})")


async def test_a_nul_in_a_list_value_names_its_position(pantry: Kitchen):
    message = await refused(
        pantry, DbRead(table="inventory", or_filters=[f("location", "in", ["fridge", "x\x00"])])
    )
    assert message.startswith(f"or_filters[0].value[1]: {NUL}")


async def test_refused_filter_values_change_nothing(pantry: Kitchen):
    bad = [f("location", "=", "fri\x00dge")]
    await refused(pantry, DbUpdate(table="inventory", filters=bad, data={"quantity": 3}))
    await refused(pantry, DbDelete(table="inventory", filters=bad))
    assert len(await pantry.names("inventory")) == 4


@pytest.mark.parametrize("servings", [10**30, 2**31, -(2**31) - 1, "1e100000000"])
async def test_an_integer_beyond_the_column_range_is_refused(kitchen: Kitchen, servings):
    message = await refused(
        kitchen, DbCreate(table="recipes", data={"name": "Stew", "servings": servings})
    )
    assert message == f"data[0].servings: {INT4_RANGE} (column recipes.servings)"
    assert await kitchen.names("recipes") == []


async def test_the_integer_range_is_checked_in_filters_too(kitchen: Kitchen):
    message = await refused(
        kitchen, DbRead(table="recipes", filters=[f("servings", "in", [2, 10**30])])
    )
    assert message == f"filters[0].value[1]: {INT4_RANGE} (column recipes.servings)"


async def test_the_ends_of_the_integer_range_are_stored(kitchen: Kitchen):
    await kitchen.create("recipes", {"name": "Long stew", "prep_time_minutes": 2**31 - 1})
    found = await kitchen.names("recipes", filters=[f("prep_time_minutes", ">", -(2**31))])
    assert found == ["Long stew"]


async def test_a_nested_recipe_ingredient_with_nan_is_refused_and_nothing_is_written(
    kitchen: Kitchen,
):
    recipe = {
        "name": "Pancakes",
        "recipe_ingredients": [
            {"name": "flour", "quantity": 200},
            {"name": "egg", "quantity": math.nan},
        ],
    }
    message = await refused(kitchen, DbCreate(table="recipes", data=recipe))
    assert message == (
        "data[0].recipe_ingredients[1].quantity: NaN is not a number the kitchen can store "
        "(column recipe_ingredients.quantity)"
    )
    assert await kitchen.names("recipes") == []
    assert await kitchen.names("recipe_ingredients") == []


@pytest.mark.parametrize(
    ("guidance", "problem"),
    [({"recipes": {"max_minutes": math.nan}}, "NaN " + NOT_STORABLE), ({"re\x00": "x"}, NUL)],
    ids=["nan", "nul key"],
)
async def test_json_values_are_checked_at_any_depth(kitchen: Kitchen, guidance, problem):
    message = await refused(
        kitchen, DbCreate(table="preferences", data={"subdomain_guidance": guidance})
    )
    assert message.startswith(f"data[0].subdomain_guidance: {problem}")


async def test_a_value_that_slips_past_validation_is_a_safe_error_not_the_drivers(
    kitchen: Kitchen, monkeypatch
):
    # Pretend the validator knew no integer range: PostgreSQL refuses the value itself.
    monkeypatch.setattr(validate, "INTEGER_BOUNDS", ((validate.Integer, 10**40),))
    too_big = {"name": "Stew", "servings": 10**30}
    for request in (
        DbCreate(table="recipes", data=too_big),
        DbRead(table="recipes", filters=[f("servings", "=", 10**30)]),
    ):
        message = await refused(kitchen, request)
        assert "the database refused a value of this call" in message
        assert "out of range" not in message  # the server's own words are not passed on
    monkeypatch.undo()
    assert await kitchen.names("recipes") == []


@pytest.mark.parametrize("amount", [0, -5, -0.5])
async def test_a_quantity_of_zero_or_less_is_refused_naming_the_field(kitchen, amount):
    with pytest.raises(CrudValidationError, match=r"data\[0\]\.quantity: .* must be more than 0"):
        await kitchen.create("inventory", [{"name": "rice", "quantity": amount, "unit": "kg"}])
    assert await kitchen.names("inventory") == []


async def test_a_negative_quantity_can_still_be_read_for(kitchen):
    await kitchen.create("inventory", [{"name": "rice", "quantity": 1, "unit": "kg"}])
    read = await kitchen.run(DbRead(table="inventory", filters=[f("quantity", ">", -1)]))
    assert read.count == 1


async def test_a_list_row_named_with_its_amount_is_refused_saying_how_to_split_it(kitchen):
    """The 1.5B local model created "3 rolls of paper towels" with quantity 1: no later
    "got the paper towels" finds it by its name."""
    message = await refused(
        kitchen,
        DbCreate(
            table="shopping_list",
            data=[{"name": "bread"}, {"name": "3 rolls of paper towels", "quantity": 1}],
        ),
    )
    assert message == (
        "data[1].name: '3 rolls of paper towels' holds its amount; name the thing alone "
        "('paper towels') and put 3 in quantity and 'rolls' in unit"
    )
    assert await kitchen.names("shopping_list") == []  # the whole call is refused
    split = r"alone \('flour'\) and put 2 in quantity and 'bags' in unit"
    with pytest.raises(CrudValidationError, match=split):
        await kitchen.create("inventory", [{"name": "Two bags of flour"}])


@pytest.mark.parametrize(
    "name", ["00 flour", "cream of tartar", "7up", "a bag of apples", "cup of noodles"]
)
async def test_names_that_hold_no_number_and_unit_before_of_are_kept(kitchen, name):
    await kitchen.create("shopping_list", [{"name": name}])
    assert await kitchen.names("shopping_list") == [name]


async def test_a_task_may_say_an_amount_in_its_title(kitchen):
    """Only stock and list rows keep their amount apart from their name."""
    await kitchen.create("tasks", [{"title": "3 loads of washing"}])
    assert await kitchen.names("tasks") == ["3 loads of washing"]
