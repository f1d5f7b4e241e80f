"""Kitchen schema, identity, conversations, idempotency; row-level security; catalog seed.

Revision ID: 0001
Revises:
Create Date: 2026-11-22

Tenant isolation lives in the database: every user-owned table has row-level security
ENABLED and FORCED with a policy on ``app.user_id`` (set per transaction with
``set_config('app.user_id', ..., true)``), and the application connects as ``alfred_app``,
which owns nothing and has no BYPASSRLS. Foreign keys between user tables include
``user_id`` so a row can never point at another user's row (FK checks skip RLS).
"""

from __future__ import annotations

import csv
from pathlib import Path

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY, UUID

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

APP_ROLE = "alfred_app"  # frozen here on purpose: migrations do not import app code
CATALOG = Path(__file__).resolve().parents[1] / "data" / "ingredients.csv"

USER_TABLES = (
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
)

OWNER = "user_id uuid NOT NULL DEFAULT app_current_user() REFERENCES users(id) ON DELETE CASCADE"

SCHEMA = f"""
CREATE FUNCTION app_current_user() RETURNS uuid
    LANGUAGE sql STABLE
    AS $$ SELECT NULLIF(current_setting('app.user_id', true), '')::uuid $$;

CREATE TABLE users (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    {OWNER},
    token_hash text NOT NULL UNIQUE,
    name text NOT NULL DEFAULT 'default',
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ingredients (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name text NOT NULL UNIQUE,
    aliases text[] NOT NULL DEFAULT '{{}}',
    category text,
    default_unit text,
    parent_category text,
    family text,
    cuisines text[] NOT NULL DEFAULT '{{}}',
    tier integer
);
CREATE INDEX ingredients_lower_name ON ingredients (lower(name));
CREATE INDEX ingredients_aliases ON ingredients USING gin (aliases);
CREATE INDEX ingredients_family ON ingredients (family);

CREATE TABLE inventory (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    {OWNER},
    ingredient_id uuid REFERENCES ingredients(id),
    name text NOT NULL,
    quantity numeric,
    unit text,
    location text,
    expiry_date date,
    purchase_date date,
    category text,
    notes text,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inventory_user ON inventory (user_id);

CREATE TABLE recipes (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    {OWNER},
    name text NOT NULL,
    description text,
    cuisine text,
    difficulty text,
    prep_time_minutes integer CHECK (prep_time_minutes >= 0),
    cook_time_minutes integer CHECK (cook_time_minutes >= 0),
    servings integer CHECK (servings > 0),
    instructions text[] NOT NULL DEFAULT '{{}}',
    tags text[] NOT NULL DEFAULT '{{}}',
    occasions text[] NOT NULL DEFAULT '{{}}',
    health_tags text[] NOT NULL DEFAULT '{{}}',
    flavor_tags text[] NOT NULL DEFAULT '{{}}',
    equipment_tags text[] NOT NULL DEFAULT '{{}}',
    source_url text,
    parent_recipe_id uuid,
    is_system boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, user_id),
    FOREIGN KEY (parent_recipe_id, user_id) REFERENCES recipes (id, user_id)
        ON DELETE SET NULL (parent_recipe_id)
);
CREATE INDEX recipes_user ON recipes (user_id);

CREATE TABLE recipe_ingredients (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    {OWNER},
    recipe_id uuid NOT NULL,
    ingredient_id uuid REFERENCES ingredients(id),
    name text NOT NULL,
    quantity numeric,
    unit text,
    notes text,
    is_optional boolean NOT NULL DEFAULT false,
    category text,
    FOREIGN KEY (recipe_id, user_id) REFERENCES recipes (id, user_id) ON DELETE CASCADE
);
CREATE INDEX recipe_ingredients_recipe ON recipe_ingredients (recipe_id);

CREATE TABLE meal_plans (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    {OWNER},
    date date NOT NULL,
    meal_type text NOT NULL
        CHECK (meal_type IN ('breakfast', 'lunch', 'dinner', 'snack', 'other')),
    recipe_id uuid,
    notes text,
    servings integer CHECK (servings > 0),
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, user_id),
    FOREIGN KEY (recipe_id, user_id) REFERENCES recipes (id, user_id)
        ON DELETE SET NULL (recipe_id)
);
CREATE INDEX meal_plans_user_date ON meal_plans (user_id, date);

CREATE TABLE shopping_list (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    {OWNER},
    ingredient_id uuid REFERENCES ingredients(id),
    name text NOT NULL,
    quantity numeric,
    unit text,
    category text,
    is_purchased boolean NOT NULL DEFAULT false,
    source text,
    notes text,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX shopping_list_user ON shopping_list (user_id);

CREATE TABLE tasks (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    {OWNER},
    title text NOT NULL,
    due_date date,
    category text CHECK (category IN ('prep', 'shopping', 'cleanup', 'other')),
    completed boolean NOT NULL DEFAULT false,
    recipe_id uuid,
    meal_plan_id uuid,
    created_at timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (recipe_id, user_id) REFERENCES recipes (id, user_id)
        ON DELETE SET NULL (recipe_id),
    FOREIGN KEY (meal_plan_id, user_id) REFERENCES meal_plans (id, user_id)
        ON DELETE SET NULL (meal_plan_id)
);
CREATE INDEX tasks_user ON tasks (user_id);

CREATE TABLE preferences (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id uuid NOT NULL UNIQUE DEFAULT app_current_user()
        REFERENCES users(id) ON DELETE CASCADE,
    dietary_restrictions text[] NOT NULL DEFAULT '{{}}',
    allergies text[] NOT NULL DEFAULT '{{}}',
    favorite_cuisines text[] NOT NULL DEFAULT '{{}}',
    disliked_ingredients text[] NOT NULL DEFAULT '{{}}',
    nutrition_goals text[] NOT NULL DEFAULT '{{}}',
    available_equipment text[] NOT NULL DEFAULT '{{}}',
    cooking_skill_level text,
    cooking_frequency text,
    time_budget_minutes integer,
    preferred_complexity text,
    household_adults integer,
    household_kids integer,
    household_babies integer,
    subdomain_guidance jsonb NOT NULL DEFAULT '{{}}',
    planning_rhythm text[] NOT NULL DEFAULT '{{}}',
    current_vibes text[] NOT NULL DEFAULT '{{}}'
);

CREATE TABLE cooking_log (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    {OWNER},
    recipe_id uuid,
    cooked_at timestamptz NOT NULL DEFAULT now(),
    servings integer,
    rating integer CHECK (rating BETWEEN 1 AND 5),
    notes text,
    FOREIGN KEY (recipe_id, user_id) REFERENCES recipes (id, user_id)
        ON DELETE SET NULL (recipe_id)
);
CREATE INDEX cooking_log_user ON cooking_log (user_id);

CREATE TABLE conversations (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    {OWNER},
    title text NOT NULL DEFAULT '',
    state jsonb NOT NULL DEFAULT '{{}}',
    version integer NOT NULL DEFAULT 0,
    current_turn integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, user_id)
);
CREATE INDEX conversations_user ON conversations (user_id, updated_at DESC);

CREATE TABLE turns (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    {OWNER},
    conversation_id uuid NOT NULL,
    turn_number integer NOT NULL,
    workflow_id text NOT NULL,
    status text NOT NULL DEFAULT 'running',
    user_message text NOT NULL,
    response text,
    plan jsonb,
    timings jsonb NOT NULL DEFAULT '{{}}',
    usage jsonb NOT NULL DEFAULT '{{}}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (conversation_id, turn_number),
    FOREIGN KEY (conversation_id, user_id) REFERENCES conversations (id, user_id)
        ON DELETE CASCADE
);

CREATE TABLE operations (
    {OWNER},
    key text NOT NULL,
    result jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, key)
);
"""

ROLE = f"""
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
        CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
    END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
    NULL;  -- another database on this server created it at the same moment
END
$$;
"""

TRIGRAM = """
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
        CREATE INDEX ingredients_name_trgm ON ingredients USING gin (name gin_trgm_ops);
    END IF;
END
$$;
"""


def _policy(table: str) -> str:
    column = "id" if table == "users" else "user_id"
    statements = [
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
        f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY",
        f"CREATE POLICY tenant ON {table} USING ({column} = app_current_user()) "
        f"WITH CHECK ({column} = app_current_user())",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON {table} TO {APP_ROLE}",
    ]
    return ";\n".join(statements) + ";\n"


# Authentication happens before a user is known: whoever presents a token may see the
# one api_keys row whose hash they set in app.token_hash, and nothing else.
TOKEN_LOOKUP = """
CREATE POLICY token_lookup ON api_keys FOR SELECT
    USING (token_hash = current_setting('app.token_hash', true));
"""


def _catalog_rows() -> list[dict]:
    def split(cell: str) -> list[str]:
        return [part.strip() for part in cell.split("|") if part.strip()]

    with CATALOG.open(newline="", encoding="utf-8") as handle:
        return [
            {
                "name": row["name"].strip(),
                "category": row["category"] or None,
                "family": row["family"] or None,
                "default_unit": row["default_unit"] or None,
                "parent_category": row["parent_category"] or None,
                "aliases": split(row["aliases"]),
                "cuisines": split(row["cuisines"]),
                "tier": int(row["tier"]) if row["tier"] else None,
            }
            for row in csv.DictReader(handle)
        ]


def upgrade() -> None:
    op.execute(ROLE)
    op.execute(SCHEMA)
    op.execute(f"GRANT USAGE ON SCHEMA public TO {APP_ROLE}")
    op.execute(f"GRANT SELECT ON ingredients TO {APP_ROLE}")
    for table in USER_TABLES:
        op.execute(_policy(table))
    op.execute(TOKEN_LOOKUP)
    op.execute(TRIGRAM)

    ingredients = sa.table(
        "ingredients",
        sa.column("id", UUID),
        sa.column("name", sa.Text),
        sa.column("category", sa.Text),
        sa.column("family", sa.Text),
        sa.column("default_unit", sa.Text),
        sa.column("parent_category", sa.Text),
        sa.column("aliases", ARRAY(sa.Text)),
        sa.column("cuisines", ARRAY(sa.Text)),
        sa.column("tier", sa.Integer),
    )
    op.bulk_insert(ingredients, _catalog_rows())


def downgrade() -> None:
    for table in reversed(USER_TABLES):
        op.execute(f"DROP TABLE IF EXISTS {table} CASCADE")
    op.execute("DROP TABLE IF EXISTS ingredients CASCADE")
    op.execute("DROP FUNCTION IF EXISTS app_current_user()")
    # The role is server-wide and may serve other databases: it is left in place.
