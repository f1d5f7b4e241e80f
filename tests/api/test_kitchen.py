"""/v1 kitchen resources: inventory, recipes, shopping list, meal plans, tasks, preferences.

The behaviours every resource shares are parametrized over ``RESOURCES``; what only one
resource does (nested ingredients, filters, references, the profile) follows below.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import select

from domain.db.engine import user_transaction
from domain.db.models import KitchenChange
from domain.errors import CrudValidationError
from domain.kitchen import repository
from tests.api.conftest import Api


@dataclass(frozen=True)
class Resource:
    path: str
    table: str
    create: dict[str, Any]
    """A valid create body."""
    update: dict[str, Any]
    """A valid PATCH body changing one field."""
    required: str
    """A column a create must name."""
    wrong_type: dict[str, Any]
    """One field with a value of the wrong type."""
    enum: dict[str, Any] = field(default_factory=dict)
    """One closed-set field with a value outside the set (when the table has one)."""

    def __str__(self) -> str:
        return self.table


INVENTORY = Resource(
    "/v1/inventory",
    "inventory",
    create={"name": "rice", "quantity": 1.5, "unit": "kg", "location": "pantry"},
    update={"quantity": 0.5},
    required="name",
    wrong_type={"quantity": "lots"},
)
RECIPES = Resource(
    "/v1/recipes",
    "recipes",
    create={"name": "Pancakes", "servings": 4, "instructions": ["mix", "fry"]},
    update={"servings": 2},
    required="name",
    wrong_type={"servings": "four"},
)
SHOPPING = Resource(
    "/v1/shopping-list",
    "shopping_list",
    create={"name": "lemons", "quantity": 3, "unit": "piece"},
    update={"is_purchased": True},
    required="name",
    wrong_type={"is_purchased": "maybe"},
)
MEAL_PLANS = Resource(
    "/v1/meal-plans",
    "meal_plans",
    create={"date": "2026-11-23", "meal_type": "dinner", "servings": 2},
    update={"meal_type": "lunch"},
    required="date",
    wrong_type={"date": "next tuesday"},
    enum={"meal_type": "brunch"},
)
TASKS = Resource(
    "/v1/tasks",
    "tasks",
    create={"title": "Thaw the chicken", "due_date": "2026-11-23", "category": "prep"},
    update={"completed": True},
    required="title",
    wrong_type={"due_date": "someday"},
    enum={"category": "laundry"},
)
RESOURCES = [INVENTORY, RECIPES, SHOPPING, MEAL_PLANS, TASKS]
WITH_ENUMS = [r for r in RESOURCES if r.enum]
ITEM_VERBS = ["get", "patch", "delete"]


async def create(api: Api, resource: Resource, **overrides: Any) -> dict[str, Any]:
    response = await api.post(resource.path, json={**resource.create, **overrides})
    assert response.status_code == 201, response.text
    return response.json()


async def call(api: Api, verb: str, url: str, body: dict[str, Any] | None = None):
    if verb == "patch":
        return await api.patch(url, json=body if body is not None else {"notes": "x"})
    return await getattr(api, verb)(url)


async def kitchen_changes(api: Api) -> list[KitchenChange]:
    async with user_transaction(api.services.sessions, api.user_id) as session:
        query = select(KitchenChange).order_by(KitchenChange.id)
        return list((await session.scalars(query)).all())


def without_timestamps(row: dict[str, Any]) -> dict[str, Any]:
    """A row without ``created_at`` (stored as +00:00, rendered by the API as Z)."""
    return {k: v for k, v in row.items() if k != "created_at"}


def error_fields(response) -> set[str]:
    """The body fields a FastAPI 422 names (``loc`` = ["body", field, ...])."""
    return {str(e["loc"][1]) for e in response.json()["error"]["details"] if len(e["loc"]) > 1}


# --- every resource ---------------------------------------------------------------------------


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_create_returns_201_with_the_row(api: Api, resource: Resource):
    response = await api.post(resource.path, json=resource.create)
    assert response.status_code == 201, response.text
    row = response.json()
    uuid.UUID(row["id"])
    assert {k: row[k] for k in resource.create} == resource.create
    assert "user_id" not in row and row["created_at"]


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_read_returns_the_created_row(api: Api, resource: Resource):
    created = await create(api, resource)
    response = await api.get(f"{resource.path}/{created['id']}")
    assert response.status_code == 200
    assert response.json() == created


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_list_returns_the_users_rows(api: Api, resource: Resource):
    created = await create(api, resource)
    response = await api.get(resource.path)
    assert response.status_code == 200
    assert response.json() == [created]


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_patch_changes_only_the_given_fields(api: Api, resource: Resource):
    created = await create(api, resource)
    response = await api.patch(f"{resource.path}/{created['id']}", json=resource.update)
    assert response.status_code == 200, response.text
    assert response.json() == {**created, **resource.update}
    assert (await api.get(f"{resource.path}/{created['id']}")).json() == response.json()


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_delete_returns_204_and_the_row_is_gone(api: Api, resource: Resource):
    created = await create(api, resource)
    response = await api.delete(f"{resource.path}/{created['id']}")
    assert response.status_code == 204 and response.content == b""
    assert (await api.get(f"{resource.path}/{created['id']}")).status_code == 404
    assert (await api.get(resource.path)).json() == []


@pytest.mark.parametrize("verb", ["get", "post", "get_one", "patch", "delete"])
@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_requests_without_a_token_are_401(http, resource: Resource, verb: str):
    one = f"{resource.path}/{uuid.uuid4()}"
    response = await {
        "get": lambda: http.get(resource.path),
        "post": lambda: http.post(resource.path, json=resource.create),
        "get_one": lambda: http.get(one),
        "patch": lambda: http.patch(one, json=resource.update),
        "delete": lambda: http.delete(one),
    }[verb]()
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthenticated"


async def test_a_bad_token_is_401(http):
    response = await http.get("/v1/inventory", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401


@pytest.mark.parametrize("verb", ITEM_VERBS)
@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_an_unknown_id_is_404(api: Api, resource: Resource, verb: str):
    response = await call(api, verb, f"{resource.path}/{uuid.uuid4()}", resource.update)
    assert response.status_code == 404
    assert response.json()["error"]["code"].endswith("_not_found")


@pytest.mark.parametrize("verb", ITEM_VERBS)
@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_another_users_id_is_404_and_leaves_the_row_untouched(
    api: Api, other_api: Api, resource: Resource, verb: str
):
    created = await create(api, resource)
    url = f"{resource.path}/{created['id']}"
    response = await call(other_api, verb, url, resource.update)
    assert response.status_code == 404
    assert set(response.json()) == {"error"}  # a reason, never the row
    assert (await api.get(url)).json() == created


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_a_malformed_id_is_422(api: Api, resource: Resource):
    response = await api.get(f"{resource.path}/not-a-uuid")
    assert response.status_code == 422


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_create_without_a_required_field_is_422_naming_it(api: Api, resource: Resource):
    body = {k: v for k, v in resource.create.items() if k != resource.required}
    response = await api.post(resource.path, json=body)
    assert response.status_code == 422
    assert resource.required in error_fields(response)
    assert (await api.get(resource.path)).json() == []


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_create_with_a_wrong_type_is_422_naming_the_field(api: Api, resource: Resource):
    response = await api.post(resource.path, json={**resource.create, **resource.wrong_type})
    assert response.status_code == 422
    assert error_fields(response) == set(resource.wrong_type)


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_patch_with_a_wrong_type_is_422_naming_the_field(api: Api, resource: Resource):
    created = await create(api, resource)
    response = await api.patch(f"{resource.path}/{created['id']}", json=resource.wrong_type)
    assert response.status_code == 422
    assert error_fields(response) == set(resource.wrong_type)
    assert (await api.get(f"{resource.path}/{created['id']}")).json() == created


@pytest.mark.parametrize("resource", WITH_ENUMS, ids=str)
async def test_a_value_outside_a_closed_set_is_422_naming_the_field(api: Api, resource: Resource):
    response = await api.post(resource.path, json={**resource.create, **resource.enum})
    assert response.status_code == 422
    assert error_fields(response) == set(resource.enum)


@pytest.mark.parametrize("key", ["user_id", "id", "colour"])
@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_create_refuses_fields_that_are_not_writable_columns(
    api: Api, resource: Resource, key: str
):
    value = str(uuid.uuid4())
    response = await api.post(resource.path, json={**resource.create, key: value})
    assert response.status_code == 422
    assert key in error_fields(response)


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_patch_with_null_for_a_required_column_is_422(api: Api, resource: Resource):
    created = await create(api, resource)
    response = await api.patch(f"{resource.path}/{created['id']}", json={resource.required: None})
    assert response.status_code == 422
    assert error_fields(response) == {resource.required}


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_an_empty_patch_is_422(api: Api, resource: Resource):
    created = await create(api, resource)
    response = await api.patch(f"{resource.path}/{created['id']}", json={})
    assert response.status_code == 422
    assert "nothing to update" in response.json()["error"]["message"]


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_a_list_shows_only_the_callers_rows(api: Api, other_api: Api, resource: Resource):
    mine = await create(api, resource)
    theirs = await create(other_api, resource)
    assert [r["id"] for r in (await api.get(resource.path)).json()] == [mine["id"]]
    assert [r["id"] for r in (await other_api.get(resource.path)).json()] == [theirs["id"]]


@pytest.mark.parametrize("limit", [0, 501, "many"])
@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_a_limit_outside_1_to_500_is_422(api: Api, resource: Resource, limit):
    response = await api.get(resource.path, params={"limit": limit})
    assert response.status_code == 422


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_limit_and_offset_page_through_the_list(api: Api, resource: Resource):
    for n in range(3):  # three different items (the same item again is the one there)
        key = next(k for k in ("name", "title", "date") if k in resource.create)
        value = f"2026-11-{n + 1:02d}" if key == "date" else f"{resource.create[key]} {n}"
        await create(api, resource, **{key: value})
    everything = (await api.get(resource.path)).json()
    first = (await api.get(resource.path, params={"limit": 2})).json()
    rest = (await api.get(resource.path, params={"limit": 2, "offset": 2})).json()
    assert len(everything) == 3 and first + rest == everything


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_create_update_and_delete_are_recorded_as_kitchen_changes(
    api: Api, resource: Resource
):
    created = await create(api, resource)
    updated = (await api.patch(f"{resource.path}/{created['id']}", json=resource.update)).json()
    await api.delete(f"{resource.path}/{created['id']}")
    changes = await kitchen_changes(api)
    assert [(c.table_name, str(c.row_id), c.action) for c in changes] == [
        (resource.table, created["id"], "created"),
        (resource.table, created["id"], "updated"),
        (resource.table, created["id"], "deleted"),
    ]
    assert [without_timestamps(c.data) for c in changes] == [
        without_timestamps(created),
        without_timestamps(updated),
        without_timestamps(updated),
    ]


@pytest.mark.parametrize("resource", RESOURCES, ids=str)
async def test_a_refused_write_records_no_kitchen_change(
    api: Api, other_api: Api, resource: Resource
):
    created = await create(api, resource)
    await other_api.patch(f"{resource.path}/{created['id']}", json=resource.update)
    await other_api.delete(f"{resource.path}/{created['id']}")
    await api.post(resource.path, json={**resource.create, **resource.wrong_type})
    assert [c.action for c in await kitchen_changes(api)] == ["created"]
    assert await kitchen_changes(other_api) == []


async def test_text_with_a_nul_character_is_422_naming_the_field(api: Api):
    response = await api.post("/v1/inventory", json={"name": "ri\u0000ce"})
    assert response.status_code == 422
    assert error_fields(response) == {"name"}


async def test_a_filter_with_a_nul_character_is_422_not_500(api: Api):
    response = await api.get("/v1/inventory", params={"location": "fri\u0000dge"})
    assert response.status_code == 422


async def test_a_number_that_is_not_finite_is_422(api: Api):
    response = await api.http.post(
        "/v1/inventory",
        content=b'{"name": "rice", "quantity": NaN}',
        headers={**api.auth, "Content-Type": "application/json"},
    )
    assert response.status_code == 422
    assert error_fields(response) == {"quantity"}


async def test_an_integer_beyond_the_column_range_is_422_naming_it(api: Api):
    response = await api.post("/v1/recipes", json={"name": "Stew", "servings": 2**31})
    assert response.status_code == 422
    assert error_fields(response) == {"servings"}


async def test_a_value_the_database_checks_refuse_is_422_not_500(api: Api):
    response = await api.post("/v1/recipes", json={"name": "Stew", "servings": 0})
    assert response.status_code == 422
    assert "servings" in response.json()["error"]["message"]
    assert (await api.get("/v1/recipes")).json() == []


async def test_the_openapi_models_never_expose_user_id(http):
    schemas = (await http.get("/openapi.json")).json()["components"]["schemas"]
    for name in (
        "InventoryItem",
        "Recipe",
        "RecipeIngredient",
        "ShoppingListItem",
        "MealPlan",
        "Task",
        "Preferences",
    ):
        for suffix in ("Create", "Update", "Public"):
            model = schemas.get(name + suffix)
            if model is not None:
                assert "user_id" not in model["properties"], name + suffix
    assert schemas["MealPlanCreate"]["required"] == ["date", "meal_type"]
    assert schemas["MealPlanCreate"]["properties"]["meal_type"]["enum"] == [
        "breakfast",
        "lunch",
        "dinner",
        "snack",
        "other",
    ]
    assert schemas["InventoryItemPublic"]["properties"]["quantity"]["anyOf"][0] == {
        "type": "number"
    }


# --- inventory and shopping list --------------------------------------------------------------


async def test_inventory_filters_by_location_in_any_case(api: Api):
    await create(api, INVENTORY, name="milk", location="fridge")
    await create(api, INVENTORY, name="rice", location="pantry")
    response = await api.get("/v1/inventory", params={"location": "Fridge"})
    assert [r["name"] for r in response.json()] == ["milk"]


async def test_inventory_lists_by_name(api: Api):
    for name in ("rice", "Apples", "beans"):
        await create(api, INVENTORY, name=name)
    assert [r["name"] for r in (await api.get("/v1/inventory")).json()] == [
        "Apples",
        "beans",
        "rice",
    ]


async def test_an_inventory_item_named_like_a_catalog_ingredient_is_linked(api: Api):
    row = await create(api, INVENTORY, name="eggs")
    assert row["ingredient_id"] is not None and row["category"] == "eggs"


async def test_renaming_an_item_relinks_it_to_the_catalog(api: Api):
    row = await create(api, INVENTORY, name="eggs")
    renamed = await api.patch(f"/v1/inventory/{row['id']}", json={"name": "mystery jar"})
    assert renamed.json()["ingredient_id"] is None


async def test_an_unknown_catalog_ingredient_id_is_422(api: Api):
    response = await api.post(
        "/v1/inventory", json={"name": "rice", "ingredient_id": str(uuid.uuid4())}
    )
    assert response.status_code == 422
    assert "ingredient_id" in response.json()["error"]["message"]


async def test_the_shopping_list_filters_by_is_purchased(api: Api):
    bought = await create(api, SHOPPING, name="bread")
    await create(api, SHOPPING, name="lemons")
    await api.patch(f"/v1/shopping-list/{bought['id']}", json={"is_purchased": True})
    response = await api.get("/v1/shopping-list", params={"is_purchased": "false"})
    assert [r["name"] for r in response.json()] == ["lemons"]
    response = await api.get("/v1/shopping-list", params={"is_purchased": "true"})
    assert [r["name"] for r in response.json()] == ["bread"]


async def test_patch_can_clear_a_nullable_field(api: Api):
    row = await create(api, INVENTORY, notes="top shelf")
    response = await api.patch(f"/v1/inventory/{row['id']}", json={"notes": None})
    assert response.status_code == 200 and response.json()["notes"] is None


# --- recipes and their ingredients ------------------------------------------------------------

PANCAKES = {
    "name": "Pancakes",
    "servings": 4,
    "ingredients": [
        {"name": "all-purpose flour", "quantity": 200, "unit": "g"},
        {"name": "egg", "quantity": 2},
        {"name": "fairy dust", "is_optional": True, "notes": "a handful"},
    ],
}


async def test_create_recipe_writes_its_ingredients_and_returns_them(api: Api):
    response = await api.post("/v1/recipes", json=PANCAKES)
    assert response.status_code == 201, response.text
    recipe = response.json()
    assert [(i["name"], i["quantity"], i["is_optional"]) for i in recipe["ingredients"]] == [
        ("all-purpose flour", 200, False),
        ("egg", 2, False),
        ("fairy dust", None, True),
    ]
    assert {i["recipe_id"] for i in recipe["ingredients"]} == {recipe["id"]}
    assert all("user_id" not in i for i in recipe["ingredients"])


async def test_read_recipe_includes_its_ingredients(api: Api):
    recipe = (await api.post("/v1/recipes", json=PANCAKES)).json()
    read = (await api.get(f"/v1/recipes/{recipe['id']}")).json()
    assert read == recipe and len(read["ingredients"]) == 3


async def test_list_recipes_includes_their_ingredients(api: Api):
    recipe = (await api.post("/v1/recipes", json=PANCAKES)).json()
    await create(api, RECIPES, name="Toast")
    listed = (await api.get("/v1/recipes")).json()
    assert [r["name"] for r in listed] == ["Pancakes", "Toast"]
    assert listed[0] == recipe and listed[1]["ingredients"] == []


async def test_recipe_ingredients_are_linked_to_the_catalog(api: Api):
    recipe = (await api.post("/v1/recipes", json=PANCAKES)).json()
    linked = {i["name"]: i["ingredient_id"] is not None for i in recipe["ingredients"]}
    assert linked == {"all-purpose flour": True, "egg": True, "fairy dust": False}


async def test_an_invalid_ingredient_is_422_and_no_recipe_is_written(api: Api):
    body = {**PANCAKES, "ingredients": [{"name": "egg"}, {"quantity": 2}]}
    response = await api.post("/v1/recipes", json=body)
    assert response.status_code == 422
    details = response.json()["error"]["details"]
    assert any(e["loc"][:3] == ["body", "ingredients", 1] for e in details)
    assert (await api.get("/v1/recipes")).json() == []
    assert await kitchen_changes(api) == []


async def test_an_ingredient_with_a_wrong_type_is_422_and_no_recipe_is_written(api: Api):
    body = {**PANCAKES, "ingredients": [{"name": "egg", "quantity": "two"}]}
    response = await api.post("/v1/recipes", json=body)
    assert response.status_code == 422
    assert (await api.get("/v1/recipes")).json() == []


async def test_an_ingredient_refused_after_the_recipe_is_written_rolls_it_back(api: Api):
    # Over HTTP every bad ingredient is a 422 before any write; the repository itself must
    # still write a recipe and its ingredients all or nothing.
    unknown = str(uuid.uuid4())
    body = {
        "name": "Pancakes",
        "ingredients": [{"name": "egg"}, {"name": "x", "ingredient_id": unknown}],
    }
    with pytest.raises(CrudValidationError, match=r"ingredients\[1\]\.ingredient_id"):
        async with user_transaction(api.services.sessions, api.user_id) as session:
            await repository.create_row(session, "recipes", body)
    assert (await api.get("/v1/recipes")).json() == []
    assert await kitchen_changes(api) == []


async def test_patch_recipe_with_ingredients_replaces_the_list(api: Api):
    recipe = (await api.post("/v1/recipes", json=PANCAKES)).json()
    response = await api.patch(
        f"/v1/recipes/{recipe['id']}", json={"ingredients": [{"name": "oat milk"}]}
    )
    assert response.status_code == 200, response.text
    updated = response.json()
    assert [i["name"] for i in updated["ingredients"]] == ["oat milk"]
    assert updated["name"] == "Pancakes" and updated["servings"] == 4
    assert (await api.get(f"/v1/recipes/{recipe['id']}")).json() == updated


async def test_patch_recipe_without_ingredients_keeps_them(api: Api):
    recipe = (await api.post("/v1/recipes", json=PANCAKES)).json()
    updated = (await api.patch(f"/v1/recipes/{recipe['id']}", json={"servings": 8})).json()
    assert updated["ingredients"] == recipe["ingredients"]


async def test_a_recipe_change_records_its_ingredients(api: Api):
    recipe = (await api.post("/v1/recipes", json=PANCAKES)).json()
    [change] = await kitchen_changes(api)
    assert change.table_name == "recipes" and change.action == "created"
    assert without_timestamps(change.data) == without_timestamps(recipe)
    assert len(change.data["ingredients"]) == 3


async def test_a_recipe_variant_may_point_at_the_users_own_recipe(api: Api):
    parent = await create(api, RECIPES)
    variant = await create(api, RECIPES, name="Vegan pancakes", parent_recipe_id=parent["id"])
    assert variant["parent_recipe_id"] == parent["id"]


async def test_a_recipe_variant_of_another_users_recipe_is_422(api: Api, other_api: Api):
    theirs = await create(other_api, RECIPES)
    response = await api.post(
        "/v1/recipes", json={"name": "Copy", "parent_recipe_id": theirs["id"]}
    )
    assert response.status_code == 422
    assert "parent_recipe_id" in response.json()["error"]["message"]


# --- meal plans and tasks: references, filters ----------------------------------------------


async def test_a_meal_plan_may_point_at_the_users_own_recipe(api: Api):
    recipe = await create(api, RECIPES)
    plan = await create(api, MEAL_PLANS, recipe_id=recipe["id"])
    assert plan["recipe_id"] == recipe["id"]


async def test_a_meal_plan_pointing_at_another_users_recipe_is_422(api: Api, other_api: Api):
    theirs = await create(other_api, RECIPES)
    response = await api.post(
        "/v1/meal-plans", json={**MEAL_PLANS.create, "recipe_id": theirs["id"]}
    )
    assert response.status_code == 422
    body = response.json()["error"]
    assert body["code"] == "invalid_crud" and "recipe_id" in body["message"]
    assert theirs["name"] not in response.text
    assert (await api.get("/v1/meal-plans")).json() == []


async def test_a_meal_plan_pointing_at_an_unknown_recipe_is_422(api: Api):
    body = {**MEAL_PLANS.create, "recipe_id": str(uuid.uuid4())}
    response = await api.post("/v1/meal-plans", json=body)
    assert response.status_code == 422
    assert "recipe_id" in response.json()["error"]["message"]


async def test_patching_a_meal_plan_to_another_users_recipe_is_422(api: Api, other_api: Api):
    plan = await create(api, MEAL_PLANS)
    theirs = await create(other_api, RECIPES)
    response = await api.patch(f"/v1/meal-plans/{plan['id']}", json={"recipe_id": theirs["id"]})
    assert response.status_code == 422
    assert (await api.get(f"/v1/meal-plans/{plan['id']}")).json() == plan


async def test_a_task_pointing_at_another_users_meal_plan_is_422(api: Api, other_api: Api):
    theirs = await create(other_api, MEAL_PLANS)
    response = await api.post("/v1/tasks", json={**TASKS.create, "meal_plan_id": theirs["id"]})
    assert response.status_code == 422
    assert "meal_plan_id" in response.json()["error"]["message"]


async def test_a_task_may_point_at_the_users_recipe_and_meal_plan(api: Api):
    recipe = await create(api, RECIPES)
    plan = await create(api, MEAL_PLANS, recipe_id=recipe["id"])
    task = await create(api, TASKS, recipe_id=recipe["id"], meal_plan_id=plan["id"])
    assert (task["recipe_id"], task["meal_plan_id"]) == (recipe["id"], plan["id"])


async def test_deleting_a_recipe_unlinks_its_meal_plans(api: Api):
    recipe = await create(api, RECIPES)
    plan = await create(api, MEAL_PLANS, recipe_id=recipe["id"])
    assert (await api.delete(f"/v1/recipes/{recipe['id']}")).status_code == 204
    assert (await api.get(f"/v1/meal-plans/{plan['id']}")).json()["recipe_id"] is None


async def test_meal_plans_filter_by_an_inclusive_date_range(api: Api):
    for day in ("2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"):
        await create(api, MEAL_PLANS, date=day)
    response = await api.get(
        "/v1/meal-plans", params={"date_from": "2026-11-23", "date_to": "2026-11-24"}
    )
    assert [r["date"] for r in response.json()] == ["2026-11-23", "2026-11-24"]


async def test_meal_plans_list_by_date_then_meal(api: Api):
    await create(api, MEAL_PLANS, date="2026-11-24", meal_type="breakfast")
    await create(api, MEAL_PLANS, date="2026-11-23", meal_type="dinner")
    await create(api, MEAL_PLANS, date="2026-11-23", meal_type="breakfast")
    listed = (await api.get("/v1/meal-plans")).json()
    assert [(r["date"], r["meal_type"]) for r in listed] == [
        ("2026-11-23", "breakfast"),
        ("2026-11-23", "dinner"),
        ("2026-11-24", "breakfast"),
    ]


async def test_a_bad_date_filter_is_422(api: Api):
    response = await api.get("/v1/meal-plans", params={"date_from": "soon"})
    assert response.status_code == 422


async def test_tasks_filter_by_completed(api: Api):
    done = await create(api, TASKS, title="Buy flour")
    await create(api, TASKS, title="Thaw the chicken")
    await api.patch(f"/v1/tasks/{done['id']}", json={"completed": True})
    response = await api.get("/v1/tasks", params={"completed": "false"})
    assert [r["title"] for r in response.json()] == ["Thaw the chicken"]
    response = await api.get("/v1/tasks", params={"completed": "true"})
    assert [r["title"] for r in response.json()] == ["Buy flour"]


async def test_tasks_list_open_ones_first_by_due_date(api: Api):
    await create(api, TASKS, title="undated", due_date=None)
    await create(api, TASKS, title="later", due_date="2026-11-30")
    await create(api, TASKS, title="sooner", due_date="2026-11-23")
    done = await create(api, TASKS, title="done", due_date="2026-11-01")
    await api.patch(f"/v1/tasks/{done['id']}", json={"completed": True})
    titles = [r["title"] for r in (await api.get("/v1/tasks")).json()]
    assert titles == ["sooner", "later", "undated", "done"]


# --- preferences ------------------------------------------------------------------------------


async def test_preferences_default_to_an_empty_profile(api: Api):
    response = await api.get("/v1/preferences")
    assert response.status_code == 200
    profile = response.json()
    assert profile["id"] is None and profile["allergies"] == []
    assert profile["household_adults"] is None and profile["subdomain_guidance"] == {}
    assert "user_id" not in profile


async def test_put_preferences_creates_the_profile(api: Api):
    response = await api.put(
        "/v1/preferences", json={"allergies": ["peanuts"], "household_adults": 2}
    )
    assert response.status_code == 200, response.text
    profile = response.json()
    uuid.UUID(profile["id"])
    assert profile["allergies"] == ["peanuts"] and profile["household_adults"] == 2
    assert (await api.get("/v1/preferences")).json() == profile


async def test_put_preferences_again_changes_only_the_given_fields(api: Api):
    first = (await api.put("/v1/preferences", json={"allergies": ["peanuts"]})).json()
    second = (await api.put("/v1/preferences", json={"favorite_cuisines": ["thai"]})).json()
    assert second == {**first, "favorite_cuisines": ["thai"]}


async def test_put_preferences_records_created_then_updated(api: Api):
    first = (await api.put("/v1/preferences", json={"allergies": ["peanuts"]})).json()
    second = (await api.put("/v1/preferences", json={"household_kids": 1})).json()
    changes = await kitchen_changes(api)
    assert [(c.table_name, str(c.row_id), c.action) for c in changes] == [
        ("preferences", first["id"], "created"),
        ("preferences", first["id"], "updated"),
    ]
    assert changes[-1].data == second  # preferences have no timestamp


async def test_preferences_are_per_user(api: Api, other_api: Api):
    await api.put("/v1/preferences", json={"allergies": ["peanuts"]})
    assert (await other_api.get("/v1/preferences")).json()["id"] is None


async def test_put_preferences_with_a_wrong_type_is_422_naming_the_field(api: Api):
    response = await api.put("/v1/preferences", json={"household_adults": "two"})
    assert response.status_code == 422
    assert error_fields(response) == {"household_adults"}
    assert (await api.get("/v1/preferences")).json()["id"] is None


async def test_put_preferences_refuses_user_id(api: Api, other_api: Api):
    response = await api.put("/v1/preferences", json={"user_id": str(other_api.user_id)})
    assert response.status_code == 422


@pytest.mark.parametrize("verb", ["get", "put"])
async def test_preferences_without_a_token_are_401(http, verb: str):
    response = await (http.get if verb == "get" else http.put)("/v1/preferences")
    assert response.status_code == 401


async def test_the_timezone_is_a_preference_utc_until_set(api: Api):
    assert (await api.get("/v1/preferences")).json()["timezone"] == "UTC"
    response = await api.put("/v1/preferences", json={"timezone": "Europe/Paris"})
    assert response.status_code == 200, response.text
    assert (await api.get("/v1/preferences")).json()["timezone"] == "Europe/Paris"


async def test_an_unknown_timezone_is_422_with_the_reason_and_nothing_changes(api: Api):
    await api.put("/v1/preferences", json={"timezone": "Asia/Tokyo"})
    response = await api.put("/v1/preferences", json={"timezone": "Mars/Olympus"})
    assert response.status_code == 422
    assert "'Mars/Olympus' is not a timezone" in response.json()["error"]["message"]
    assert (await api.get("/v1/preferences")).json()["timezone"] == "Asia/Tokyo"


async def test_a_quantity_of_zero_or_less_is_a_422_and_nothing_is_added(api: Api):
    response = await api.post("/v1/shopping-list", json={"name": "rice", "quantity": -5})
    assert response.status_code == 422
    assert "quantity must be more than 0" in response.json()["error"]["message"]
    assert (await api.get("/v1/shopping-list")).json() == []


async def test_adding_an_item_already_on_the_open_list_adds_to_its_quantity(api: Api):
    first = await create(api, SHOPPING, name="milk", quantity=1, unit="l")
    again = await api.post("/v1/shopping-list", json={"name": "Milk", "quantity": 2, "unit": "l"})
    assert again.status_code == 201 and again.json()["id"] == first["id"]
    assert again.json()["quantity"] == 3
    other_unit = await create(api, SHOPPING, name="milk", quantity=1, unit="bottle")
    assert other_unit["id"] != first["id"]
    names = [
        (r["name"], r["quantity"], r["unit"]) for r in (await api.get("/v1/shopping-list")).json()
    ]
    assert sorted(names) == [("milk", 1, "bottle"), ("milk", 3, "l")]


async def test_an_item_bought_already_is_not_added_to(api: Api):
    bought = await create(api, SHOPPING, name="eggs", quantity=6)
    await api.patch(f"/v1/shopping-list/{bought['id']}", json={"is_purchased": True})
    fresh = await create(api, SHOPPING, name="eggs", quantity=6)
    assert fresh["id"] != bought["id"] and fresh["quantity"] == 6


async def test_the_same_item_in_another_place_is_another_row(api: Api):
    fridge = await create(api, INVENTORY, name="butter", quantity=1, location="fridge")
    freezer = await create(api, INVENTORY, name="butter", quantity=1, location="freezer")
    more = await create(api, INVENTORY, name="butter", quantity=2, location="Fridge")
    assert freezer["id"] != fridge["id"] and more["id"] == fridge["id"] and more["quantity"] == 3


async def test_an_open_task_added_again_is_the_task_already_there(api: Api):
    first = await create(api, TASKS, title="Call the plumber")
    again = await create(api, TASKS, title="call the plumber")
    assert again["id"] == first["id"] and again["title"] == "Call the plumber"
    other_day = await create(api, TASKS, title="Call the plumber", due_date="2026-11-24")
    assert other_day["id"] != first["id"]
    assert len((await api.get("/v1/tasks")).json()) == 2
