"""The ``alfred`` command, run as a person runs it: in a subprocess, in a fresh directory."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import psycopg
import pytest

from domain.db import bootstrap
from domain.db.urls import libpq_dsn
from tests.e2e.live_stack import Stack

ALFRED = [sys.executable, "-m", "api.cli"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def env(**overrides: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ALFRED_")}
    clean["PYTHONPATH"] = ROOT
    clean.update(overrides)
    return clean


def alfred(*args: str, cwd, **variables: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ALFRED, *args],
        env=env(**variables),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def fresh_database(pg_server_url):
    name = f"alfred_cli_{uuid.uuid4().hex[:10]}"
    url = bootstrap.create_database(pg_server_url, name, exist_ok=False)
    yield url
    bootstrap.drop_database(pg_server_url, name)


def test_db_upgrade_migrates_the_configured_database(fresh_database, tmp_path):
    done = alfred("db", "upgrade", cwd=tmp_path, ALFRED_DATABASE_URL=fresh_database)
    assert done.returncode == 0, done.stderr
    with psycopg.connect(libpq_dsn(fresh_database)) as c:
        assert c.execute("SELECT version_num FROM alembic_version").fetchone() == ("0004",)
    assert not (tmp_path / ".alfred").exists()


def test_users_create_prints_a_working_token(fresh_database, tmp_path):
    done = alfred("users", "create", "ada", cwd=tmp_path, ALFRED_DATABASE_URL=fresh_database)
    assert done.returncode == 0, done.stderr
    token = done.stdout.split("token: ")[1].strip()
    with psycopg.connect(libpq_dsn(fresh_database)) as c:
        names = c.execute(
            "SELECT u.name FROM users u JOIN api_keys k ON k.user_id = u.id "
            "WHERE k.token_hash = encode(sha256(%s::bytea), 'hex')",
            (token.encode(),),
        ).fetchall()
    assert names == [("ada",)]


def test_run_on_a_fresh_directory_starts_everything_with_the_demo_model(tmp_path):
    # No database URL, no Temporal address, no API key: the defaults of a new machine.
    alfred = Stack(tmp_path)
    try:
        alfred.start()
    except AssertionError:
        alfred.kill()
        raise
    banner = "".join(alfred.output)
    assert "embedded PostgreSQL" in banner
    assert "model        demo (offline rule-based demo, not an LLM)" in banner
    assert (tmp_path / ".alfred" / "pg" / "PG_VERSION").exists()
    assert (tmp_path / ".alfred" / "temporal.db").exists()
    token = (tmp_path / ".alfred" / "dev-token").read_text().strip()
    assert token in banner
    assert alfred.stop() == 0
    assert "alfred: stopped" in "".join(alfred.output)
    assert not (tmp_path / ".alfred" / "pg" / "postmaster.pid").exists()


def test_a_temporal_port_already_in_use_is_a_clear_error_not_a_hang():
    import socket

    from api.devserver import dev_server

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(RuntimeError, match=f"127.0.0.1:{port} is already in use"):
            with dev_server(port=port):
                pass
