"""docker-compose.yml parses and speaks the settings class's language."""

from __future__ import annotations

from pathlib import Path

import yaml

from domain.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"


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
