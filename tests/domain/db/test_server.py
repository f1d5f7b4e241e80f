"""Without ALFRED_DATABASE_URL the project runs on an embedded server whose data persists."""

from __future__ import annotations

import sys

import psycopg
import pytest

from domain.db.server import prepare_database
from domain.db.urls import libpq_dsn
from domain.settings import Settings


@pytest.fixture
def isolated_env(monkeypatch):
    for name in ("ALFRED_DATABASE_URL", "ALFRED_DATA_DIR", "ALFRED_APP_DB_PASSWORD"):
        monkeypatch.delenv(name, raising=False)


def count_users(url: str) -> int:
    with psycopg.connect(libpq_dsn(url)) as c:
        return c.execute("SELECT count(*) FROM users").fetchone()[0]


def test_embedded_database_is_migrated_and_survives_a_restart(tmp_path, isolated_env):
    settings = Settings(data_dir=tmp_path / ".alfred", _env_file=None)
    first = prepare_database(settings)
    try:
        assert first.embedded is not None
        assert (tmp_path / ".alfred" / "pg" / "PG_VERSION").exists()
        with psycopg.connect(libpq_dsn(first.owner_url)) as c:
            c.execute("INSERT INTO users (name) VALUES ('kept')")
            catalog = c.execute("SELECT count(*) FROM ingredients").fetchone()[0]
        assert catalog > 300
    finally:
        first.close()

    second = prepare_database(settings)
    try:
        assert count_users(second.owner_url) == 1
        assert "alfred_app" in second.app_url
    finally:
        second.close()


def test_configured_database_url_is_used_and_nothing_is_started(owner_url, isolated_env):
    settings = Settings(database_url=owner_url, _env_file=None)
    database = prepare_database(settings)
    assert database.embedded is None
    assert database.owner_url == owner_url
    assert database.app_url.startswith("postgresql+psycopg://alfred_app")


def test_settings_read_the_alfred_prefix(monkeypatch):
    monkeypatch.setenv("ALFRED_DATABASE_URL", "postgresql://x@db/alfred")
    monkeypatch.setenv("ALFRED_CRUD_MAX_ROWS", "25")
    settings = Settings(_env_file=None)
    assert settings.database_url == "postgresql://x@db/alfred"
    assert settings.crud_max_rows == 25


def test_without_the_embedded_extra_the_database_says_what_to_install(
    tmp_path, isolated_env, monkeypatch
):
    monkeypatch.setitem(sys.modules, "pgserver", None)  # as in the image: not installed
    settings = Settings(data_dir=tmp_path / ".alfred", _env_file=None)
    with pytest.raises(RuntimeError, match=r"'embedded' extra .*set ALFRED_DATABASE_URL"):
        prepare_database(settings)
    assert not (tmp_path / ".alfred" / "pg").exists()
