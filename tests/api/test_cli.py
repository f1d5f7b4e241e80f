"""The ``alfred`` command, run as a person runs it: in a subprocess, in a fresh directory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg
import pytest

from api.devserver import dev_server
from api.processes import child_env
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
        assert c.execute("SELECT version_num FROM alembic_version").fetchone() == ("0005",)
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

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(RuntimeError, match=f"127.0.0.1:{port} is already in use"):
            with dev_server(port=port):
                pass


def test_alfred_run_with_the_api_port_in_use_says_so_before_starting_anything(tmp_path):
    """The API's port is taken first, so nothing the stack starts (PostgreSQL, the dev
    server and the ports it picks for itself) can take it meanwhile."""
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = alfred("run", cwd=tmp_path, ALFRED_API_PORT=str(port))
    assert done.returncode == 1
    assert f"alfred: cannot start: the API cannot listen on 127.0.0.1:{port}" in done.stderr
    assert not (tmp_path / ".alfred" / "pg").exists()
    assert not (tmp_path / ".alfred" / "temporal.db").exists()


def worker_children(parent: int) -> list[int]:
    """The ``alfred worker`` processes ``parent`` started."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if f"\nPPid:\t{parent}\n" in status and "api.cli worker" in command:
            found.append(int(entry.name))
    return sorted(found)


def until(condition, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def test_worker_processes_are_supervised_and_stop_together(fresh_database, tmp_path):
    """``alfred worker --processes 2``: two workers; one that dies is started again;
    SIGTERM stops them all (each drains), and the supervisor says so."""
    with dev_server() as address:
        supervisor = subprocess.Popen(
            [*ALFRED, "worker", "--processes", "2"],
            env=env(
                ALFRED_DATABASE_URL=fresh_database,
                ALFRED_TEMPORAL_ADDRESS=address,
                ALFRED_LLM_PROVIDER="demo",
            ),
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            until(lambda: len(worker_children(supervisor.pid)) == 2)
            children = worker_children(supervisor.pid)
            os.kill(children[0], signal.SIGKILL)
            again = until(
                lambda: (
                    (now := worker_children(supervisor.pid))
                    and len(now) == 2
                    and children[0] not in now
                    and now
                )
            )
            assert children[1] in again
            supervisor.send_signal(signal.SIGTERM)
            output, _ = supervisor.communicate(timeout=90)
        finally:
            if supervisor.poll() is None:
                supervisor.kill()
    assert supervisor.returncode == 0, output
    assert "alfred: 2 worker processes" in output and "alfred: stopped" in output
    assert worker_children(supervisor.pid) == []


def without_embedded(directory: Path) -> str:
    """A PYTHONPATH on which the embedded PostgreSQL's wheel is missing, as in the image."""
    blocker = directory / "blocked"
    blocker.mkdir()
    (blocker / "pgserver.py").write_text("raise ImportError('not installed in the image')\n")
    return f"{blocker}{os.pathsep}{ROOT}"


def test_without_the_embedded_extra_alfred_says_what_to_install(tmp_path):
    done = alfred("db", "upgrade", cwd=tmp_path, PYTHONPATH=without_embedded(tmp_path))
    assert done.returncode == 1
    assert "alfred: cannot start: the embedded PostgreSQL comes with the 'embedded' extra" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr


def test_worker_processes_need_a_database_and_a_temporal_address(tmp_path):
    done = alfred("worker", "--processes", "2", cwd=tmp_path)
    assert done.returncode == 2
    assert "needs ALFRED_DATABASE_URL and ALFRED_TEMPORAL_ADDRESS" in done.stderr


def test_each_worker_process_gets_a_metrics_port_of_its_own():
    env = {"ALFRED_METRICS_ADDRESS": "127.0.0.1:9464", "OTHER": "x"}
    assert child_env(env, 0)["ALFRED_METRICS_ADDRESS"] == "127.0.0.1:9465"
    assert child_env(env, 2) == {"ALFRED_METRICS_ADDRESS": "127.0.0.1:9467", "OTHER": "x"}
    assert child_env({"OTHER": "x"}, 1) == {"OTHER": "x"}
