"""Kitchen edits made through the API, for the next turn's UI changes; turn run ids.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

APP_ROLE = "alfred_app"

UPGRADE = f"""
CREATE TABLE kitchen_changes (
    id bigserial PRIMARY KEY,
    user_id uuid NOT NULL DEFAULT app_current_user() REFERENCES users(id) ON DELETE CASCADE,
    table_name text NOT NULL,
    row_id uuid NOT NULL,
    action text NOT NULL CHECK (action IN ('created', 'updated', 'deleted')),
    data jsonb,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX kitchen_changes_user_time ON kitchen_changes (user_id, created_at);
ALTER TABLE kitchen_changes ENABLE ROW LEVEL SECURITY;
ALTER TABLE kitchen_changes FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON kitchen_changes USING (user_id = app_current_user())
    WITH CHECK (user_id = app_current_user());
GRANT SELECT, INSERT, DELETE ON kitchen_changes TO {APP_ROLE};
GRANT USAGE ON SEQUENCE kitchen_changes_id_seq TO {APP_ROLE};

ALTER TABLE turns ADD COLUMN run_id text;
"""


def upgrade() -> None:
    op.execute(UPGRADE)


def downgrade() -> None:
    op.execute("ALTER TABLE turns DROP COLUMN run_id")
    op.execute("DROP TABLE kitchen_changes")
