"""The user's timezone, for the date and time every model is shown.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE preferences ADD COLUMN timezone text NOT NULL DEFAULT 'UTC'")


def downgrade() -> None:
    op.execute("ALTER TABLE preferences DROP COLUMN timezone")
