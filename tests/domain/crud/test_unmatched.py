"""A filtered read that finds nothing says how many rows the filters left out, so that
"none match" is not read as "there are none" (the 1.5B local model read the shopping list
filtered on created_at = now, found nothing, and told the user the list was empty)."""

from __future__ import annotations

from domain.crud.calls import HELD_ALREADY, DbDelete, DbRead, DbUpdate
from domain.registry import SessionIdRegistry
from tests.kitchen_helper import Kitchen, f


async def test_a_filtered_read_that_finds_nothing_counts_the_rows_it_left_out(kitchen: Kitchen):
    await kitchen.create("shopping_list", [{"name": "milk"}, {"name": "olive oil"}])
    read = await kitchen.run(
        DbRead(table="shopping_list", filters=[f("created_at", "=", "2026-11-26T16:51:00")])
    )
    assert read.rows == []
    assert read.notes == ["no row matches the filters; shopping_list holds 2 row(s) in all"]


async def test_a_read_by_a_name_that_is_the_location_of_rows_reads_them_by_location(
    kitchen: Kitchen,
):
    """The 1.5B local model read inventory name ilike "freezer" for "whats in the freezer"
    and told the user the freezer was empty; told that "freezer" is the rows' location, it
    read by name "fridge" for "how many things are in the fridge", and said the same."""
    await kitchen.create(
        "inventory",
        [
            {"name": "frozen peas", "location": "freezer"},
            {"name": "chicken thighs", "location": "Freezer"},
            {"name": "milk", "location": "fridge"},
        ],
    )
    read = await kitchen.run(DbRead(table="inventory", filters=[f("name", "ilike", "%freezer%")]))
    assert sorted(r["name"] for r in read.rows) == ["chicken thighs", "frozen peas"]
    assert read.notes == ["read by location: 'freezer' is the location of 2 row(s), not their name"]
    nowhere = await kitchen.run(DbRead(table="inventory", filters=[f("name", "=", "pantry")]))
    assert nowhere.rows == []
    assert nowhere.notes[-1] == "no row matches the filters; inventory holds 3 row(s) in all"
    either = await kitchen.run(  # a read that names more than a place stays as asked
        DbRead(
            table="inventory",
            filters=[f("name", "=", "fridge")],
            or_filters=[f("name", "=", "freezer")],
        )
    )
    assert either.rows == [] and "'fridge' is the location of 1 row(s), not their name" in (
        either.notes
    )


async def test_a_read_by_a_name_that_finds_nothing_names_the_rows_that_share_a_word(
    kitchen: Kitchen,
):
    """The 1.5B local model read recipes by name ilike "lentils" for "any recipes with
    lentils?", found nothing beside a Red Lentil Dal made of red lentils, and said there
    were none: a plural is matched as its singular, and a recipe by its ingredients."""
    await kitchen.create(
        "recipes",
        [
            {"name": "Lentil Soup", "recipe_ingredients": [{"name": "brown lentils"}]},
            {"name": "Red Lentil Dal", "recipe_ingredients": [{"name": "red lentils"}]},
            {"name": "Weeknight Chili", "recipe_ingredients": [{"name": "kidney beans"}]},
        ],
    )
    lentils = await kitchen.run(DbRead(table="recipes", filters=[f("name", "ilike", "lentils")]))
    assert lentils.rows == [] and lentils.notes == [
        "no row matches the filters; recipes holds 3 row(s) in all",
        "rows whose name shares a word: 'Lentil Soup', 'Red Lentil Dal'",
        "recipes with an ingredient that shares a word: 'Lentil Soup', 'Red Lentil Dal'",
    ]
    beans = await kitchen.run(DbRead(table="recipes", filters=[f("name", "=", "beans")]))
    assert beans.notes[1:] == ["recipes with an ingredient that shares a word: 'Weeknight Chili'"]
    milk = await kitchen.run(DbRead(table="recipes", filters=[f("name", "=", "milk")]))
    assert milk.notes == ["no row matches the filters; recipes holds 3 row(s) in all"]


async def test_a_read_by_a_name_that_one_row_alone_holds_reads_that_row(kitchen: Kitchen):
    """People name a row by a word of its name: the 1.5B local model read recipes by name
    = "Chili" for "what do i need to buy for the chili", the Weeknight Chili saved, and
    read nothing. A name whose every word one row's name alone holds reads that row."""
    await kitchen.create(
        "recipes",
        [
            {"name": "Red Lentil Dal", "recipe_ingredients": [{"name": "red lentils"}]},
            {"name": "Tomato Salad"},
            {"name": "Tomato Soup"},
            {"name": "Weeknight Chili", "recipe_ingredients": [{"name": "kidney beans"}]},
        ],
    )
    await kitchen.create("tasks", [{"title": "Call the plumber"}, {"title": "Clean the oven"}])
    chili = await kitchen.run(
        DbRead(table="recipes", filters=[f("name", "=", "Chili")], columns=["name", "ingredients"])
    )
    assert [(r["name"], [i["name"] for i in r["recipe_ingredients"]]) for r in chili.rows] == [
        ("Weeknight Chili", ["kidney beans"])
    ]
    assert chili.notes == [
        "no row is named 'Chili'; this is 'Weeknight Chili', the one whose name holds every "
        "word of it"
    ]
    lentils = await kitchen.run(DbRead(table="recipes", filters=[f("name", "ilike", "%lentils%")]))
    assert [r["name"] for r in lentils.rows] == ["Red Lentil Dal"]
    plumber = await kitchen.run(DbRead(table="tasks", filters=[f("title", "=", "plumber")]))
    assert [r["title"] for r in plumber.rows] == ["Call the plumber"]
    tomato = await kitchen.run(DbRead(table="recipes", filters=[f("name", "=", "tomatoes")]))
    assert tomato.rows == [] and tomato.notes[1] == (
        "rows whose name shares a word: 'Tomato Salad', 'Tomato Soup'"
    )
    spicy = await kitchen.run(DbRead(table="recipes", filters=[f("name", "=", "spicy chili")]))
    assert spicy.rows == [] and spicy.notes[1] == "rows whose name shares a word: 'Weeknight Chili'"


async def test_only_the_users_own_rows_are_counted(kitchen: Kitchen, executor, other_user):
    await Kitchen(executor, other_user, SessionIdRegistry()).create("tasks", {"title": "theirs"})
    read = await kitchen.run(DbRead(table="tasks", filters=[f("title", "=", "mine")]))
    assert read.notes == ["tasks is empty"]


async def test_a_read_that_finds_rows_or_has_no_filters_adds_no_note(kitchen: Kitchen):
    await kitchen.create("tasks", {"title": "defrost"})
    assert (await kitchen.run(DbRead(table="tasks"))).notes == []
    assert (await kitchen.run(DbRead(table="recipes"))).notes == []
    found = await kitchen.run(DbRead(table="tasks", filters=[f("title", "=", "defrost")]))
    assert len(found.rows) == 1 and found.notes == []


# --- a write that matches nothing says what is there -------------------------------------------


async def test_a_delete_that_matches_nothing_names_the_rows_that_share_a_word(kitchen: Kitchen):
    """The 1.5B local model deleted name = "leftover rice" (the row was "cooked rice") and
    then said it had binned it."""
    await kitchen.create("inventory", [{"name": "cooked rice"}, {"name": "milk"}])
    gone = await kitchen.run(DbDelete(table="inventory", filters=[f("name", "=", "leftover rice")]))
    assert gone.rows == [] and gone.count == 0
    assert gone.notes == [
        "no row matches the filters, so nothing was deleted; inventory holds 2 row(s) in all; "
        "rows whose name shares a word: 'cooked rice'"
    ]
    assert await kitchen.names("inventory") == ["cooked rice", "milk"]  # writes stay exact


async def test_an_update_that_matches_nothing_counts_the_rows_and_one_that_does_adds_no_note(
    kitchen: Kitchen,
):
    await kitchen.create("tasks", {"title": "defrost"})
    missed = await kitchen.run(
        DbUpdate(table="tasks", filters=[f("title", "=", "bins")], data={"completed": True})
    )
    assert missed.notes == [
        "no row matches the filters, so nothing was updated; tasks holds 1 row(s) in all"
    ]
    done = await kitchen.run(
        DbUpdate(table="tasks", filters=[f("title", "=", "defrost")], data={"completed": True})
    )
    assert done.count == 1 and done.notes == []


async def test_a_task_missed_by_its_title_is_named_by_the_words_it_shares(kitchen: Kitchen):
    await kitchen.create("tasks", [{"title": "put the bins out"}, {"title": "defrost"}])
    missed = await kitchen.run(
        DbUpdate(table="tasks", filters=[f("title", "=", "bins")], data={"completed": True})
    )
    assert missed.notes == [
        "no row matches the filters, so nothing was updated; tasks holds 2 row(s) in all; "
        "rows whose name shares a word: 'put the bins out'"
    ]


async def test_a_meal_plan_write_that_matches_nothing_lists_its_rows_nearest_the_date(
    kitchen: Kitchen, executor, other_user
):
    """A meal plan row has no name to suggest: the 1.5B local model moved "the dal to
    wednesday" by updating the row dated today, which held none, and was told only how
    many rows there were."""
    theirs = Kitchen(executor, other_user, SessionIdRegistry())
    await theirs.create("meal_plans", {"date": "2026-12-04", "meal_type": "dinner"})
    await kitchen.create("recipes", [{"name": "Red Lentil Dal"}, {"name": "Weeknight Chili"}])
    await kitchen.create(
        "meal_plans",
        [
            {"date": "2026-11-30", "meal_type": "dinner", "recipe_id": "recipe_1"},
            {"date": "2026-12-05", "meal_type": "lunch", "recipe_id": "recipe_2"},
            {"date": "2026-11-29", "meal_type": "dinner"},
        ],
    )
    moved = await kitchen.run(
        DbUpdate(
            table="meal_plans", filters=[f("date", "=", "2026-12-04")], data={"date": "2026-12-02"}
        )
    )
    assert moved.count == 0 and moved.notes == [
        "no row matches the filters, so nothing was updated; meal_plans holds 3 row(s) in all; "
        "its rows: 2026-12-05 lunch: Weeknight Chili, "
        "2026-11-30 dinner: Red Lentil Dal, 2026-11-29 dinner: no recipe"
    ]
    undated = await kitchen.run(
        DbDelete(table="meal_plans", filters=[f("meal_type", "=", "breakfast")])
    )
    assert undated.notes[0].endswith(
        "its rows: 2026-11-29 dinner: no recipe, "
        "2026-11-30 dinner: Red Lentil Dal, 2026-12-05 lunch: Weeknight Chili"
    )


async def test_a_read_its_limit_cut_short_says_how_many_matching_rows_it_left_out(
    kitchen: Kitchen,
):
    """The 1.5B local model read tomorrow's meal plan with limit 1 for "whats for lunch
    tmrw", got the dinner, and named it as lunch."""
    await kitchen.create(
        "meal_plans",
        [
            {"date": "2026-11-29", "meal_type": "dinner"},
            {"date": "2026-11-29", "meal_type": "lunch"},
            {"date": "2026-11-30", "meal_type": "lunch"},
        ],
    )
    one = await kitchen.run(
        DbRead(table="meal_plans", filters=[f("date", "=", "2026-11-29")], limit=1)
    )
    assert len(one.rows) == 1 and one.notes == [
        "the limit of 1 left out 1 more matching row(s): 2 in all; read with a higher limit "
        "or narrower filters to see them"
    ]
    both = await kitchen.run(
        DbRead(table="meal_plans", filters=[f("date", "=", "2026-11-29")], limit=2)
    )
    assert len(both.rows) == 2 and both.notes == []


async def test_filters_no_row_can_meet_are_said_to_be_crossed(kitchen: Kitchen):
    """For "got the paper towels and the bread" the 1.5B local model sent name = bread in
    filters and name = paper towels in or_filters, meaning either, three times."""
    await kitchen.create("shopping_list", [{"name": "bread"}, {"name": "paper towels"}])
    crossed = [f("name", "=", "bread")], [f("name", "=", "paper towels")]
    missed = await kitchen.run(
        DbUpdate(
            table="shopping_list",
            filters=crossed[0],
            or_filters=crossed[1],
            data={"is_purchased": True},
        )
    )
    never = (
        "no row can match: filters ask for name = 'bread' and or_filters for name = "
        "'paper towels' at once (a row meets every filter and at least one or_filter); for "
        "rows of any of these, put them all in or_filters, or use name in [...]"
    )
    assert missed.count == 0 and missed.notes[0].endswith(f"; {never}")
    read = await kitchen.run(
        DbRead(table="shopping_list", filters=crossed[0], or_filters=crossed[1])
    )
    assert never in read.notes
    both = await kitchen.run(
        DbRead(table="shopping_list", or_filters=[f("name", "=", "bread"), *crossed[1]])
    )
    assert both.count == 2 and not any("can match" in n for n in both.notes)
    same = await kitchen.run(
        DbRead(table="shopping_list", filters=crossed[0], or_filters=[f("name", "=", "Bread")])
    )
    assert same.count == 1 and not any("can match" in n for n in same.notes)


async def test_filters_that_hold_a_name_to_two_values_are_said_to_be_crossed(kitchen: Kitchen):
    """For "take bread and olive oil off the list" the 1.5B local model deleted ``name =
    bread`` and ``name = olive oil``, both in filters, three times."""
    await kitchen.create("shopping_list", [{"name": "bread"}, {"name": "olive oil"}])
    both = [f("name", "=", "bread"), f("name", "=", "olive oil")]
    missed = await kitchen.run(DbDelete(table="shopping_list", filters=both))
    never = (
        "no row can match: filters ask for name = 'bread' and 'olive oil' at once (a row "
        "meets every filter); for rows of any of these, put them all in or_filters, or use "
        "name in [...]"
    )
    assert missed.count == 0 and missed.notes[0].endswith(f"; {never}")
    same = await kitchen.run(
        DbRead(table="shopping_list", filters=[f("name", "=", "bread"), f("name", "=", "Bread")])
    )
    assert same.count == 1 and not any("can match" in n for n in same.notes)


async def test_asking_whether_a_column_no_row_leaves_empty_is_empty_is_said_to_keep_all(
    kitchen: Kitchen,
):
    """For "Read the tasks not completed" the 1.5B local model read ``completed
    is_not_null``, twice, and listed the done task as still to do."""
    await kitchen.create("tasks", [{"title": "Defrost the chicken"}, {"title": "Clean the fridge"}])
    every = await kitchen.run(DbRead(table="tasks", filters=[f("completed", "is_not_null")]))
    assert len(every.rows) == 2
    assert every.notes == [
        "completed is never empty, so is_not_null kept every row: compare it with a value "
        "(= true or = false)"
    ]
    none = await kitchen.run(DbRead(table="tasks", filters=[f("title", "is_null")]))
    assert none.notes[0] == (
        "title is never empty, so is_null matched no row: compare it with a value"
    )
    dated = await kitchen.run(DbRead(table="tasks", filters=[f("due_date", "is_null")]))
    assert dated.notes is None or not any("never empty" in n for n in dated.notes)


async def test_a_read_by_a_column_no_row_sets_says_the_column_is_empty_in_every_row(
    kitchen: Kitchen,
):
    """The 1.5B local model read the tasks by ``category = cleanup`` for "when do i need to
    clean the oven by", no task having a category, and told the user no task matched."""
    await kitchen.create("tasks", [{"title": "Clean the oven"}, {"title": "Call the plumber"}])
    by_category = await kitchen.run(DbRead(table="tasks", filters=[f("category", "=", "cleanup")]))
    assert by_category.rows == []
    assert by_category.notes == [
        "no row matches the filters; tasks holds 2 row(s) in all",
        "'category' is empty in every row: a filter on it matches nothing",
    ]
    await kitchen.create("tasks", [{"title": "Mop the floor", "category": "cleanup"}])
    set_once = await kitchen.run(DbRead(table="tasks", filters=[f("category", "=", "prep")]))
    assert set_once.notes == ["no row matches the filters; tasks holds 3 row(s) in all"]


async def test_an_update_that_changes_no_value_says_so_and_says_it_again_on_a_retry(kitchen):
    """Told "Updated 1 item" when the milk it set to 1 l was already 1 l, the 1.5B local
    model's next update, to the half it meant, was held as the same change made twice."""
    await kitchen.create("inventory", [{"name": "milk", "quantity": 1, "unit": "l"}])
    same = DbUpdate(table="inventory", filters=[f("name", "=", "milk")], data={"quantity": 1})
    retried = "same-update"
    first = await kitchen.run(same, idempotency_key=retried)
    assert first.count == 1 and first.notes == [HELD_ALREADY]
    again = await kitchen.run(same, idempotency_key=retried)  # the activity's retry
    assert again.replayed and again.notes == [HELD_ALREADY]
    half = DbUpdate(table="inventory", filters=[f("name", "=", "milk")], data={"quantity": 0.5})
    changed = await kitchen.run(half)
    assert changed.count == 1 and changed.notes == []
    unit_too = DbUpdate(
        table="inventory", filters=[f("name", "=", "milk")], data={"quantity": 0.5, "unit": "L"}
    )
    assert (await kitchen.run(unit_too)).notes == []  # one value changed: a change


async def test_arrays_and_json_set_to_what_they_hold_change_nothing(kitchen):
    """Compared as values, as PostgreSQL stores them (an array, a JSON document)."""
    await kitchen.create("recipes", [{"name": "Dal", "tags": ["quick", "vegan"]}])
    dal = [f("name", "=", "Dal")]
    same = await kitchen.run(
        DbUpdate(table="recipes", filters=dal, data={"tags": ["quick", "vegan"]})
    )
    assert same.notes == [HELD_ALREADY]
    other = await kitchen.run(DbUpdate(table="recipes", filters=dal, data={"tags": ["vegan"]}))
    assert other.notes == []
    guidance = [{"subdomain": "recipes", "guidance": "short ones"}]
    await kitchen.run(DbUpdate(table="preferences", data={"subdomain_guidance": guidance}))
    adults = [f("household_adults", "is_null")]  # named by a filter: an update like any other
    again = DbUpdate(table="preferences", filters=adults, data={"subdomain_guidance": guidance})
    assert (await kitchen.run(again)).notes == [HELD_ALREADY]
