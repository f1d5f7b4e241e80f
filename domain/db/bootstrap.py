"""Create the database, apply migrations, set the application role's password."""

from __future__ import annotations

from pathlib import Path

import psycopg
from alembic import command
from alembic.config import Config
from psycopg import sql

from domain.db.urls import APP_ROLE, database_of, libpq_dsn, sync_url, with_database

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


def create_database(server_url: str, name: str, *, exist_ok: bool = True) -> str:
    """Create database ``name`` on the server of ``server_url``; return its owner URL."""
    with psycopg.connect(libpq_dsn(with_database(server_url, "postgres")), autocommit=True) as c:
        exists = c.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if exists and not exist_ok:
            raise RuntimeError(f"database {name!r} already exists")
        if not exists:
            c.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return with_database(server_url, name)


def drop_database(server_url: str, name: str) -> None:
    with psycopg.connect(libpq_dsn(with_database(server_url, "postgres")), autocommit=True) as c:
        c.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def alembic_config(owner_url: str) -> Config:
    config = Config(str(MIGRATIONS / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS))
    # ConfigParser interpolation: a literal % in a password must be doubled.
    config.set_main_option("sqlalchemy.url", sync_url(owner_url).replace("%", "%%"))
    return config


def upgrade(owner_url: str, revision: str = "head") -> None:
    """Apply migrations as the owner. Idempotent: an up-to-date database is left alone."""
    command.upgrade(alembic_config(owner_url), revision)


def set_app_password(owner_url: str, password: str | None) -> None:
    """Give the application role a password (servers with password auth need one)."""
    if password is None:
        return
    with psycopg.connect(libpq_dsn(owner_url), autocommit=True) as c:
        c.execute(
            sql.SQL("ALTER ROLE {} PASSWORD {}").format(
                sql.Identifier(APP_ROLE), sql.Literal(password)
            )
        )


__all__ = [
    "create_database",
    "drop_database",
    "upgrade",
    "set_app_password",
    "database_of",
]
