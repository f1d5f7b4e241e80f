"""What a turn knows about the user's kitchen before Understand runs (seed 000
pre-processing, seed 004 V7.2): the profile, a dashboard of counts, and fresh rows for
the entities the user changed in a UI or @-mentioned in the message.

Built once per turn by an activity and shown to Think, Act's analyze / generate / write
steps (profile and dashboard) and every Act step (fresh rows).
"""

from __future__ import annotations

from pydantic import BaseModel, Field, JsonValue

NO_RECIPE = "(no recipe)"
"""A planned slot's name when it has no recipe."""


class KitchenDashboard(BaseModel):
    """Counts, not rows: enough for Think to plan without a read step."""

    inventory_by_location: dict[str, int] = Field(default_factory=dict)
    inventory_expiring_soon: int = 0
    """Items whose expiry date is within the next 3 days (or already past); shown only to
    the Act steps it concerns (``domain.context.EXPIRY_SUBDOMAINS``)."""
    recipes_by_cuisine: dict[str, int] = Field(default_factory=dict)
    recipe_count: int = 0
    meal_plan_next_7_days: list[str] = Field(default_factory=list)
    """``2026-11-23 dinner: Tacos`` for each planned slot from today on."""

    @property
    def planned_recipes(self) -> list[str]:
        """The recipes the meal plan's slots from today on name, each once, in order."""
        names = (slot.split(": ", 1)[-1] for slot in self.meal_plan_next_7_days)
        return list(dict.fromkeys(n for n in names if n != NO_RECIPE))

    shopping_open: int = 0
    named: dict[str, list[str]] = Field(default_factory=dict)
    """Table -> the names of its rows the request names (``domain.kitchen.snapshot.NAMED_IN``,
    and the open tasks by their titles' words): "got the paper towels" is about the paper
    towels still to buy, which counts alone do not say; "the oven cleaning" is a task."""
    tasks_open: int = 0
    tasks_overdue: int = 0
    tasks_next: list[str] = Field(default_factory=list)
    """``put the bins out (due Sat 2026-11-28)`` for the open tasks due first (at most
    ``domain.kitchen.snapshot.TASKS_SHOWN``): people name a task by a word of it ("bins
    are out"), which a count alone does not connect to a task."""


class FreshEntity(BaseModel):
    """A row the user touched outside the conversation, read just now."""

    table: str
    id: str
    action: str
    """``created:user``, ``updated:user``, ``deleted:user`` or ``mentioned:user``."""
    data: dict[str, JsonValue] | None = None
    """The row as it is now; None for a deleted row."""
    ref: str = ""
    """Filled by the workflow once the registry gave it a ref."""


class TurnContext(BaseModel):
    profile: dict[str, JsonValue] | None = None
    """The user's preferences row, or None when they have not set any."""
    dashboard: KitchenDashboard = Field(default_factory=KitchenDashboard)
    entities: list[FreshEntity] = Field(default_factory=list)
    unresolved_mentions: list[str] = Field(default_factory=list)
    """Mentions that name no row of this user (or are malformed)."""
    delete_candidates: list[FreshEntity] = Field(default_factory=list)
    """A delete request that names an item but no place ("delete the eggs"): the rows of
    that name in more than one table (inventory and the open shopping list), so the turn
    can ask which one is meant."""
    timezone: str = "UTC"
    """The user's timezone (``preferences.timezone``): the local time models are shown."""


PROFILE_FIELDS: tuple[str, ...] = (
    "dietary_restrictions",
    "allergies",
    "favorite_cuisines",
    "disliked_ingredients",
    "nutrition_goals",
    "available_equipment",
    "cooking_skill_level",
    "cooking_frequency",
    "time_budget_minutes",
    "preferred_complexity",
    "household_adults",
    "household_kids",
    "household_babies",
    "planning_rhythm",
    "current_vibes",
    "subdomain_guidance",
)
"""Profile fields worth a prompt line, in the order shown."""
