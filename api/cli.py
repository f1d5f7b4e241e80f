"""The ``alfred`` command: run the stack, migrate the database, manage users.

Settings are read here, once, and passed down. This is the only place that prints.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
import threading
from collections.abc import Sequence

from domain.db.engine import create_engine, session_factory
from domain.db.runtime import Database, prepare_database
from domain.settings import Settings
from domain.users import create_user


def _describe(database: Database) -> str:
    where = "embedded PostgreSQL" if database.embedded else "PostgreSQL at ALFRED_DATABASE_URL"
    return f"{where}, migrated to the latest revision"


def cmd_run(settings: Settings) -> int:
    """Start what the stack has so far and keep it up until Ctrl-C (or SIGTERM)."""
    database = prepare_database(settings)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        print(f"alfred: database ready ({_describe(database)})", flush=True)
        if database.embedded:
            print(f"alfred: data directory {settings.data_dir.resolve() / 'pg'}", flush=True)
        print("alfred: ready; press Ctrl-C to stop", flush=True)
        stop.wait()
    finally:
        database.close()
        print("alfred: stopped", flush=True)
    return 0


def cmd_db_upgrade(settings: Settings) -> int:
    database = prepare_database(settings)
    try:
        print(f"alfred: {_describe(database)}")
    finally:
        database.close()
    return 0


def cmd_users_create(settings: Settings, name: str) -> int:
    database = prepare_database(settings)

    async def create() -> tuple[str, str]:
        engine = create_engine(database.app_url, pool_size=1)
        try:
            user_id, token = await create_user(session_factory(engine), name)
        finally:
            await engine.dispose()
        return str(user_id), token

    try:
        user_id, token = asyncio.run(create())
    finally:
        database.close()
    print(f"user {name!r} created: id {user_id}")
    print(f"token: {token}")
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="alfred", description="Alfred, the kitchen assistant.")
    commands = top.add_subparsers(dest="command", required=True)
    commands.add_parser("run", help="start the stack (embedded by default) until Ctrl-C")
    db = commands.add_parser("db", help="database administration")
    db.add_subparsers(dest="db_command", required=True).add_parser(
        "upgrade", help="create the database if needed and apply migrations"
    )
    users = commands.add_parser("users", help="user administration")
    create = users.add_subparsers(dest="users_command", required=True).add_parser(
        "create", help="create a user and print its bearer token"
    )
    create.add_argument("name")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")
    settings = Settings()
    if args.command == "run":
        return cmd_run(settings)
    if args.command == "db":
        return cmd_db_upgrade(settings)
    return cmd_users_create(settings, args.name)


if __name__ == "__main__":
    sys.exit(main())
