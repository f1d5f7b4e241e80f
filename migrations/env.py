"""Alembic environment: runs migrations online, as the owner of the tables."""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine, pool

from domain.db.urls import sync_url

config = context.config


def _owner_url() -> str:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get("ALFRED_DATABASE_URL")
    if not url:
        raise RuntimeError("no database URL: use `alfred db upgrade` or set ALFRED_DATABASE_URL")
    return sync_url(url)


def run_migrations_online() -> None:
    engine = create_engine(_owner_url(), poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, transaction_per_migration=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported")
run_migrations_online()
