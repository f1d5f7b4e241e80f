"""The image and docker-compose.yml: the Dockerfile's install, built here as it builds it
(tests/image.py), carries the locked base dependencies and nothing else, and every module and
command of the package works in it; compose parses, speaks the settings class's language,
keeps its secrets in `.env`, connects the API and the worker as the application role, and
runs commands that work: the image's, outside containers, against PostgreSQL and a dev
server."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
import urllib.request
import uuid
from pathlib import Path

import pytest
import yaml
from packaging.utils import canonicalize_name

from api.devserver import dev_server, free_ports
from domain.db import bootstrap
from domain.db.urls import app_url
from domain.settings import Settings
from tests.image import Image, build, locked

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Image:
    return build(ROOT / "Dockerfile", tmp_path_factory.mktemp("image"))


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
        "admin",
    }
    commands = {name: services()[name]["command"] for name in ("migrate", "worker", "api")}
    assert commands == {"migrate": ["db", "upgrade"], "worker": ["worker"], "api": ["api"]}


def test_commands_run_by_hand_have_a_service_that_up_does_not_start():
    """`docker compose run --rm admin turns end-stuck` (README): the owner's connection,
    which the command needs, in a service of the `tools` profile."""
    admin = services()["admin"]
    assert admin["profiles"] == ["tools"] and admin["restart"] == "no"
    assert environment("admin") == environment("migrate")
    assert "docker compose run --rm admin turns end-stuck" in (ROOT / "README.md").read_text()


def test_docker_waits_for_the_workers_drain_before_it_kills_it():
    """Docker's stop sends SIGTERM, waits stop_grace_period (10 s unless set), then kills.
    The worker drains ALFRED_WORKER_DRAIN_SECONDS, then closes: the grace leaves it the
    margin `alfred worker --processes` leaves its children (api/cli.py, 20 s)."""
    worker = services()["worker"]
    drain = float(environment("worker").get("ALFRED_WORKER_DRAIN_SECONDS", 10))
    grace = re.fullmatch(r"(\d+)s", worker["stop_grace_period"])
    assert grace, worker["stop_grace_period"]
    assert int(grace.group(1)) >= drain + 20


def test_the_metrics_of_the_api_and_the_worker_are_published():
    """Each serves Prometheus on ALFRED_METRICS_ADDRESS's port in its container; the host
    reaches them on ports of their own (tests below scrape them)."""
    published = {}
    for name in ("worker", "api"):
        port = environment(name)["ALFRED_METRICS_ADDRESS"].rsplit(":", 1)[1]
        hosts = [p.split(":")[0] for p in services()[name]["ports"] if p.endswith(f":{port}")]
        assert len(hosts) == 1, (name, services()[name]["ports"])
        published[name] = hosts[0]
    assert len(set(published.values())) == 2, published


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


def test_only_the_migration_job_and_admin_connect_as_the_owner():
    for name in ("migrate", "admin"):
        assert "ALFRED_DATABASE_URL" in environment(name)
    for name in ("worker", "api"):
        env = environment(name)
        assert "ALFRED_DATABASE_URL" not in env and "ALFRED_APP_DB_PASSWORD" not in env
        assert env["ALFRED_APP_DATABASE_URL"].startswith("postgresql://alfred_app:")


def test_every_service_that_runs_has_a_healthcheck_and_every_job_does_not_restart():
    jobs = {name for name, service in services().items() if service.get("restart") == "no"}
    assert jobs == {"temporal-schema", "temporal-namespace", "migrate", "admin"}
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


def test_the_image_installs_the_locked_base_dependencies_and_nothing_else(image):
    """requirements.txt's versions (no extras: no test tools, no embedded PostgreSQL or
    Temporal CLI) and the package."""
    listed = run_in(
        image,
        "python",
        "-c",
        "import json, importlib.metadata as m\n"
        "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))",
    )
    installed = {canonicalize_name(name): v for name, v in json.loads(listed).items()}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert installed == {**locked(ROOT / "requirements.txt"), project["name"]: project["version"]}


def test_every_module_of_the_package_imports_in_the_image(image):
    """Each module of every package pyproject.toml installs (a dependency it imports and
    does not declare fails here), from the image's WORKDIR as its commands run."""
    project = (ROOT / "pyproject.toml").read_text()
    include = re.search(r"\[tool\.setuptools\.packages\.find\]\ninclude = \[(.*?)\]", project)
    assert include is not None
    packages = [name.rstrip("*") for name in re.findall(r'"([^"]+)"', include.group(1))]
    walk = (
        "import importlib, pkgutil, sys\n"
        "for top in sys.argv[1:]:\n"
        "    for m in pkgutil.walk_packages(importlib.import_module(top).__path__, top + '.'):\n"
        "        try:\n"
        "            importlib.import_module(m.name)\n"
        "        except Exception as error:\n"
        "            print(f'{m.name}: {error!r}')\n"
    )
    assert run_in(image, "python", "-c", walk, *packages) == ""


def test_alfred_help_lists_every_command_in_the_image(image):
    usage = run_in(image, *image.command("--help")).splitlines()[0]
    assert usage == "usage: alfred [-h] {run,worker,api,db,users,turns,chat,eval} ...", usage


def test_the_services_compose_runs_work_from_the_image(pg_server_url, image, tmp_path):
    """The migration job as the owner, the worker and the API as the application role, and
    `admin turns end-stuck --dry-run`: the image's entrypoint with compose's commands,
    environment and healthchecks, against PostgreSQL and a dev server on this machine
    instead of the compose network. Both serve metrics; SIGTERM stops both cleanly; the
    worker loads none of the other commands' code (the eval harness, the chat client)."""
    name = f"alfred_compose_{uuid.uuid4().hex[:10]}"
    owner = bootstrap.create_database(pg_server_url, name, exist_ok=False)
    metrics, api_metrics, api_port = free_ports(3)
    imports = tmp_path / "worker-imports.txt"
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
                mine = {**local}
                if service in own_metrics:
                    mine["ALFRED_METRICS_ADDRESS"] = f"127.0.0.1:{own_metrics[service]}"
                keys = environment(service)
                return {**image.env, **{k: mine.get(k, v) for k, v in keys.items()}}

            migrated = run_in(
                image, *image.command(*services()["migrate"]["command"]), env=env_of("migrate")
            )
            assert "migrated to the latest revision" in migrated
            for service in ("worker", "api"):
                env = env_of(service)
                if service == "worker":  # every module it imports, on stderr
                    env["PYTHONPROFILEIMPORTTIME"] = "1"
                with imports.open("a") as stderr:
                    processes.append(
                        subprocess.Popen(
                            image.command(*services()[service]["command"]),
                            env=env,
                            cwd=image.workdir,
                            stdout=subprocess.DEVNULL,
                            stderr=stderr if service == "worker" else subprocess.DEVNULL,
                        )
                    )
            for service, port in (("worker", metrics), ("api", api_port)):
                check = [
                    part.replace(":9464/", f":{port}/").replace(":8000/", f":{port}/")
                    for part in services()[service]["healthcheck"]["test"][1:]
                ]
                deadline = time.monotonic() + 60
                while subprocess.run(check, cwd=image.workdir, env=image.env).returncode != 0:
                    assert time.monotonic() < deadline, f"{service} never became healthy"
                    assert all(p.poll() is None for p in processes), imports.read_text()[-3000:]
                    time.sleep(0.5)
            # Both serve Prometheus: the SDK's metrics of their Temporal client at least.
            for port in (metrics, api_metrics):
                scraped = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10)
                assert "temporal_" in scraped.read().decode()
            stuck = run_in(
                image, *image.command("turns", "end-stuck", "--dry-run"), env=env_of("admin")
            )
            assert "alfred: 0 stuck turn(s) found" in stuck
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            process.wait(timeout=60)
        bootstrap.drop_database(pg_server_url, name)
    assert [p.returncode for p in processes] == [0, 0]
    assert not (image.workdir / ".alfred").exists()  # nothing embedded: they used the app role
    loaded = {line.rsplit("|", 1)[-1].strip() for line in imports.read_text().splitlines()}
    assert "workflows.worker" in loaded  # what it reads is the import log
    assert not {m for m in loaded if m.split(".")[0] in ("evals", "httpx") or m == "api.chat"}


def run_in(image: Image, *command: str, env: dict[str, str] | None = None) -> str:
    """``command`` in the image's WORKDIR and environment (``python`` is the image's); what
    it printed, once it exited 0."""
    if command[0] == "python":
        command = (shutil.which("python", path=image.env["PATH"]) or "python", *command[1:])
        assert command[0].startswith(str(image.workdir)), command[0]
    done = subprocess.run(
        command,
        cwd=image.workdir,
        env=env or image.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{command}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout
