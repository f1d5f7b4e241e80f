"""Writing a benchmark's section into docs/BENCHMARKS.md between its markers."""

from __future__ import annotations

from pathlib import Path

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
