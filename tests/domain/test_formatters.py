"""Specification of Reply's deterministic formatters: quick results, writes, pauses, breakers."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from domain.formatters import (
    MAX_LIST_ITEMS,
    STEP_BREAKERS,
    breaker_sentence,
    days_from,
    empty_response,
    format_breaker,
    format_clarification,
    format_done,
    format_empty_execution,
    format_failure,
    format_forgotten,
    format_not_understood,
    format_outcome,
    format_proposal,
    format_question,
    format_quick_result,
    format_refused,
    format_rejection,
    format_stopped,
    format_write_confirmation,
    model_problem,
)
from domain.nodes import ThinkStep

REF = re.compile(r"\b(?:gen_)?(?:recipe|ri|inv|shop|meal|task|pref|ing|log)_\d+\b")

INVENTORY = [
    {"id": "inv_1", "name": "rice", "quantity": 1.5, "unit": "kg", "location": "pantry"},
    {
        "id": "inv_2",
        "ingredient_id": "ing_4",
        "_ingredient_id_label": "milk",
        "name": "milk",
        "quantity": 2.0,
        "unit": "l",
        "location": "fridge",
        "expiry_date": "2026-11-25",
    },
    {"id": "inv_3", "name": "salt", "quantity": 1, "unit": None},
    {"id": "inv_4", "name": "basil", "quantity": 1, "unit": "bunch", "location": "windowsill"},
    {"id": "inv_5", "name": "peas", "quantity": None, "unit": None, "location": "freezer"},
    {"id": "inv_6", "name": "chives", "location": "balcony"},
    {"id": "inv_7", "name": "foil", "location": "other"},
]
SHOPPING = [
    {"id": "shop_1", "name": "eggs", "quantity": 12, "unit": None, "is_purchased": True},
    {"id": "shop_2", "name": "milk", "quantity": 1.0, "unit": "l", "is_purchased": False},
    {"id": "shop_3", "name": "bread", "is_purchased": False},
]
BUTTER_CHICKEN = {
    "id": "recipe_1",
    "name": "Butter Chicken",
    "cuisine": "Indian",
    "prep_time_minutes": 20,
    "cook_time_minutes": 30,
    "servings": 4,
    "description": "A rich tomato curry.",
    "instructions": ["1. Marinate the chicken.", "Simmer in the sauce."],
    "parent_recipe_id": None,
    "recipe_ingredients": [
        {
            "id": "ri_1",
            "recipe_id": "recipe_1",
            "_recipe_id_label": "Butter Chicken",
            "ingredient_id": "ing_2",
            "_ingredient_id_label": "chicken thigh",
            "name": "chicken thighs",
            "quantity": 500,
            "unit": "g",
        },
        {
            "id": "ri_2",
            "recipe_id": "recipe_1",
            "_recipe_id_label": "Butter Chicken",
            "name": "cream",
            "quantity": 200.0,
            "unit": "ml",
            "is_optional": True,
        },
    ],
}
MEALS = [
    {
        "id": "meal_3",
        "date": "2026-11-23",
        "meal_type": "dinner",
        "recipe_id": "recipe_1",
        "_recipe_id_label": "Butter Chicken",
    },
    {"id": "meal_2", "date": "2026-11-23", "meal_type": "breakfast", "notes": "overnight oats"},
    {"id": "meal_1", "date": "2026-11-22", "meal_type": "lunch", "recipe_id": None},
    {"id": "meal_4", "date": "2026-11-23", "meal_type": "snack"},
    {"id": "meal_5", "date": "2026-11-23", "meal_type": "lunch", "recipe_id": "gen_recipe_1"},
]
TASKS = [
    {"id": "task_1", "title": "Clean the oven", "completed": True, "due_date": "2026-11-01"},
    {"id": "task_2", "title": "Defrost chicken", "completed": False, "due_date": "2026-11-24"},
    {"id": "task_3", "title": "Buy rice", "completed": False, "due_date": None},
    {"id": "task_4", "title": "Sharpen knives", "completed": False, "due_date": "2026-11-20"},
]
PREFERENCES = {
    "id": "pref_1",
    "allergies": ["peanuts", "shellfish"],
    "favorite_cuisines": [],
    "dietary_restrictions": ["vegetarian"],
    "cooking_skill_level": None,
    "time_budget_minutes": 30,
    "household_adults": 2,
    "household_kids": 0,
    "subdomain_guidance": {},
    "created_at": "2026-01-01T00:00:00+00:00",
}
COOKING_LOG = [
    {
        "id": "log_1",
        "recipe_id": "recipe_1",
        "_recipe_id_label": "Butter Chicken",
        "cooked_at": "2026-11-20T18:30:00+00:00",
        "rating": 4,
        "servings": 2,
    },
    {"id": "log_2", "recipe_id": "recipe_2", "cooked_at": "2026-11-21T19:00:00+00:00"},
]
INGREDIENTS = [
    {"id": "ing_1", "name": "leek", "category": "vegetable"},
    {"id": "ing_2", "name": "saffron"},
]
RECIPE_INGREDIENTS = [
    {"id": "ri_1", "recipe_id": "recipe_1", "_recipe_id_label": "Butter Chicken", "name": "ghee"},
    {"id": "ri_2", "recipe_id": "recipe_2", "_recipe_id_label": "Dal", "name": "lentils"},
    {"id": "ri_3", "recipe_id": "recipe_1", "_recipe_id_label": "Butter Chicken", "name": "cream"},
]

ALL_QUICK = [
    ("inventory", "inventory", INVENTORY),
    ("shopping", "shopping_list", SHOPPING),
    ("recipes", "recipes", [BUTTER_CHICKEN]),
    ("recipes", "recipes", [BUTTER_CHICKEN, {"id": "gen_recipe_1", "name": "Dal"}]),
    ("recipes", "recipe_ingredients", RECIPE_INGREDIENTS),
    ("meal_plans", "meal_plans", MEALS),
    ("tasks", "tasks", TASKS),
    ("preferences", "preferences", [PREFERENCES]),
    ("inventory", "ingredients", INGREDIENTS),
    ("recipes", "cooking_log", COOKING_LOG),
]


def quick(subdomain: str, table: str, rows: list[dict]) -> str:
    text = format_quick_result(subdomain, table, rows)
    assert text is not None
    return text


def lines(text: str) -> list[str]:
    return text.splitlines()


# --- Empty results --------------------------------------------------------------------------


class TestEmptyResponses:
    @pytest.mark.parametrize(
        ("subdomain", "expected"),
        [
            ("inventory", "Your inventory is empty."),
            ("shopping", "Your shopping list is empty."),
            ("recipes", "You don't have any saved recipes yet."),
            ("meal_plans", "You have no meals planned."),
            ("tasks", "You have no tasks."),
            ("preferences", "You haven't set any preferences yet."),
        ],
    )
    def test_empty_response_names_the_subdomain(self, subdomain: str, expected: str) -> None:
        assert empty_response(subdomain) == expected

    def test_unknown_subdomain_gets_a_generic_empty_response(self) -> None:
        assert empty_response("garden") == "I didn't find anything."

    def test_filtered_read_says_nothing_matched_instead_of_empty(self) -> None:
        assert empty_response("shopping", filtered=True) == (
            "I couldn't find that on your shopping list."
        )

    def test_quick_result_without_rows_is_the_subdomain_empty_response(self) -> None:
        assert format_quick_result("shopping", "shopping_list", []) == (
            "Your shopping list is empty."
        )

    def test_quick_result_without_rows_passes_filtered_on(self) -> None:
        assert format_quick_result("inventory", "inventory", [], filtered=True) == (
            "I couldn't find anything matching in your inventory."
        )

    def test_empty_cooking_log_is_not_reported_as_no_recipes(self) -> None:
        assert format_quick_result("recipes", "cooking_log", []) == (
            "You haven't logged any cooked meals yet."
        )

    def test_empty_rows_of_an_unknown_table_still_get_an_empty_response(self) -> None:
        assert format_quick_result("tasks", "mystery", []) == "You have no tasks."


# --- Quick results per table ----------------------------------------------------------------


class TestInventory:
    def test_header_counts_the_items(self) -> None:
        assert lines(quick("inventory", "inventory", INVENTORY))[0] == (
            "7 items in your inventory:"
        )

    def test_groups_by_location_in_kitchen_order_then_unknown_then_no_location(self) -> None:
        headings = [
            line for line in lines(quick("inventory", "inventory", INVENTORY)) if "**" in line
        ]
        assert headings == [
            "**Fridge**",
            "**Freezer**",
            "**Pantry**",
            "**Other**",
            "**Balcony**",
            "**Windowsill**",
            "**No location**",
        ]

    def test_item_line_shows_quantity_unit_and_expiry(self) -> None:
        assert "- milk — 2 l (expires Wed 2026-11-25)" in quick("inventory", "inventory", INVENTORY)

    def test_an_items_expiry_says_how_many_days_away_it_is(self) -> None:
        """Asked "what in the fridge goes off first", a model is told the days, not left
        to count them (``days_from``)."""
        shown = format_quick_result(
            "inventory", "inventory", INVENTORY, today=dt.date(2026, 11, 23)
        )
        assert "- milk — 2 l (expires Wed 2026-11-25, in 2 days)" in shown
        flat = [{"name": "milk", "expiry_date": "2026-11-22"}]  # no location: listed flat
        past = format_quick_result(
            "inventory", "inventory", flat, filtered=True, today=dt.date(2026, 11, 23)
        )
        assert "- milk (expires Sun 2026-11-22, yesterday)" in past

    def test_item_without_quantity_or_unit_is_just_its_name(self) -> None:
        assert "\n- peas\n" in quick("inventory", "inventory", INVENTORY)

    def test_fractional_quantity_keeps_its_decimals(self) -> None:
        assert "- rice — 1.5 kg" in quick("inventory", "inventory", INVENTORY)

    def test_rows_without_any_location_are_listed_flat(self) -> None:
        text = quick("inventory", "inventory", [{"id": "inv_1", "name": "salt"}])
        assert text == "1 item in your inventory:\n- salt"

    def test_group_order_does_not_depend_on_row_order(self) -> None:
        forward = quick("inventory", "inventory", INVENTORY)
        backward = quick("inventory", "inventory", list(reversed(INVENTORY)))
        headings = [line for line in lines(forward) if "**" in line]
        assert headings == [line for line in lines(backward) if "**" in line]

    def test_location_grouping_ignores_case(self) -> None:
        rows = [
            {"name": "milk", "location": "Fridge"},
            {"name": "butter", "location": "fridge"},
        ]
        text = quick("inventory", "inventory", rows)
        assert text.count("**Fridge**") == 1

    def test_long_lists_are_capped_with_a_count_of_the_rest(self) -> None:
        rows = [{"name": f"item {n}", "location": "pantry"} for n in range(MAX_LIST_ITEMS + 5)]
        text = quick("inventory", "inventory", rows)
        assert text.count("\n- item ") == MAX_LIST_ITEMS
        assert text.endswith("- …and 5 more")


class TestShoppingList:
    def test_unpurchased_items_come_before_purchased_ones(self) -> None:
        assert lines(quick("shopping", "shopping_list", SHOPPING)) == [
            "3 items on your shopping list, 2 still to buy:",
            "- [ ] milk (1 l)",
            "- [ ] bread",
            "- [x] eggs (12) (bought)",
        ]

    def test_items_without_purchase_status_get_no_checkbox(self) -> None:
        text = quick("shopping", "shopping_list", [{"id": "shop_1", "name": "milk"}])
        assert text == "1 item on your shopping list:\n- milk"

    def test_a_read_with_filters_counts_matching_items_not_the_whole_list(self) -> None:
        """Told "1 item on your shopping list" of a read by name, the 1.5B local model said
        the list held one item (it held three)."""
        oil = [{"id": "shop_1", "name": "olive oil", "is_purchased": False}]
        text = format_quick_result("shopping", "shopping_list", oil, filtered=True)
        assert text == "1 matching item on your shopping list, 1 still to buy:\n- [ ] olive oil"
        stock = format_quick_result("inventory", "inventory", INVENTORY[:2], filtered=True)
        assert stock is not None and stock.startswith("2 matching items in your inventory:")
        assert quick("inventory", "inventory", INVENTORY[:2]).startswith("2 items in your")


class TestRecipes:
    def test_summary_line_shows_cuisine_total_time_and_servings(self) -> None:
        text = quick("recipes", "recipes", [BUTTER_CHICKEN, {"id": "recipe_2", "name": "Dal"}])
        assert lines(text) == [
            "2 recipes:",
            "- **Butter Chicken** — Indian, 50 min, serves 4",
            "- **Dal**",
        ]

    def test_time_uses_whichever_of_prep_and_cook_is_present(self) -> None:
        rows = [{"name": "Toast", "cook_time_minutes": 5}, {"name": "Salad"}]
        assert "- **Toast** — 5 min" in quick("recipes", "recipes", rows)

    def test_single_recipe_with_details_is_shown_in_full(self) -> None:
        assert quick("recipes", "recipes", [BUTTER_CHICKEN]) == "\n".join(
            [
                "**Butter Chicken**",
                "Indian · 50 min · serves 4",
                "",
                "A rich tomato curry.",
                "",
                "**Ingredients**",
                "- chicken thighs — 500 g",
                "- cream — 200 ml (optional)",
                "",
                "**Instructions**",
                "1. Marinate the chicken.",
                "2. Simmer in the sauce.",
            ]
        )

    def test_single_recipe_without_details_is_a_summary_line(self) -> None:
        text = quick("recipes", "recipes", [{"id": "recipe_1", "name": "Dal", "instructions": []}])
        assert text == "1 recipe:\n- **Dal**"

    def test_recipe_without_a_name_is_untitled_not_its_ref(self) -> None:
        text = quick("recipes", "recipes", [{"id": "recipe_7", "cuisine": "Thai"}])
        assert text == "1 recipe:\n- **Untitled recipe** — Thai"


class TestRecipeIngredients:
    def test_ingredients_of_one_recipe_are_headed_by_its_name(self) -> None:
        rows = [r for r in RECIPE_INGREDIENTS if r["recipe_id"] == "recipe_1"]
        assert quick("recipes", "recipe_ingredients", rows) == (
            "2 ingredients in Butter Chicken:\n- ghee\n- cream"
        )

    def test_ingredients_of_several_recipes_are_grouped_by_recipe(self) -> None:
        assert lines(quick("recipes", "recipe_ingredients", RECIPE_INGREDIENTS)) == [
            "3 recipe ingredients:",
            "",
            "**Butter Chicken**",
            "- ghee",
            "- cream",
            "",
            "**Dal**",
            "- lentils",
        ]


class TestMealPlans:
    def test_sorted_by_date_then_breakfast_lunch_dinner_snack(self) -> None:
        assert lines(quick("meal_plans", "meal_plans", MEALS)) == [
            "5 planned meals:",
            "- Sun 2026-11-22 · Lunch: nothing planned",
            "- Mon 2026-11-23 · Breakfast: overnight oats",
            "- Mon 2026-11-23 · Lunch: a recipe",
            "- Mon 2026-11-23 · Dinner: Butter Chicken",
            "- Mon 2026-11-23 · Snack: nothing planned",
        ]

    def test_order_does_not_depend_on_row_order(self) -> None:
        assert quick("meal_plans", "meal_plans", MEALS) == quick(
            "meal_plans", "meal_plans", list(reversed(MEALS))
        )

    def test_unknown_meal_type_sorts_after_the_known_ones(self) -> None:
        rows = [
            {"date": "2026-11-23", "meal_type": "brunch", "notes": "pancakes"},
            {"date": "2026-11-23", "meal_type": "other", "notes": "picnic"},
        ]
        assert lines(quick("meal_plans", "meal_plans", rows))[1:] == [
            "- Mon 2026-11-23 · Other: picnic",
            "- Mon 2026-11-23 · Brunch: pancakes",
        ]

    def test_recipe_label_and_notes_are_both_shown(self) -> None:
        rows = [{**MEALS[0], "notes": "double batch"}]
        assert "Dinner: Butter Chicken — double batch" in quick("meal_plans", "meal_plans", rows)


class TestTasks:
    def test_open_tasks_first_by_due_date_then_done_ones(self) -> None:
        assert lines(quick("tasks", "tasks", TASKS)) == [
            "4 tasks, 3 open:",
            "- [ ] Sharpen knives (due Fri 2026-11-20)",
            "- [ ] Defrost chicken (due Tue 2026-11-24)",
            "- [ ] Buy rice",
            "- [x] Clean the oven (done)",
        ]

    def test_order_does_not_depend_on_row_order(self) -> None:
        assert quick("tasks", "tasks", TASKS) == quick("tasks", "tasks", list(reversed(TASKS)))

    def test_an_open_tasks_due_date_says_how_many_days_away_it_is(self) -> None:
        shown = format_quick_result("tasks", "tasks", TASKS, today=dt.date(2026, 11, 23))
        assert lines(shown)[1:3] == [
            "- [ ] Sharpen knives (due Fri 2026-11-20, 3 days ago)",
            "- [ ] Defrost chicken (due Tue 2026-11-24, tomorrow)",
        ]
        today = dt.date(2026, 11, 20)
        assert [days_from(day, today) for day in ("2026-11-20", "2026-11-27", "2026-11-19")] == [
            "today",
            "in 7 days",
            "yesterday",
        ]
        assert days_from("someday", today) == days_from("2026-11-20", None) == ""


class TestPreferences:
    def test_only_non_empty_fields_are_listed_with_labels(self) -> None:
        assert lines(quick("preferences", "preferences", [PREFERENCES])) == [
            "Your preferences:",
            "- Dietary restrictions: vegetarian",
            "- Allergies: peanuts, shellfish",
            "- Time budget: 30 min",
            "- Household: 2 adults",
        ]

    def test_subdomain_guidance_is_listed_per_area(self) -> None:
        row = {"subdomain_guidance": {"shopping": "Prefer organic", "meal_plans": "Light lunches"}}
        assert lines(quick("preferences", "preferences", [row]))[1:] == [
            "- Notes for meal plans: Light lunches",
            "- Notes for shopping: Prefer organic",
        ]

    def test_preferences_with_nothing_set_say_so(self) -> None:
        row = {"id": "pref_1", "allergies": [], "cooking_skill_level": None}
        assert quick("preferences", "preferences", [row]) == "You haven't set any preferences yet."


class TestCatalogAndCookingLog:
    def test_catalog_ingredients_show_their_category(self) -> None:
        assert lines(quick("inventory", "ingredients", INGREDIENTS)) == [
            "2 ingredients in the catalog:",
            "- leek (vegetable)",
            "- saffron",
        ]

    def test_cooking_log_shows_recipe_date_and_rating(self) -> None:
        assert lines(quick("recipes", "cooking_log", COOKING_LOG)) == [
            "2 cooking log entries:",
            "- Butter Chicken on 2026-11-20 (rating 4/5)",
            "- A recipe on 2026-11-21",
        ]


class TestQuickResultContract:
    def test_unknown_table_has_no_deterministic_formatter(self) -> None:
        assert format_quick_result("inventory", "mystery", [{"name": "x"}]) is None

    @pytest.mark.parametrize(("subdomain", "table", "rows"), ALL_QUICK)
    def test_no_ref_appears_in_formatted_text(self, subdomain: str, table: str, rows) -> None:
        assert REF.findall(quick(subdomain, table, rows)) == []

    @pytest.mark.parametrize(("subdomain", "table", "rows"), ALL_QUICK)
    def test_text_is_never_empty_and_never_says_none(self, subdomain: str, table: str, rows):
        text = quick(subdomain, table, rows)
        assert text.strip()
        assert "None" not in text
        assert "  " not in text

    @pytest.mark.parametrize(("subdomain", "table", "rows"), ALL_QUICK)
    def test_same_input_gives_same_output(self, subdomain: str, table: str, rows) -> None:
        assert quick(subdomain, table, rows) == quick(subdomain, table, rows)

    @pytest.mark.parametrize(
        "table", ["inventory", "shopping_list", "recipes", "meal_plans", "tasks", "cooking_log"]
    )
    def test_rows_with_only_an_id_still_format_without_the_ref(self, table: str) -> None:
        text = quick("inventory", table, [{"id": "inv_3"}, {"id": "recipe_1"}])
        assert REF.findall(text) == []
        assert "None" not in text

    def test_non_numeric_quantity_is_printed_as_given(self) -> None:
        text = quick("shopping", "shopping_list", [{"name": "salt", "quantity": "a pinch"}])
        assert "- salt (a pinch)" in text


# --- Write confirmations --------------------------------------------------------------------


class TestWriteConfirmation:
    def test_create_lists_what_was_added(self) -> None:
        rows = [{"id": "shop_1", "name": "milk"}, {"id": "shop_2", "name": "eggs"}]
        assert format_write_confirmation("db_create", "shopping_list", rows) == (
            "Added 2 items to your shopping list: milk, eggs."
        )

    def test_update_lists_what_was_updated(self) -> None:
        rows = [{"id": "inv_3", "name": "milk", "quantity": 1}]
        assert format_write_confirmation("db_update", "inventory", rows) == (
            "Updated 1 item in your inventory: milk (1)."
        )

    def test_stock_and_list_rows_are_named_with_their_amount(self) -> None:
        """Told "Added 1 item to your shopping list: eggs." for "need 3 more eggs …", the
        1.5B local model said "You have already added 1 egg"."""
        rows = [{"id": "shop_4", "name": "eggs", "quantity": 3, "unit": "piece"}]
        assert format_write_confirmation("db_create", "shopping_list", rows) == (
            "Added 1 item to your shopping list: eggs (3 piece)."
        )
        task = [{"id": "task_1", "title": "Call mum", "quantity": 3}]  # no amount of a task
        assert format_write_confirmation("db_create", "tasks", task) == (
            "Added 1 task: Call mum."
        )

    def test_delete_lists_what_was_removed(self) -> None:
        rows = [{"id": "task_1", "title": "Buy rice"}]
        assert format_write_confirmation("db_delete", "tasks", rows) == "Removed 1 task: Buy rice."

    def test_tool_name_without_db_prefix_is_accepted(self) -> None:
        rows = [{"id": "shop_1", "name": "milk"}]
        assert format_write_confirmation("delete", "shopping_list", rows) == (
            "Removed 1 item from your shopping list: milk."
        )

    @pytest.mark.parametrize("tool", ["db_update", "db_delete"])
    def test_nothing_matched_says_nothing_was_changed(self, tool: str) -> None:
        assert format_write_confirmation(tool, "shopping_list", []) == (
            "No items on your shopping list matched, so nothing was changed."
        )

    def test_create_of_no_rows_says_nothing_was_added(self) -> None:
        assert format_write_confirmation("db_create", "inventory", []) == (
            "Nothing was added to your inventory."
        )

    def test_saved_recipe_is_named(self) -> None:
        rows = [{"id": "gen_recipe_1", "name": "Dal"}]
        assert format_write_confirmation("db_create", "recipes", rows) == "Saved 1 recipe: Dal."

    def test_meal_plan_write_names_the_day_meal_and_recipe(self) -> None:
        rows = [MEALS[0]]
        assert format_write_confirmation("db_create", "meal_plans", rows) == (
            "Added 1 meal to your meal plan: Dinner on Mon 2026-11-23 (Butter Chicken)."
        )

    def test_a_meal_with_no_recipe_is_named_by_its_notes(self) -> None:
        row = {"id": "meal_1", "date": "2026-12-04", "meal_type": "dinner", "notes": "pasta"}
        assert format_write_confirmation("db_create", "meal_plans", [row]) == (
            "Added 1 meal to your meal plan: Dinner on Fri 2026-12-04 (pasta)."
        )

    def test_recipe_ingredients_added_to_one_recipe_name_it(self) -> None:
        rows = [r for r in RECIPE_INGREDIENTS if r["recipe_id"] == "recipe_1"]
        assert format_write_confirmation("db_create", "recipe_ingredients", rows) == (
            "Added 2 recipe ingredients to Butter Chicken: ghee, cream."
        )

    def test_cooking_log_entry_is_logged_with_recipe_and_date(self) -> None:
        assert format_write_confirmation("db_create", "cooking_log", COOKING_LOG[:1]) == (
            "Logged 1 cooking log entry: Butter Chicken on 2026-11-20."
        )

    def test_preferences_update_is_one_sentence(self) -> None:
        assert format_write_confirmation("db_update", "preferences", [PREFERENCES]) == (
            "Updated your preferences."
        )

    def test_rows_without_names_give_a_count_without_refs(self) -> None:
        rows = [{"id": "inv_3"}, {"id": "inv_4"}]
        assert format_write_confirmation("db_delete", "inventory", rows) == (
            "Removed 2 items from your inventory."
        )

    def test_many_names_are_capped_with_a_count_of_the_rest(self) -> None:
        rows = [{"name": f"item{n}"} for n in range(12)]
        text = format_write_confirmation("db_create", "shopping_list", rows)
        assert text.endswith("item8, item9 and 2 more.")

    def test_unknown_table_gets_a_generic_noun(self) -> None:
        assert format_write_confirmation("db_create", "mystery", [{"name": "x"}]) == (
            "Added 1 entry: x."
        )


# --- Pauses, pass-throughs and honest failures ----------------------------------------------


class TestClarification:
    def test_single_question_is_returned_as_is(self) -> None:
        assert format_clarification(["  Which recipe did you mean? "]) == (
            "Which recipe did you mean?"
        )

    def test_several_questions_are_numbered_after_a_lead_in(self) -> None:
        assert format_clarification(["Which recipe?", "", "For how many people?"]) == (
            "A few quick questions first:\n\n1. Which recipe?\n2. For how many people?"
        )

    def test_no_questions_still_asks_something(self) -> None:
        assert format_clarification([]).endswith("?")


class TestProposal:
    STEPS = [
        ThinkStep(description="Read your recipes", step_type="read", subdomain="recipes"),
        {"description": "Save three dinners to the meal plan", "step_type": "write"},
    ]

    def test_proposal_shows_message_steps_and_confirmation(self) -> None:
        assert format_proposal("I'll plan three dinners.", self.STEPS) == "\n\n".join(
            [
                "I'll plan three dinners.",
                "Here's what I'd do:\n1. Read your recipes\n2. Save three dinners to the meal plan",
                "Shall I go ahead? Reply **yes** to confirm or **no** to cancel.",
            ]
        )

    def test_message_ending_in_a_question_is_not_asked_twice(self) -> None:
        text = format_proposal("Want me to plan three dinners?", [])
        assert (
            text
            == "Want me to plan three dinners?\n\nReply **yes** to go ahead or **no** to cancel."
        )

    def test_a_question_with_steps_is_not_asked_twice_either(self) -> None:
        text = format_proposal("Shall I plan three dinners?", self.STEPS)
        assert text.count("?") == 1
        assert text.endswith("Reply **yes** to go ahead or **no** to cancel.")


class TestPassThroughs:
    def test_question_is_trimmed(self) -> None:
        assert format_question("  Which fridge?\n") == "Which fridge?"

    def test_failure_message_is_trimmed(self) -> None:
        assert format_failure(" I couldn't reach the database. ") == (
            "I couldn't reach the database."
        )

    def test_empty_failure_message_gets_a_generic_apology(self) -> None:
        assert format_failure("") == "Sorry, I couldn't complete that."

    def test_empty_execution_names_the_goal_and_claims_no_success(self) -> None:
        text = format_empty_execution("Add milk to the shopping list.")
        assert text.startswith('I couldn\'t finish "Add milk to the shopping list":')
        assert "can't confirm that anything was done" in text

    def test_rejection_says_nothing_was_changed(self) -> None:
        assert "Nothing was changed." in format_rejection()

    def test_rejection_after_a_write_names_it(self) -> None:
        text = format_rejection([ADDED_MILK])
        assert f"Changes made: {ADDED_MILK}" in text and "Nothing" not in text


ADDED_MILK = "Added 1 item to your shopping list: milk."


class TestDone:
    """The one sentence for what a turn wrote, from its record of the writes' results."""

    def test_no_writes_is_nothing_changed(self) -> None:
        assert format_done([]) == "Nothing was changed."

    def test_writes_are_named_in_order(self) -> None:
        removed = "Removed 1 item from your inventory: eggs."
        assert format_done([ADDED_MILK, removed]) == f"Changes made: {ADDED_MILK} {removed}"

    def test_the_same_change_made_twice_is_said_once(self) -> None:
        """Two steps of "got the paper towels and the bread" each ticked the bread off."""
        bread = "Updated 1 item on your shopping list: bread."
        towels = "Updated 1 item on your shopping list: paper towels."
        assert format_done([bread, towels, bread]) == f"Changes made: {bread} {towels}"

    def test_a_model_that_failed_before_any_write_says_nothing_changed(self) -> None:
        text = format_not_understood("think", "http_503")
        assert text.startswith("I couldn't plan this: the model service did not answer.")
        assert "Nothing was changed." in text

    def test_a_stopped_turn_names_what_it_wrote(self) -> None:
        text = format_stopped("the model service did not answer", [ADDED_MILK])
        assert text == (
            f"I couldn't finish this: the model service did not answer. Changes made: {ADDED_MILK}"
        )

    def test_the_outcome_without_a_model_never_claims_a_step(self) -> None:
        assert format_outcome([]) == "I couldn't finish any step of this."
        assert format_outcome(["Added milk"]) == "Here is what I got done: Added milk."


class TestBreaker:
    @pytest.mark.parametrize(
        ("kind", "phrase"),
        [
            ("max_tool_calls", "more database operations"),
            ("max_steps", "plan grew longer"),
            ("llm_call_cap", "limit of model calls"),
            ("schema_requests", "without making progress"),
            ("pause_cap", "waited on you"),
        ],
    )
    def test_each_kind_explains_why_it_stopped(self, kind: str, phrase: str) -> None:
        text = format_breaker(kind)
        assert text.startswith("I stopped")
        assert phrase in text

    def test_breaker_claims_neither_changes_nor_none(self) -> None:
        """What was written is said after it, from the writes' results (``format_done``)."""
        text = format_breaker("max_steps").lower()
        assert "nothing" not in text and "taken effect" not in text

    def test_unknown_kind_gets_a_generic_explanation(self) -> None:
        assert format_breaker("cosmic_rays").startswith(
            "I stopped because this turn hit one of my safety limits."
        )

    @pytest.mark.parametrize("kind", sorted(STEP_BREAKERS))
    def test_a_step_breaker_names_the_step_it_stopped(self, kind: str) -> None:
        assert format_breaker(kind, "Tick off the bread.").startswith(
            'I stopped the step "Tick off the bread" because it '
        )
        assert format_breaker(kind).startswith("I stopped one step because it ")

    def test_a_breaker_of_the_turn_says_no_step(self) -> None:
        assert format_breaker("max_steps", "Read it") == format_breaker("max_steps")
        assert breaker_sentence("pause_cap") in format_breaker("pause_cap")
        assert format_breaker("pause_cap").endswith("or split the request into smaller parts.")


class TestModelProblems:
    @pytest.mark.parametrize(
        ("seconds", "words"),
        [
            (1, "1 second"),
            (45, "45 seconds"),
            (89.5, "90 seconds"),
            (90, "2 minutes"),
            (600, "10 minutes"),
            (1200.4, "21 minutes"),
            (5400, "2 hours"),
        ],
    )
    def test_a_rate_limit_says_how_long_rounded_up(self, seconds: float, words: str) -> None:
        assert model_problem("rate_limited", seconds) == f"the model is rate-limited for {words}"

    def test_a_rate_limit_without_a_wait_says_only_that(self) -> None:
        assert model_problem("rate_limited") == "the model is rate-limited"

    def test_a_prompt_too_long_for_the_models_window_says_so(self) -> None:
        assert model_problem("context_window") == (
            "the request no longer fits the model's context window"
        )

    def test_a_rate_limited_plan_asks_to_try_again_after_the_wait_not_in_other_words(
        self,
    ) -> None:
        assert format_not_understood("think", "rate_limited", wait_seconds=600) == (
            "I couldn't plan this: the model is rate-limited for 10 minutes. "
            "Nothing was changed. Please ask again after that."
        )
        assert format_not_understood("think", "rate_limited").endswith("Please ask again later.")


def test_forgetting_says_what_was_forgotten_and_that_nothing_was_stored():
    assert format_forgotten(["Lime Chicken"]) == (
        "Forgotten: Lime Chicken. It was never saved, so nothing in your kitchen changed."
    )
    assert format_forgotten(["Lime Chicken", "Miso Soup", "Dal"]).startswith(
        "Forgotten: Lime Chicken, Miso Soup and Dal. They were never saved"
    )
    assert format_forgotten([""]).startswith("Forgotten: it was never saved")


def test_a_call_refused_twice_is_told_as_what_was_refused_only():
    details = "The lookup was refused twice: filters[0].value: 'user_id' is not a ref: …"
    assert format_refused(details) == "The lookup was refused twice."
