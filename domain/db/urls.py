"""Database URL helpers: one owner URL in, the URLs each part of the system needs out."""

from __future__ import annotations

from sqlalchemy.engine import URL, make_url

APP_ROLE = "alfred_app"
"""The role the application connects as: owns nothing, cannot bypass row-level security."""


def _psycopg(url: str | URL) -> URL:
    parsed = make_url(url) if isinstance(url, str) else url
    return parsed.set(drivername="postgresql+psycopg")


def sync_url(url: str | URL) -> str:
    """The URL for SQLAlchemy with psycopg 3 (the same dialect serves sync and async engines)."""
    return _psycopg(url).render_as_string(hide_password=False)


def with_database(url: str | URL, database: str) -> str:
    return _psycopg(url).set(database=database).render_as_string(hide_password=False)


def app_url(owner_url: str | URL, password: str | None = None) -> str:
    """The owner URL with the application role as the user (same host, port and database)."""
    return (
        _psycopg(owner_url)
        .set(username=APP_ROLE, password=password)
        .render_as_string(hide_password=False)
    )


def database_of(url: str | URL) -> str | None:
    return _psycopg(url).database


def libpq_dsn(url: str | URL) -> str:
    """A plain ``postgresql://`` DSN for psycopg connections made outside SQLAlchemy."""
    return _psycopg(url).set(drivername="postgresql").render_as_string(hide_password=False)
