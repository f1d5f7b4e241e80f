"""SQLAlchemy 2.0 typed models of every table.

The migrations in ``migrations/versions`` are the source of truth for the schema (they also
carry row-level security, roles and grants); these models describe the same tables for
queries and for the CRUD whitelist (``domain/kitchen/tables.py``).
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    DateTime,
    ForeignKey,
    Integer,
    Numeric,
    Text,
    func,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def _uuid_pk() -> Mapped[uuid.UUID]:
    return mapped_column(
        UUID(as_uuid=True), primary_key=True, server_default=func.gen_random_uuid()
    )


def _owner() -> Mapped[uuid.UUID]:
    return mapped_column(UUID(as_uuid=True), ForeignKey("users.id", ondelete="CASCADE"))


def _created() -> Mapped[dt.datetime]:
    return mapped_column(DateTime(timezone=True), server_default=func.now())


TextArray = ARRAY(Text)


class Base(DeclarativeBase):
    pass


# --- identity -----------------------------------------------------------------------------


class User(Base):
    __tablename__ = "users"
    id: Mapped[uuid.UUID] = _uuid_pk()
    name: Mapped[str] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = _created()


class ApiKey(Base):
    __tablename__ = "api_keys"
    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = _owner()
    token_hash: Mapped[str] = mapped_column(Text, unique=True)
    name: Mapped[str] = mapped_column(Text, default="default")
    created_at: Mapped[dt.datetime] = _created()


# --- kitchen ------------------------------------------------------------------------------


class Ingredient(Base):
    """Global catalog, shared by all users (no user_id, read-only to the application)."""

    __tablename__ = "ingredients"
    id: Mapped[uuid.UUID] = _uuid_pk()
    name: Mapped[str] = mapped_column(Text, unique=True)
    aliases: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    category: Mapped[str | None] = mapped_column(Text)
    default_unit: Mapped[str | None] = mapped_column(Text)
    parent_category: Mapped[str | None] = mapped_column(Text)
    family: Mapped[str | None] = mapped_column(Text)
    cuisines: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    tier: Mapped[int | None] = mapped_column(Integer)


class Inventory(Base):
    __tablename__ = "inventory"
    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = _owner()
    ingredient_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("ingredients.id"))
    name: Mapped[str] = mapped_column(Text)
    quantity: Mapped[Decimal | None] = mapped_column(Numeric)
    unit: Mapped[str | None] = mapped_column(Text)
    location: Mapped[str | None] = mapped_column(Text)
    expiry_date: Mapped[dt.date | None] = mapped_column(Date)
    purchase_date: Mapped[dt.date | None] = mapped_column(Date)
    category: Mapped[str | None] = mapped_column(Text)
    notes: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = _created()


class Recipe(Base):
    __tablename__ = "recipes"
    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = _owner()
    name: Mapped[str] = mapped_column(Text)
    description: Mapped[str | None] = mapped_column(Text)
    cuisine: Mapped[str | None] = mapped_column(Text)
    difficulty: Mapped[str | None] = mapped_column(Text)
    prep_time_minutes: Mapped[int | None] = mapped_column(Integer)
    cook_time_minutes: Mapped[int | None] = mapped_column(Integer)
    servings: Mapped[int | None] = mapped_column(Integer)
    instructions: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    tags: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    occasions: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    health_tags: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    flavor_tags: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    equipment_tags: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    source_url: Mapped[str | None] = mapped_column(Text)
    parent_recipe_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    is_system: Mapped[bool] = mapped_column(Boolean, server_default="false")
    created_at: Mapped[dt.datetime] = _created()


class RecipeIngredient(Base):
    __tablename__ = "recipe_ingredients"
    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = _owner()
    recipe_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True))
    ingredient_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("ingredients.id"))
    name: Mapped[str] = mapped_column(Text)
    quantity: Mapped[Decimal | None] = mapped_column(Numeric)
    unit: Mapped[str | None] = mapped_column(Text)
    notes: Mapped[str | None] = mapped_column(Text)
    is_optional: Mapped[bool] = mapped_column(Boolean, server_default="false")
    category: Mapped[str | None] = mapped_column(Text)


class MealPlan(Base):
    __tablename__ = "meal_plans"
    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = _owner()
    date: Mapped[dt.date] = mapped_column(Date)
    meal_type: Mapped[str] = mapped_column(Text)
    recipe_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    notes: Mapped[str | None] = mapped_column(Text)
    servings: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = _created()


class ShoppingListItem(Base):
    __tablename__ = "shopping_list"
    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = _owner()
    ingredient_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("ingredients.id"))
    name: Mapped[str] = mapped_column(Text)
    quantity: Mapped[Decimal | None] = mapped_column(Numeric)
    unit: Mapped[str | None] = mapped_column(Text)
    category: Mapped[str | None] = mapped_column(Text)
    is_purchased: Mapped[bool] = mapped_column(Boolean, server_default="false")
    source: Mapped[str | None] = mapped_column(Text)
    notes: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = _created()


class Task(Base):
    __tablename__ = "tasks"
    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = _owner()
    title: Mapped[str] = mapped_column(Text)
    due_date: Mapped[dt.date | None] = mapped_column(Date)
    category: Mapped[str | None] = mapped_column(Text)
    completed: Mapped[bool] = mapped_column(Boolean, server_default="false")
    recipe_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    meal_plan_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    created_at: Mapped[dt.datetime] = _created()


class Preferences(Base):
    __tablename__ = "preferences"
    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("users.id", ondelete="CASCADE"), unique=True
    )
    dietary_restrictions: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    allergies: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    favorite_cuisines: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    disliked_ingredients: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    nutrition_goals: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    available_equipment: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    cooking_skill_level: Mapped[str | None] = mapped_column(Text)
    cooking_frequency: Mapped[str | None] = mapped_column(Text)
    time_budget_minutes: Mapped[int | None] = mapped_column(Integer)
    preferred_complexity: Mapped[str | None] = mapped_column(Text)
    household_adults: Mapped[int | None] = mapped_column(Integer)
    household_kids: Mapped[int | None] = mapped_column(Integer)
    household_babies: Mapped[int | None] = mapped_column(Integer)
    subdomain_guidance: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default="{}")
    planning_rhythm: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    current_vibes: Mapped[list[str]] = mapped_column(TextArray, server_default="{}")
    timezone: Mapped[str] = mapped_column(Text, server_default="UTC")
    """IANA zone name: the local date and time every model is shown (``domain.clock``)."""


class CookingLog(Base):
    __tablename__ = "cooking_log"
    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = _owner()
    recipe_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    cooked_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now()
    )
    servings: Mapped[int | None] = mapped_column(Integer)
    rating: Mapped[int | None] = mapped_column(Integer)
    notes: Mapped[str | None] = mapped_column(Text)


# --- conversations, turns, idempotency ----------------------------------------------------


class Conversation(Base):
    __tablename__ = "conversations"
    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = _owner()
    title: Mapped[str] = mapped_column(Text, server_default="")
    state: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default="{}")
    """Serialized SessionIdRegistry and conversation context (seed 001, layers 1-3)."""
    version: Mapped[int] = mapped_column(Integer, server_default="0")
    current_turn: Mapped[int] = mapped_column(Integer, server_default="0")
    created_at: Mapped[dt.datetime] = _created()
    updated_at: Mapped[dt.datetime] = _created()


class Turn(Base):
    __tablename__ = "turns"
    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = _owner()
    conversation_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True))
    turn_number: Mapped[int] = mapped_column(Integer)
    workflow_id: Mapped[str] = mapped_column(Text)
    run_id: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(Text, server_default="running")
    input_ids: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default="{}")
    """The client's ids of the inputs the turn took: its message's, then its answers'."""
    user_message: Mapped[str] = mapped_column(Text)
    response: Mapped[str | None] = mapped_column(Text)
    plan: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    timings: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default="{}")
    usage: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default="{}")
    created_at: Mapped[dt.datetime] = _created()
    updated_at: Mapped[dt.datetime] = _created()


class KitchenChange(Base):
    """A kitchen edit made through the API: the next turn sees it as a UI change."""

    __tablename__ = "kitchen_changes"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    user_id: Mapped[uuid.UUID] = _owner()
    table_name: Mapped[str] = mapped_column(Text)
    row_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True))
    action: Mapped[str] = mapped_column(Text)
    data: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    created_at: Mapped[dt.datetime] = _created()


class Operation(Base):
    """An idempotent write: its key and result, stored in the same transaction as the write."""

    __tablename__ = "operations"
    user_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[str] = mapped_column(Text, primary_key=True)
    result: Mapped[dict[str, Any]] = mapped_column(JSONB)
    created_at: Mapped[dt.datetime] = _created()


USER_TABLES: tuple[str, ...] = (
    "users",
    "api_keys",
    "inventory",
    "recipes",
    "recipe_ingredients",
    "meal_plans",
    "shopping_list",
    "tasks",
    "preferences",
    "cooking_log",
    "conversations",
    "turns",
    "operations",
    "kitchen_changes",
)
"""Every table with row-level security keyed on ``app.user_id``."""
