"""Validates the seed data for the global ingredients catalog.

The catalog lives in ``migrations/data/ingredients.csv`` and is loaded by a
migration. These tests only read the CSV file; they need no database and do
not import anything from the application packages.
"""

import csv
from collections import Counter
from pathlib import Path

import pytest

CATALOG_PATH = Path(__file__).resolve().parents[2] / "migrations" / "data" / "ingredients.csv"

EXPECTED_HEADER = [
    "name",
    "category",
    "family",
    "default_unit",
    "parent_category",
    "aliases",
    "cuisines",
    "tier",
]

ALLOWED_CATEGORIES = {
    "produce",
    "herbs",
    "spices",
    "meat",
    "poultry",
    "seafood",
    "dairy",
    "eggs",
    "cheese",
    "grains",
    "pasta",
    "bakery",
    "legumes",
    "nuts_seeds",
    "oils_fats",
    "condiments",
    "baking",
    "sweeteners",
    "canned",
    "frozen",
    "beverages",
    "stocks",
    "other",
}

ALLOWED_PARENT_CATEGORIES = {
    "vegetable",
    "fruit",
    "herb",
    "spice",
    "protein",
    "dairy",
    "grain",
    "pantry",
    "baking",
    "beverage",
    "frozen",
}

ALLOWED_UNITS = {
    "g",
    "kg",
    "ml",
    "l",
    "piece",
    "bunch",
    "clove",
    "can",
    "jar",
    "pack",
    "tbsp",
    "tsp",
    "cup",
    "slice",
    "head",
    "stalk",
    "sprig",
    "bottle",
    "loaf",
}

ALLOWED_CUISINES = {
    "italian",
    "mexican",
    "indian",
    "chinese",
    "japanese",
    "thai",
    "french",
    "mediterranean",
    "middle_eastern",
    "american",
    "korean",
    "vietnamese",
    "greek",
    "spanish",
}

# Words a person says for a whole group of ingredients. They are matched
# through the family column, so they must not be a single row's name or alias.
GENERIC_FAMILY_WORDS = [
    "chicken",
    "beef",
    "pork",
    "rice",
    "cheese",
    "pepper",
    "milk",
    "flour",
    "sugar",
    "mushroom",
    "bean",
    "lettuce",
]


def _read_header() -> list[str]:
    with CATALOG_PATH.open(encoding="utf-8", newline="") as handle:
        return next(csv.reader(handle))


def _read_rows() -> list[dict[str, str]]:
    with CATALOG_PATH.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _split(value: str) -> list[str]:
    return value.split("|") if value else []


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    return _read_rows()


def test_header_lists_the_expected_columns_in_order():
    assert _read_header() == EXPECTED_HEADER


def test_every_row_has_exactly_the_header_columns(rows):
    malformed = [
        row.get("name")
        for row in rows
        if None in row or any(value is None for value in row.values())
    ]
    assert malformed == []


def test_catalog_has_a_few_hundred_ingredients(rows):
    assert 300 <= len(rows) <= 600


def test_names_are_unique_and_lowercase(rows):
    names = [row["name"] for row in rows]
    assert all(name and name == name.strip() for name in names)
    assert [name for name in names if name != name.lower()] == []
    duplicates = [name for name, count in Counter(n.lower() for n in names).items() if count > 1]
    assert duplicates == []


def test_every_category_is_from_the_allowed_set(rows):
    unknown = {row["category"] for row in rows} - ALLOWED_CATEGORIES
    assert unknown == set()


def test_every_parent_category_is_from_the_allowed_set(rows):
    unknown = {row["parent_category"] for row in rows} - ALLOWED_PARENT_CATEGORIES
    assert unknown == set()


def test_every_row_has_a_lowercase_family(rows):
    bad = [
        row["name"]
        for row in rows
        if not row["family"] or row["family"] != row["family"].strip().lower()
    ]
    assert bad == []


def test_default_unit_is_empty_or_a_known_short_unit(rows):
    unknown = {row["default_unit"] for row in rows if row["default_unit"]} - ALLOWED_UNITS
    assert unknown == set()


def test_aliases_are_lowercase_and_non_empty(rows):
    bad = [
        (row["name"], alias)
        for row in rows
        for alias in _split(row["aliases"])
        if not alias or alias != alias.strip().lower()
    ]
    assert bad == []


def test_aliases_never_collide_with_names_or_each_other(rows):
    names = {row["name"].lower() for row in rows}
    alias_owners: dict[str, list[str]] = {}
    for row in rows:
        for alias in _split(row["aliases"]):
            alias_owners.setdefault(alias.lower(), []).append(row["name"])

    aliases_equal_to_a_name = sorted(alias for alias in alias_owners if alias in names)
    aliases_on_several_rows = {
        alias: owners for alias, owners in alias_owners.items() if len(owners) > 1
    }
    assert aliases_equal_to_a_name == []
    assert aliases_on_several_rows == {}


def test_cuisines_are_from_the_known_list(rows):
    unknown = {cuisine for row in rows for cuisine in _split(row["cuisines"])} - ALLOWED_CUISINES
    assert unknown == set()


def test_tier_is_1_2_or_3(rows):
    assert {row["tier"] for row in rows} <= {"1", "2", "3"}


def test_common_families_group_several_items(rows):
    family_sizes = Counter(row["family"] for row in rows)
    for family in [
        "chicken",
        "beef",
        "pork",
        "rice",
        "tomato",
        "cheese",
        "onion",
        "pepper",
        "milk",
        "flour",
        "sugar",
        "potato",
        "mushroom",
        "bean",
        "lettuce",
        "apple",
    ]:
        assert family_sizes[family] >= 2, family


def test_generic_family_words_are_neither_names_nor_aliases(rows):
    names_and_aliases = {row["name"] for row in rows} | {
        alias for row in rows for alias in _split(row["aliases"])
    }
    assert [word for word in GENERIC_FAMILY_WORDS if word in names_and_aliases] == []


def test_all_chicken_cuts_share_the_chicken_family(rows):
    chicken_rows = [
        row for row in rows if row["category"] == "poultry" and "chicken" in row["name"]
    ]
    assert len(chicken_rows) >= 5
    assert {row["family"] for row in chicken_rows} == {"chicken"}


def test_every_category_is_represented(rows):
    used = {row["category"] for row in rows}
    assert ALLOWED_CATEGORIES - used == set()


def test_staples_are_tier_1(rows):
    tiers = {row["name"]: row["tier"] for row in rows}
    for staple in [
        "onion",
        "garlic",
        "egg",
        "salt",
        "black pepper",
        "olive oil",
        "all-purpose flour",
        "granulated sugar",
        "unsalted butter",
    ]:
        assert tiers.get(staple) == "1", staple
