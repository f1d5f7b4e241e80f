"""The one settings class. Read once at the edges (CLI, worker, API, tests) and passed down."""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Configuration from ``ALFRED_*`` environment variables (or a ``.env`` file)."""

    model_config = SettingsConfigDict(env_prefix="ALFRED_", env_file=".env", extra="ignore")

    database_url: str | None = None
    """Owner connection (migrations, admin). Unset: the embedded PostgreSQL under data_dir."""
    app_db_password: SecretStr | None = None
    """Password of the ``alfred_app`` role the application connects as (none with trust auth)."""
    data_dir: Path = Path(".alfred")
    """Where the embedded stack keeps its state (database files, later Temporal's)."""
    database_name: str = "alfred"
    """Database created on the embedded server."""
    test_database_url: str | None = None
    """Server the test suite creates its throw-away database on. Unset: an embedded server."""
    db_pool_size: int = 5
    crud_max_rows: int = 200
    """Hard cap on rows a single db_read returns, whatever limit the model asks for."""
