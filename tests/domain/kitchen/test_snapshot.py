"""The turn's pre-processing read: profile, dashboard counts and fresh rows, per user."""

from __future__ import annotations

import datetime as dt
import uuid

from domain.db.engine import user_transaction
from domain.kitchen import repository
from domain.kitchen.snapshot import kitchen_dashboard, turn_context
from domain.registry import SessionIdRegistry
from domain.turn_context import FreshEntity
from tests.kitchen_helper import Kitchen

TODAY = dt.date(2026, 11, 22)


async def ids(kitchen: Kitchen, result) -> list[str]:
    return [kitchen.registry.resolve(row["id"]) for row in result.rows]


async def test_dashboard_counts_the_users_kitchen(sessions, pantry: Kitchen):
    tacos = await pantry.create("recipes", [{"name": "Tacos", "cuisine": "Mexican"}])
    await pantry.create("recipes", [{"name": "Mole", "cuisine": "mexican"}, {"name": "Toast"}])
    (tacos_id,) = await ids(pantry, tacos)
    await pantry.create(
        "meal_plans",
        [
            {"date": "2026-11-23", "meal_type": "dinner", "recipe_id": tacos_id},
            {"date": "2026-11-28", "meal_type": "lunch"},  # the 7th day, today included
            {"date": "2026-11-29", "meal_type": "dinner"},  # the 8th: not in the window
            {"date": "2026-11-21", "meal_type": "dinner"},  # yesterday
        ],
    )
    await pantry.create(
        "shopping_list", [{"name": "limes"}, {"name": "salt", "is_purchased": True}]
    )
    await pantry.create(
        "tasks",
        [
            {"title": "sharpen knives"},
            {"title": "thaw chicken", "due_date": "2026-11-20"},
            {"title": "put the bins out", "due_date": "2026-11-22", "completed": True},
        ],
    )
    async with user_transaction(sessions, pantry.user) as session:
        board = await kitchen_dashboard(session, TODAY)
    assert board.inventory_by_location == {"freezer": 1, "fridge": 2, "pantry": 1}
    assert board.inventory_expiring_soon == 1  # milk, 2026-11-25
    assert board.recipes_by_cuisine == {"mexican": 2, "unspecified": 1}
    assert board.recipe_count == 3
    assert board.meal_plan_next_7_days == [
        "2026-11-23 dinner: Tacos",
        "2026-11-28 lunch: (no recipe)",
    ]
    assert (board.shopping_open, board.tasks_open, board.tasks_overdue) == (1, 2, 1)
    assert board.tasks_next == ["thaw chicken (due Fri 2026-11-20, 2 days ago)", "sharpen knives"]


async def test_the_dashboard_names_the_stock_and_list_rows_the_request_names(
    sessions, pantry: Kitchen, executor, other_user
):
    """ "got the paper towels" is about the paper towels still to buy: counts alone do not
    say they are on the list."""
    await pantry.create(
        "shopping_list",
        [{"name": "paper towels"}, {"name": "bread"}, {"name": "rice", "is_purchased": True}],
    )
    other = Kitchen(executor, other_user, SessionIdRegistry())
    await other.create("shopping_list", [{"name": "milk"}])
    message = "got the paper towels and the bread, and the milk and the rice are finished"
    async with user_transaction(sessions, pantry.user) as session:
        board = await kitchen_dashboard(session, TODAY, message)
        unnamed = await kitchen_dashboard(session, TODAY)
        partial = await kitchen_dashboard(session, TODAY, "paper, eggsy breads")
    assert board.named == {
        "inventory": ["milk", "rice"],
        "shopping_list": ["bread", "paper towels"],  # the bought rice is not: not to buy
    }
    assert unnamed.named == {} and partial.named == {}  # whole words only


async def test_an_empty_kitchen_has_an_empty_dashboard_and_no_profile(sessions, user):
    async with user_transaction(sessions, user) as session:
        context = await turn_context(session, today=TODAY, message="hi", ui_changes=[])
    assert context.profile is None
    assert context.dashboard.recipe_count == 0 and context.dashboard.inventory_by_location == {}
    assert context.entities == [] and context.unresolved_mentions == []


async def test_mentions_are_read_fresh_and_another_users_row_is_unresolved(
    sessions, kitchen: Kitchen, executor, other_user
):
    mine = await kitchen.create("recipes", [{"name": "Tacos", "servings": 2}])
    (mine_id,) = await ids(kitchen, mine)
    other = Kitchen(executor, other_user, SessionIdRegistry())
    (theirs_id,) = await ids(other, await other.create("recipes", [{"name": "Secret Paella"}]))
    message = (
        f"make @[Tacos](recipe:{mine_id}) like @[Paella](recipes:{theirs_id}) "
        "and @[Thing](spaceship:123)"
    )
    async with user_transaction(sessions, kitchen.user) as session:
        context = await turn_context(session, today=TODAY, message=message, ui_changes=[])
    (entity,) = context.entities
    assert (entity.table, entity.id, entity.action) == ("recipes", mine_id, "mentioned:user")
    assert entity.data["name"] == "Tacos" and entity.data["servings"] == 2
    assert entity.data["ingredients"] == []
    assert context.unresolved_mentions == [
        "@[Thing](spaceship:123)",
        f"@[Paella](recipes:{theirs_id})",
    ]


async def test_ui_changes_carry_the_row_as_stored_now(sessions, pantry: Kitchen):
    milk = pantry.registry.resolve("inv_1")
    async with user_transaction(sessions, pantry.user) as session:
        await repository.update_row(session, "inventory", _uuid(milk), {"quantity": 5})
    changes = [
        FreshEntity(table="inventory", id=milk, action="updated:user", data={"quantity": 1}),
        FreshEntity(table="inventory", id=milk, action="updated:user"),  # the same row again
        FreshEntity(
            table="recipes", id="00000000-0000-0000-0000-000000000001", action="updated:user"
        ),
        FreshEntity(table="not_a_table", id=milk, action="updated:user"),
    ]
    async with user_transaction(sessions, pantry.user) as session:
        context = await turn_context(session, today=TODAY, message="", ui_changes=changes)
    assert [(e.table, e.action) for e in context.entities] == [
        ("inventory", "updated:user"),
        ("recipes", "deleted:user"),  # a row that is gone counts as deleted
    ]
    assert context.entities[0].data["quantity"] == 5


async def test_the_profile_is_the_users_preferences(sessions, user):
    async with user_transaction(sessions, user) as session:
        await repository.put_preferences(session, {"allergies": ["peanuts"], "household_adults": 2})
    async with user_transaction(sessions, user) as session:
        context = await turn_context(session, today=TODAY, message="", ui_changes=[])
    assert context.profile["allergies"] == ["peanuts"]
    assert context.profile["household_adults"] == 2


def _uuid(value: str) -> uuid.UUID:
    return uuid.UUID(value)


async def named_in(sessions, pantry: Kitchen, message: str) -> dict[str, list[str]]:
    """The rows the dashboard finds named in ``message``, by table."""
    async with user_transaction(sessions, pantry.user) as session:
        context = await turn_context(session, today=TODAY, message=message, ui_changes=[])
    return context.dashboard.named


async def test_the_dashboard_names_the_open_tasks_the_request_names_in_its_own_words(
    sessions, pantry: Kitchen
):
    """ "forget about the oven cleaning" is the task "Clean the oven": told nothing of it,
    the 1.5B local model deleted "the oven cleaning" as a recipe."""
    await pantry.create(
        "tasks",
        [
            {"title": "Clean the oven"},
            {"title": "Call the plumber"},
            {"title": "Clean the oven racks", "completed": True},
        ],
    )

    async def named(message: str) -> dict[str, list[str]]:
        return await named_in(sessions, pantry, message)

    assert await named("forget about the oven cleaning, delete it") == {
        "tasks": ["Clean the oven"]  # the done "Clean the oven racks" is no open task
    }
    assert await named("I called the plumber") == {"tasks": ["Call the plumber"]}
    assert await named("what can I cook in the oven?") == {}  # the oven as a place


async def test_a_task_is_named_by_the_thing_it_acts_on_said_as_what_the_request_is_about(
    sessions, pantry: Kitchen
):
    """ "plumber is coming tuesday now" is "Call the plumber": told nothing of it, the
    1.5B local model put the plumber on the shopping list, twice."""
    await pantry.create("tasks", [{"title": "Clean the oven"}, {"title": "Call the plumber"}])

    async def named(message: str) -> list[str]:
        return (await named_in(sessions, pantry, message)).get("tasks", [])

    assert await named("plumber is coming tuesday now") == ["Call the plumber"]
    assert await named("the plumber can wait") == ["Call the plumber"]
    assert await named("is the oven done?") == ["Clean the oven"]
    assert await named("bake it in the oven for 20 minutes") == []
    assert await named("what goes with a roast from the oven") == []


async def test_the_dashboard_names_the_recipes_the_request_names_by_their_dish(
    sessions, pantry: Kitchen
):
    """ "dal for dinner friday" is the saved Red Lentil Dal: told nothing of it, the 1.5B
    local model planned a new dinner."""
    await pantry.create("recipes", [{"name": "Red Lentil Dal"}, {"name": "Weeknight Chili"}])

    async def named(message: str) -> list[str]:
        return (await named_in(sessions, pantry, message)).get("recipes", [])

    assert await named("dal for dinner friday") == ["Red Lentil Dal"]
    assert await named("two dals and the chili please") == ["Red Lentil Dal", "Weeknight Chili"]
    assert await named("any lentils left?") == []  # a word of the name, not the dish
    assert await named("whats for dinner") == []


async def test_a_delete_naming_an_item_in_two_tables_brings_both_rows(sessions, pantry: Kitchen):
    await pantry.create("shopping_list", [{"name": "eggs"}, {"name": "egg noodles"}])
    await pantry.create("shopping_list", [{"name": "rice", "is_purchased": True}])

    async def candidates(message: str) -> list[tuple[str, str]]:
        async with user_transaction(sessions, pantry.user) as session:
            context = await turn_context(session, today=TODAY, message=message, ui_changes=[])
        return sorted((e.table, e.data["name"]) for e in context.delete_candidates)

    assert await candidates("delete the eggs") == [("inventory", "eggs"), ("shopping_list", "eggs")]
    assert await candidates("please remove the Eggs.") == [
        ("inventory", "eggs"),
        ("shopping_list", "eggs"),
    ]
    assert await candidates("delete the eggs from my shopping list") == []  # it says where
    assert await candidates("delete the rice") == []  # bought: only the pantry's is open
    assert await candidates("delete the milk") == []  # in one table only
    assert await candidates("how many eggs do I have?") == []  # no delete asked
