"""The tree says what it holds: one module name, one meaning (issue 15), ``domain/``
free of Temporal and FastAPI, and one way to connect to Temporal."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("activities", "api", "domain", "workflows")


def modules() -> list[Path]:
    return [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py") if p.name != "__init__.py"]


def test_no_two_modules_share_a_name():
    where: dict[str, list[str]] = defaultdict(list)
    for path in modules():
        where[path.stem].append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}


def test_domain_imports_neither_temporal_nor_fastapi():
    found = []
    for path in (ROOT / "domain").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [
                f"{path.relative_to(ROOT)}: {name}"
                for name in names
                if name.split(".")[0] in ("temporalio", "fastapi")
            ]
    assert found == []


def test_every_temporal_client_comes_from_api_temporal_connect():
    """One ``Client.connect`` (``api.temporal.connect``), so every entry point's client, and
    every worker built on one, has the same converter, namespace, metrics and tracing."""
    found = []
    for pkg in (*PACKAGES, "bench", "evals"):
        for path in (ROOT / pkg).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr == "connect"
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "Client"
                ):
                    found.append(str(path.relative_to(ROOT)))
    assert found == ["api/temporal.py"]
