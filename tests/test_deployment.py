"""docker-compose.yml parses, speaks the settings class's language, keeps its secrets in
`.env`, connects the API and the worker as the application role, and runs commands that
work: the same processes, outside containers, against PostgreSQL and a dev server."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import yaml

from api.devserver import dev_server, free_ports
from domain.db import bootstrap
from domain.db.urls import app_url
from domain.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"
ALFRED = [sys.executable, "-m", "api.cli"]


def services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


def test_compose_has_every_part_of_a_deployment():
    assert set(services()) == {
        "postgres",
        "temporal-db",
        "temporal",
        "temporal-ui",
        "migrate",
        "worker",
        "api",
    }
    commands = {name: services()[name]["command"] for name in ("migrate", "worker", "api")}
    assert commands == {"migrate": ["db", "upgrade"], "worker": ["worker"], "api": ["api"]}


def test_api_and_worker_start_after_a_successful_migration():
    for name in ("api", "worker"):
        migrate = services()[name]["depends_on"]["migrate"]
        assert migrate == {"condition": "service_completed_successfully"}


def test_the_commands_compose_runs_exist_in_the_cli():
    from api.cli import parser

    commands = parser()._subparsers._group_actions[0].choices  # argparse's registry
    assert {"worker", "api", "db"} <= set(commands)


def test_every_alfred_variable_in_compose_is_a_setting():
    fields = {f"ALFRED_{name.upper()}" for name in Settings.model_fields} | {"OPENAI_API_KEY"}
    used = {
        name
        for service in services().values()
        for name in (service.get("environment") or {})
        if name.startswith("ALFRED_")
    }
    assert used and used <= fields, used - fields


def environment(name: str) -> dict[str, str]:
    return {k: str(v) for k, v in (services()[name].get("environment") or {}).items()}


def test_no_secret_is_written_in_the_compose_file():
    """Passwords and keys come from `.env` (`.env.example` lists what to set)."""
    example = (ROOT / ".env.example").read_text()
    for service in services().values():
        for name, value in (service.get("environment") or {}).items():
            secret = any(w in name for w in ("PASSWORD", "PWD", "API_KEY"))
            if secret or "@" in str(value):
                assert "${" in str(value), (name, value)
    for required in re.findall(r"\$\{(\w+):\?", COMPOSE.read_text()):
        assert f"\n{required}=" in f"\n{example}", required


def test_only_the_migration_job_connects_as_the_owner():
    assert "ALFRED_DATABASE_URL" in environment("migrate")
    for name in ("worker", "api"):
        env = environment(name)
        assert "ALFRED_DATABASE_URL" not in env and "ALFRED_APP_DB_PASSWORD" not in env
        assert env["ALFRED_APP_DATABASE_URL"].startswith("postgresql://alfred_app:")


def test_every_service_that_serves_has_a_healthcheck():
    for name in ("postgres", "temporal-db", "worker", "api"):
        assert services()[name]["healthcheck"]["test"], name


def test_the_jobs_compose_runs_work_outside_containers(pg_server_url, tmp_path):
    """The migration job as the owner, then the worker and the API as the application role,
    with compose's commands, environment and healthchecks, against PostgreSQL and a dev
    server on this machine instead of the compose network."""
    name = f"alfred_compose_{uuid.uuid4().hex[:10]}"
    owner = bootstrap.create_database(pg_server_url, name, exist_ok=False)
    metrics, api_port = free_ports(2)
    processes: list[subprocess.Popen] = []
    try:
        with dev_server() as temporal:
            local = {
                "ALFRED_TEMPORAL_ADDRESS": temporal,
                "ALFRED_DATABASE_URL": owner,
                "ALFRED_APP_DB_PASSWORD": "app-secret",
                "ALFRED_APP_DATABASE_URL": app_url(owner, "app-secret"),
                "ALFRED_METRICS_ADDRESS": f"127.0.0.1:{metrics}",
                "ALFRED_API_HOST": "127.0.0.1",
                "ALFRED_API_PORT": str(api_port),
                "OPENAI_API_KEY": "",
                "ALFRED_LLM_PROVIDER": "demo",
            }

            def env_of(service: str) -> dict[str, str]:
                keys = environment(service)
                clean = {k: v for k, v in os.environ.items() if not k.startswith("ALFRED_")}
                return {
                    **clean,
                    "PYTHONPATH": str(ROOT),
                    **{k: local.get(k, v) for k, v in keys.items()},
                }

            migrated = subprocess.run(
                [*ALFRED, *services()["migrate"]["command"]],
                env=env_of("migrate"),
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert migrated.returncode == 0, migrated.stderr
            for service in ("worker", "api"):
                processes.append(
                    subprocess.Popen(
                        [*ALFRED, *services()[service]["command"]],
                        env=env_of(service),
                        cwd=tmp_path,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )
            for service, port in (("worker", metrics), ("api", api_port)):
                check = [
                    part.replace(":9464/", f":{port}/").replace(":8000/", f":{port}/")
                    for part in services()[service]["healthcheck"]["test"][1:]
                ]
                check[0] = sys.executable if check[0] == "python" else check[0]
                deadline = time.monotonic() + 60
                while (
                    subprocess.run(
                        check, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}
                    ).returncode
                    != 0
                ):
                    assert time.monotonic() < deadline, f"{service} never became healthy"
                    time.sleep(0.5)
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            process.wait(timeout=60)
        bootstrap.drop_database(pg_server_url, name)
    assert [p.returncode for p in processes] == [0, 0]
    assert not (tmp_path / ".alfred").exists()  # nothing embedded: they used the app role
