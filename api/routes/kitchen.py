"""/v1 kitchen resources for UIs: inventory, recipes, shopping list, meal plans, tasks (list,
create, read, update, delete) and preferences (read, upsert).

Each request runs in one ``user_transaction``: row-level security shows only the caller's
rows (another user's id is a 404, like an unknown one), and the repository notes every write
in ``kitchen_changes`` in that same transaction for the user's next turn.

The four item routes are the same for every resource, so ``_item_routes`` registers them
from the resource's models; the list routes are written out because their filters differ.
"""

# No ``from __future__ import annotations`` here: ``_item_routes`` annotates its endpoints
# with the resource's models (closure variables), and FastAPI resolves string annotations
# against module globals only.

import datetime as dt
import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel

from api.deps import CurrentUser, ServicesDep
from api.kitchen_schemas import (
    InventoryItemCreate,
    InventoryItemPublic,
    InventoryItemUpdate,
    MealPlanCreate,
    MealPlanPublic,
    MealPlanUpdate,
    PreferencesPublic,
    PreferencesUpdate,
    RecipeCreate,
    RecipePublic,
    RecipeUpdate,
    ShoppingListItemCreate,
    ShoppingListItemPublic,
    ShoppingListItemUpdate,
    TaskCreate,
    TaskPublic,
    TaskUpdate,
    empty_preferences,
)
from api.problems import ApiError
from api.schemas import SafeText
from domain.db.engine import user_transaction
from domain.kitchen import repository

router = APIRouter(prefix="/v1")

Limit = Annotated[int, Query(ge=1, le=500, description="At most this many rows.")]
Offset = Annotated[int, Query(ge=0, description="Skip this many rows (paging).")]


def _item_routes(
    resource: APIRouter,
    *,
    table: str,
    noun: str,
    create: type[BaseModel],
    update: type[BaseModel],
    public: type[BaseModel],
) -> None:
    """POST the collection; GET, PATCH, DELETE one row of ``table`` by id."""
    label = noun.replace("_", " ")

    def not_found(row_id: uuid.UUID) -> ApiError:
        return ApiError(404, f"{noun}_not_found", f"{label} {row_id} not found")

    async def create_row(body: create, user: CurrentUser, svc: ServicesDep) -> Any:
        async with user_transaction(svc.sessions, user) as session:
            return await repository.create_row(session, table, body.model_dump(exclude_unset=True))

    async def read_row(row_id: uuid.UUID, user: CurrentUser, svc: ServicesDep) -> Any:
        async with user_transaction(svc.sessions, user) as session:
            row = await repository.get_row(session, table, row_id)
        if row is None:
            raise not_found(row_id)
        return row

    async def update_row(
        row_id: uuid.UUID, body: update, user: CurrentUser, svc: ServicesDep
    ) -> Any:
        async with user_transaction(svc.sessions, user) as session:
            row = await repository.update_row(
                session, table, row_id, body.model_dump(exclude_unset=True)
            )
        if row is None:
            raise not_found(row_id)
        return row

    async def delete_row(row_id: uuid.UUID, user: CurrentUser, svc: ServicesDep) -> Response:
        async with user_transaction(svc.sessions, user) as session:
            row = await repository.delete_row(session, table, row_id)
        if row is None:
            raise not_found(row_id)
        return Response(status_code=204)

    item = "/{row_id}"
    resource.add_api_route(
        "",
        create_row,
        methods=["POST"],
        status_code=201,
        response_model=public,
        name=f"create_{noun}",
        summary=f"Create a {label}",
    )
    resource.add_api_route(
        item,
        read_row,
        methods=["GET"],
        response_model=public,
        name=f"read_{noun}",
        summary=f"Read a {label}",
    )
    resource.add_api_route(
        item,
        update_row,
        methods=["PATCH"],
        response_model=public,
        name=f"update_{noun}",
        summary=f"Change the given fields of a {label}",
    )
    resource.add_api_route(
        item,
        delete_row,
        methods=["DELETE"],
        status_code=204,
        response_class=Response,
        name=f"delete_{noun}",
        summary=f"Delete a {label}",
    )


# --- inventory ------------------------------------------------------------------------------

inventory = APIRouter(prefix="/inventory", tags=["inventory"])


@inventory.get("", response_model=list[InventoryItemPublic])
async def list_inventory(
    user: CurrentUser,
    svc: ServicesDep,
    location: Annotated[SafeText | None, Query(description="fridge, pantry ... (any case)")] = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> Any:
    """The user's inventory, by name."""
    async with user_transaction(svc.sessions, user) as session:
        return await repository.list_inventory(
            session, location=location, limit=limit, offset=offset
        )


_item_routes(
    inventory,
    table="inventory",
    noun="inventory_item",
    create=InventoryItemCreate,
    update=InventoryItemUpdate,
    public=InventoryItemPublic,
)

# --- recipes --------------------------------------------------------------------------------

recipes = APIRouter(prefix="/recipes", tags=["recipes"])


@recipes.get("", response_model=list[RecipePublic])
async def list_recipes(
    user: CurrentUser, svc: ServicesDep, limit: Limit = 100, offset: Offset = 0
) -> Any:
    """The user's recipes with their ingredients, by name."""
    async with user_transaction(svc.sessions, user) as session:
        return await repository.list_recipes(session, limit=limit, offset=offset)


_item_routes(
    recipes,
    table="recipes",
    noun="recipe",
    create=RecipeCreate,
    update=RecipeUpdate,
    public=RecipePublic,
)

# --- shopping list --------------------------------------------------------------------------

shopping_list = APIRouter(prefix="/shopping-list", tags=["shopping list"])


@shopping_list.get("", response_model=list[ShoppingListItemPublic])
async def list_shopping_list(
    user: CurrentUser,
    svc: ServicesDep,
    is_purchased: bool | None = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> Any:
    """The shopping list: items still to buy first, then in the order they were added."""
    async with user_transaction(svc.sessions, user) as session:
        return await repository.list_shopping_list(
            session, is_purchased=is_purchased, limit=limit, offset=offset
        )


_item_routes(
    shopping_list,
    table="shopping_list",
    noun="shopping_list_item",
    create=ShoppingListItemCreate,
    update=ShoppingListItemUpdate,
    public=ShoppingListItemPublic,
)

# --- meal plans -----------------------------------------------------------------------------

meal_plans = APIRouter(prefix="/meal-plans", tags=["meal plans"])


@meal_plans.get("", response_model=list[MealPlanPublic])
async def list_meal_plans(
    user: CurrentUser,
    svc: ServicesDep,
    date_from: Annotated[dt.date | None, Query(description="On or after this day.")] = None,
    date_to: Annotated[dt.date | None, Query(description="On or before this day.")] = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> Any:
    """Planned meals by date, then breakfast to snack."""
    async with user_transaction(svc.sessions, user) as session:
        return await repository.list_meal_plans(
            session, date_from=date_from, date_to=date_to, limit=limit, offset=offset
        )


_item_routes(
    meal_plans,
    table="meal_plans",
    noun="meal_plan",
    create=MealPlanCreate,
    update=MealPlanUpdate,
    public=MealPlanPublic,
)

# --- tasks ----------------------------------------------------------------------------------

tasks = APIRouter(prefix="/tasks", tags=["tasks"])


@tasks.get("", response_model=list[TaskPublic])
async def list_tasks(
    user: CurrentUser,
    svc: ServicesDep,
    completed: bool | None = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> Any:
    """Open tasks first, by due date (undated last)."""
    async with user_transaction(svc.sessions, user) as session:
        return await repository.list_tasks(session, completed=completed, limit=limit, offset=offset)


_item_routes(
    tasks, table="tasks", noun="task", create=TaskCreate, update=TaskUpdate, public=TaskPublic
)

# --- preferences ----------------------------------------------------------------------------

preferences = APIRouter(prefix="/preferences", tags=["preferences"])


@preferences.get("", response_model=PreferencesPublic)
async def read_preferences(user: CurrentUser, svc: ServicesDep) -> Any:
    """The user's profile; every field at its default (and ``id`` null) until first written."""
    async with user_transaction(svc.sessions, user) as session:
        row = await repository.get_preferences(session)
    return row if row is not None else empty_preferences()


@preferences.put("", response_model=PreferencesPublic)
async def put_preferences(body: PreferencesUpdate, user: CurrentUser, svc: ServicesDep) -> Any:
    """Create the profile, or change the given fields of it."""
    async with user_transaction(svc.sessions, user) as session:
        return await repository.put_preferences(session, body.model_dump(exclude_unset=True))


for _resource in (inventory, recipes, shopping_list, meal_plans, tasks, preferences):
    router.include_router(_resource)
