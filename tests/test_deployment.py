"""docker-compose.yml parses and speaks the settings class's language."""

from __future__ import annotations

from pathlib import Path

import yaml

from domain.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"


def services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


def test_compose_has_the_database_and_the_migration_job():
    assert {"postgres", "migrate"} <= set(services())
    assert services()["migrate"]["command"] == ["db", "upgrade"]


def test_every_alfred_variable_in_compose_is_a_setting():
    fields = {f"ALFRED_{name.upper()}" for name in Settings.model_fields}
    used = {
        name
        for service in services().values()
        for name in (service.get("environment") or {})
        if name.startswith("ALFRED_")
    }
    assert used and used <= fields, used - fields
