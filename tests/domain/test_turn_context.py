"""Specification of what a turn knows of the kitchen before Understand runs
(``domain.turn_context``)."""

from __future__ import annotations

from domain.turn_context import NO_RECIPE, KitchenDashboard


def test_the_recipes_the_meal_plan_holds_are_named_once_in_order():
    dashboard = KitchenDashboard(
        meal_plan_next_7_days=[
            "2026-12-07 dinner: Red Lentil Dal",
            f"2026-12-08 lunch: {NO_RECIPE}",
            "2026-12-09 dinner: Weeknight Chili",
            "2026-12-10 dinner: Red Lentil Dal",
        ]
    )
    assert dashboard.planned_recipes == ["Red Lentil Dal", "Weeknight Chili"]
    assert KitchenDashboard().planned_recipes == []
