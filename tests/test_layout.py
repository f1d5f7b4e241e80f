"""The tree says what it holds: one module name, one meaning (issue 15), and ``domain/``
free of Temporal and FastAPI."""

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
