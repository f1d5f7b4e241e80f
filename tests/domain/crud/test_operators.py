"""Every filter operator works, in ``filters`` (AND) and in ``or_filters`` (OR) alike."""

from __future__ import annotations

import pytest

from domain.crud.calls import DbRead
from domain.errors import CrudValidationError
from tests.kitchen_helper import Kitchen, f

CASES = [
    ("=", f("location", "=", "Fridge"), ["eggs", "milk"]),
    ("!=", f("location", "!=", "fridge"), ["frozen peas", "rice"]),
    (">", f("quantity", ">", 1), ["eggs", "milk"]),
    ("<", f("quantity", "<", 1), ["frozen peas"]),
    (">=", f("quantity", ">=", 1), ["eggs", "milk", "rice"]),
    ("<=", f("expiry_date", "<=", "2026-11-30"), ["milk"]),
    ("in", f("location", "in", ["pantry", "freezer"]), ["frozen peas", "rice"]),
    ("not_in", f("location", "not_in", ["fridge", "pantry"]), ["frozen peas"]),
    ("ilike", f("notes", "ilike", "FREE"), ["eggs"]),
    ("is_null", f("expiry_date", "is_null"), ["rice"]),
    ("is_not_null", f("notes", "is_not_null"), ["eggs"]),
    ("contains", f("location", "contains", "eez"), ["frozen peas"]),
    ("similar", f("location", "similar", "freezr"), ["frozen peas"]),
]


@pytest.mark.parametrize(("op", "flt", "expected"), CASES, ids=[c[0] for c in CASES])
async def test_operator_in_filters(pantry: Kitchen, op, flt, expected):
    assert await pantry.names("inventory", filters=[flt]) == expected


@pytest.mark.parametrize(("op", "flt", "expected"), CASES, ids=[c[0] for c in CASES])
async def test_operator_in_or_filters(pantry: Kitchen, op, flt, expected):
    # Paired with a filter that matches nothing, the OR must still select the operator's rows.
    nothing = f("location", "=", "garage")
    assert await pantry.names("inventory", or_filters=[nothing, flt]) == expected


async def test_or_filters_combine_with_or_and_filters_with_and(pantry: Kitchen):
    either = [f("location", "=", "pantry"), f("location", "=", "freezer")]
    assert await pantry.names("inventory", or_filters=either) == ["frozen peas", "rice"]
    both = [f("location", "=", "fridge"), f("quantity", ">", 5)]
    assert await pantry.names("inventory", filters=both) == ["eggs"]
    mixed = await pantry.names("inventory", filters=[f("unit", "=", "kg")], or_filters=either)
    assert mixed == ["frozen peas", "rice"]


async def test_not_in_with_several_values_excludes_all_of_them(pantry: Kitchen):
    names = await pantry.names("inventory", filters=[f("name", "not_in", ["milk", "eggs", "rice"])])
    assert names == ["frozen peas"]


async def test_ilike_with_wildcards_is_used_as_given(pantry: Kitchen):
    assert await pantry.names("inventory", filters=[f("name", "ilike", "fro%")]) == ["frozen peas"]
    assert await pantry.names("inventory", filters=[f("name", "ilike", "%ice")]) == ["rice"]


async def test_array_contains_and_scalar_equality_on_arrays(kitchen: Kitchen):
    await kitchen.create(
        "recipes",
        [
            {"name": "Pad Thai", "tags": ["quick", "noodles"]},
            {"name": "Slow Ragu", "tags": ["weekend"]},
            {"name": "Fried Rice", "tags": ["quick"]},
        ],
    )
    quick = f("tags", "contains", ["quick"])
    assert await kitchen.names("recipes", filters=[quick]) == ["Fried Rice", "Pad Thai"]
    both = f("tags", "contains", ["quick", "noodles"])
    assert await kitchen.names("recipes", or_filters=[f("name", "=", "x"), both]) == ["Pad Thai"]
    assert await kitchen.names("recipes", filters=[f("tags", "=", "weekend")]) == ["Slow Ragu"]


async def test_order_and_limit(pantry: Kitchen):
    result = await pantry.run(
        DbRead(table="inventory", order_by="quantity", order_dir="desc", limit=2)
    )
    assert [r["name"] for r in result.rows] == ["eggs", "milk"]


@pytest.mark.parametrize(
    ("order_by", "order_dir"),
    [("quantity DESC", "desc"), ("quantity desc", None), (" quantity  Desc ", "asc")],
)
async def test_an_order_written_as_sql_writes_it_is_its_column_and_direction(
    pantry: Kitchen, order_by, order_dir
):
    """The 1.5B local model sent order_by "created_at DESC" (and order_dir "desc"), was
    refused twice, and its write step ended without the write. The direction it names
    wins over ``order_dir``."""
    read = DbRead(table="inventory", order_by=order_by, limit=2)
    if order_dir is not None:
        read.order_dir = order_dir
    result = await pantry.run(read)
    assert [r["name"] for r in result.rows] == ["eggs", "milk"]


async def test_an_order_by_no_column_is_refused_whatever_its_direction(pantry: Kitchen):
    with pytest.raises(CrudValidationError, match="order_by: unknown column 'price DESC'"):
        await pantry.run(DbRead(table="inventory", order_by="price DESC"))
    with pytest.raises(CrudValidationError, match="order_by: unknown column 'user_id'"):
        await pantry.run(DbRead(table="inventory", order_by="user_id desc"))
