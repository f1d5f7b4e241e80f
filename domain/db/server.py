"""Which PostgreSQL the process uses: the configured server, or the embedded default.

``ALFRED_DATABASE_URL`` set: that server (owner URL), nothing started. Unset: the embedded
server with its files under ``<data_dir>/pg`` and a database named ``database_name``.
Either way the schema is brought to the latest migration before the URLs are handed out.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from domain.db import bootstrap
from domain.db.embedded import EmbeddedPostgres, start_embedded
from domain.db.urls import app_url
from domain.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class Database:
    owner_url: str
    """For migrations and administration only."""
    app_url: str
    """What the worker and the API connect with: the ``alfred_app`` role, RLS in force."""
    embedded: EmbeddedPostgres | None = None

    def close(self) -> None:
        if self.embedded is not None:
            self.embedded.stop()


def prepare_database(settings: Settings, *, migrate: bool = True) -> Database:
    embedded = None
    if settings.database_url:
        owner = settings.database_url
    else:
        embedded = start_embedded(settings.data_dir / "pg")
        owner = bootstrap.create_database(embedded.owner_url(), settings.database_name)
    if migrate:
        bootstrap.upgrade(owner)
    password = settings.app_db_password.get_secret_value() if settings.app_db_password else None
    bootstrap.set_app_password(owner, password)
    log.info("database ready", extra={"embedded": embedded is not None})
    return Database(owner_url=owner, app_url=app_url(owner, password), embedded=embedded)
