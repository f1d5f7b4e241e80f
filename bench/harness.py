"""Running a benchmark on a local stack and writing its section into docs/BENCHMARKS.md."""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from api.devserver import dev_server
from domain.db.server import prepare_database
from domain.settings import Settings

M = TypeVar("M")

DOC = Path(__file__).resolve().parents[1] / "docs" / "BENCHMARKS.md"


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def write_section(name: str, section: str) -> None:
    """Replace the section between ``name``'s markers (or append it); ``section`` includes them."""
    start, end = markers(name)
    text = (
        DOC.read_text()
        if DOC.exists()
        else "# Benchmarks\n\nNumbers from `bench/`; rerun to refresh.\n"
    )
    if start in text:
        head, rest = text.split(start, 1)
        text = head + section + rest.split(end, 1)[1]
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    DOC.write_text(text)


def run_bench(
    name: str,
    doc: str,
    measure: Callable[[str, str, int], Awaitable[M]],
    report: Callable[[int, M], str],
    default_turns: int,
) -> None:
    """A benchmark's command line: ``measure(temporal address, database url, turns)`` on a
    local dev server and PostgreSQL (the embedded one unless ``ALFRED_DATABASE_URL`` is
    set), then ``report`` printed and written into the doc (``--no-write``: print only)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--turns", type=int, default=default_turns)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    settings = Settings()
    with tempfile.TemporaryDirectory() as tmp:
        if not settings.database_url:
            settings = settings.model_copy(update={"data_dir": Path(tmp)})
        database = prepare_database(settings)
        try:
            with dev_server() as address:
                measured = asyncio.run(measure(address, database.app_url, args.turns))
        finally:
            database.close()
    section = report(args.turns, measured)
    print(section)
    if not args.no_write:
        write_section(name, section)
    os._exit(0)  # temporalio/sdk-python#300: skip interpreter teardown after the report
