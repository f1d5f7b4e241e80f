"""The model adds an item that is already there: the quantity grows, no second row."""

from __future__ import annotations

from domain.crud.calls import DbRead, DbUpdate, Filter
from domain.crud.merge import ALREADY, GROWN_FROM
from domain.formatters import format_write_confirmation
from domain.tool_results import ToolEntry
from tests.kitchen_helper import Kitchen

NAMED_EGGS = Filter(field="name", op="=", value="eggs")


async def test_milk_added_twice_to_the_open_list_is_one_row_with_both_amounts(kitchen: Kitchen):
    first = await kitchen.create("shopping_list", [{"name": "milk", "quantity": 1, "unit": "l"}])
    again = await kitchen.create("shopping_list", [{"name": "milk", "quantity": 2, "unit": "L"}])
    assert again.rows[0]["id"] == first.rows[0]["id"]  # the same ref
    rows = (await kitchen.run(DbRead(table="shopping_list"))).rows
    assert [(r["name"], float(r["quantity"])) for r in rows] == [("milk", 3.0)]


async def test_a_merged_write_says_how_much_there_is_now(kitchen: Kitchen):
    """Told "Added 1 item to your inventory: eggs" for "bought 6 more eggs", the 1.5B local
    model said there were now 7: the confirmation names the total."""
    eggs = {"name": "eggs", "quantity": 6, "unit": "piece", "location": "fridge"}
    first = await kitchen.create("inventory", [eggs])
    assert format_write_confirmation("db_create", "inventory", first.rows) == (
        "Added 1 item to your inventory: eggs (6 piece)."
    )
    more = await kitchen.create("inventory", [eggs])
    assert format_write_confirmation("db_create", "inventory", more.rows) == (
        "Added 1 item to your inventory: eggs (now 12 piece)."
    )
    # Act is shown the row as it is: shown what it had, the 1.5B added the 6 again (18)
    shown = ToolEntry.of_call("db_create", {"table": "inventory"}, more, None).as_dict()
    assert shown["rows"][0]["quantity"] == 12 and GROWN_FROM not in shown["rows"][0]


async def test_one_batch_naming_an_item_twice_adds_it_once(kitchen: Kitchen):
    await kitchen.create(
        "inventory",
        [
            {"name": "chicken thighs", "quantity": 500, "unit": "g", "location": "fridge"},
            {"name": "chicken thighs", "quantity": 250, "unit": "g", "location": "fridge"},
        ],
    )
    rows = (await kitchen.run(DbRead(table="inventory"))).rows
    assert [(r["name"], float(r["quantity"])) for r in rows] == [("chicken thighs", 750.0)]


async def test_an_amount_without_a_quantity_leaves_the_one_there(kitchen: Kitchen):
    await kitchen.create("shopping_list", [{"name": "eggs", "quantity": 6}])
    await kitchen.create("shopping_list", [{"name": "eggs"}])
    rows = (await kitchen.run(DbRead(table="shopping_list"))).rows
    assert [(r["name"], float(r["quantity"])) for r in rows] == [("eggs", 6.0)]


async def test_the_model_listing_an_item_open_on_the_list_in_another_unit_adds_nothing(
    kitchen: Kitchen,
):
    """For "out of olive oil, stick it on the list", the oil listed as 1 bottle, the 1.5B
    local model listed it again as 1 ml: a second row of the oil."""
    oil = await kitchen.create(
        "shopping_list", [{"name": "olive oil", "quantity": 1, "unit": "bottle"}]
    )
    again = await kitchen.create(
        "shopping_list", [{"name": "Olive oil", "quantity": 1, "unit": "ml"}]
    )
    assert again.rows[0]["id"] == oil.rows[0]["id"] and again.rows[0][ALREADY]
    rows = (await kitchen.run(DbRead(table="shopping_list"))).rows
    assert [(r["name"], float(r["quantity"]), r["unit"]) for r in rows] == [
        ("olive oil", 1.0, "bottle")
    ]
    assert format_write_confirmation("db_create", "shopping_list", again.rows) == (
        "Already there, so not added again: olive oil (1 bottle)."
    )
    await kitchen.run(
        DbUpdate(
            table="shopping_list",
            filters=[Filter(field="name", op="=", value="olive oil")],
            data={"is_purchased": True},
        )
    )
    anew = await kitchen.create("shopping_list", [{"name": "olive oil", "unit": "ml"}])
    assert ALREADY not in anew.rows[0]  # bought: listed anew
    kept = await kitchen.create("inventory", [{"name": "rice", "quantity": 1, "unit": "kg"}])
    more = await kitchen.create("inventory", [{"name": "rice", "quantity": 1, "unit": "bag"}])
    assert more.rows[0]["id"] != kept.rows[0]["id"]  # stock in another unit is more stock


async def test_a_dozen_eggs_bought_are_twelve_pieces_added_to_the_eggs_in_stock(kitchen: Kitchen):
    """The 1.5B local model put "a dozen" eggs on the list as 1 dozen; counted in
    dozens, they would stand beside the eggs counted in pieces, never merged."""
    await kitchen.create("inventory", [{"name": "eggs", "quantity": 6, "unit": "piece"}])
    await kitchen.create("inventory", [{"name": "eggs", "quantity": 1, "unit": "Dozen"}])
    rows = (await kitchen.run(DbRead(table="inventory"))).rows
    assert [(r["name"], float(r["quantity"]), r["unit"]) for r in rows] == [("eggs", 18.0, "piece")]
    update = DbUpdate(
        table="inventory", filters=[NAMED_EGGS], data={"quantity": 2, "unit": "dozen"}
    )
    await kitchen.run(update)
    assert float((await kitchen.run(DbRead(table="inventory"))).rows[0]["quantity"]) == 24.0


async def test_a_unit_spelled_out_is_the_short_one_and_grows_the_row_there(kitchen: Kitchen):
    """For "bought another litre of milk" the 1.5B local model added 1 litre of milk beside
    the 1 l in the fridge: a second row."""
    milk = {"name": "milk", "quantity": 1, "location": "fridge"}
    await kitchen.create("inventory", [{**milk, "unit": "l"}])
    more = await kitchen.create("inventory", [{**milk, "unit": "Litre"}])
    assert more.rows[0][GROWN_FROM] == 1
    rows = (await kitchen.run(DbRead(table="inventory"))).rows
    assert [(r["name"], float(r["quantity"]), r["unit"]) for r in rows] == [("milk", 2.0, "l")]
    listed = await kitchen.create(
        "shopping_list", [{"name": "tomatoes", "quantity": 2, "unit": "tins"}]
    )
    assert listed.rows[0]["unit"] == "tin"


async def test_dozens_that_are_a_multiple_of_twelve_are_the_pieces_under_the_wrong_unit(
    kitchen: Kitchen,
):
    """For "I just bought … a dozen eggs" the 1.5B local model wrote 12, unit dozen."""
    made = await kitchen.create(
        "shopping_list", [{"name": "eggs", "quantity": 12, "unit": "dozen"}]
    )
    assert (float(made.rows[0]["quantity"]), made.rows[0]["unit"]) == (12.0, "piece")


async def test_an_open_task_created_again_is_the_task_already_there(kitchen: Kitchen):
    """In a step that ticked the oven off, the 1.5B local model created "Call the plumber",
    due the day the open plumber task was due: a second row of the same task."""
    plumber = {"title": "Call the plumber", "due_date": "2026-12-02"}
    first = await kitchen.create("tasks", [plumber])
    again = await kitchen.create("tasks", [{**plumber, "title": "call the plumber "}])
    assert again.rows[0]["id"] == first.rows[0]["id"] and again.rows[0][ALREADY]
    assert await kitchen.names("tasks") == ["Call the plumber"]
    assert format_write_confirmation("db_create", "tasks", again.rows) == (
        "Already there, so not added again: Call the plumber."
    )
    shown = ToolEntry.of_call("db_create", {"table": "tasks"}, again, None).as_dict()
    assert ALREADY not in shown["rows"][0]
    other_day = await kitchen.create("tasks", [{**plumber, "due_date": "2026-12-03"}])
    assert ALREADY not in other_day.rows[0]  # another day: another task
    assert len(await kitchen.names("tasks")) == 2


async def test_a_task_done_is_made_anew_and_a_meal_planned_twice_is_planned_once(
    kitchen: Kitchen,
):
    oven = {"title": "Clean the oven", "due_date": "2026-11-30"}
    done = await kitchen.create("tasks", [{**oven, "completed": True}])
    anew = await kitchen.create("tasks", [oven])
    assert anew.rows[0]["id"] != done.rows[0]["id"]  # the done one is no open task
    meal = {"date": "2026-11-30", "meal_type": "dinner", "notes": "leftovers"}
    await kitchen.create("meal_plans", [meal])
    both = await kitchen.create("meal_plans", [meal, {**meal, "meal_type": "lunch"}])
    assert [bool(r.get(ALREADY)) for r in both.rows] == [True, False]
    pizza = await kitchen.create("meal_plans", [{**meal, "notes": "pizza night"}])
    assert ALREADY not in pizza.rows[0]  # no recipe: another meal by its notes
    assert len((await kitchen.run(DbRead(table="meal_plans"))).rows) == 3
