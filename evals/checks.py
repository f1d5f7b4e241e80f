"""A turn's expectations, checked on what it left: rows, the registry, the reply."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from domain.registry import SessionIdRegistry
from evals.scenario import Expect, RowCheck

if TYPE_CHECKING:
    from evals.runner import TurnResult

Kitchen = dict[str, list[dict[str, Any]]]


class Check(BaseModel):
    name: str
    passed: bool
    detail: str = ""


def check_turn(
    expect: Expect,
    outcome: TurnResult,
    after: Kitchen,
    before: Kitchen,
    registry: SessionIdRegistry,
) -> list[Check]:
    checks = [
        _check("status", outcome.status == expect.status, f"{outcome.status}"),
        _check("pauses", outcome.pauses == expect.pauses, f"{outcome.pauses}"),
    ]
    checks += [_rows(check, after) for check in expect.rows]
    if expect.no_writes:
        changed = sorted(t for t in after if _bare(after[t]) != _bare(before.get(t, [])))
        checks.append(_check("no writes", not changed, f"changed: {', '.join(changed)}"))
    reply = outcome.response.lower()
    for wanted in expect.reply.mentions:
        words = [wanted] if isinstance(wanted, str) else wanted
        found = any(w.lower() in reply for w in words)
        checks.append(_check(f"reply mentions {' | '.join(words)}", found, _quote(reply)))
    for claim in expect.reply.not_mentions:
        checks.append(
            _check(f"reply does not say {claim!r}", claim.lower() not in reply, _quote(reply))
        )
    if expect.unsaved is not None:
        labels = [registry.label(ref) for ref in registry.get_truly_pending_artifacts()]
        checks.append(
            _check(f"{expect.unsaved} unsaved", len(labels) == expect.unsaved, f"{labels}")
        )
    return checks


def _check(name: str, passed: bool, detail: str) -> Check:
    return Check(name=name, passed=passed, detail="" if passed else detail)


def _quote(text: str) -> str:
    return f"reply: {text[:200]!r}"


def _bare(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "updated_at"} for r in rows]


def _rows(check: RowCheck, kitchen: Kitchen) -> Check:
    rows = kitchen.get(check.table)
    if rows is None:
        return _check(f"{check.table} rows", False, f"no table {check.table!r}")
    matched = [
        r
        for r in rows
        if all(_equal(r.get(k), v) for k, v in check.where.items())
        and all(str(w).lower() in str(r.get(k) or "").lower() for k, w in check.like.items())
    ]
    name = f"{check.table} where {check.where or ''}{check.like or ''}"
    if check.absent:
        return _check(f"no {name}", not matched, f"{len(matched)} row(s) match")
    if check.count is not None and len(matched) != check.count:
        return _check(name, False, f"{len(matched)} row(s) match, expected {check.count}")
    if not matched:
        names = [r.get("name") or r.get("title") or r.get("date") for r in rows]
        return _check(name, False, f"no row matches; {check.table} holds {names[:12]}")
    for row in matched:
        wrong = {k: row.get(k) for k, v in check.fields.items() if not _equal(row.get(k), v)}
        if wrong:
            return _check(f"{name} has {check.fields}", False, f"found {wrong}")
    return _check(f"{name} has {check.fields}" if check.fields else name, True, "")


def _equal(value: Any, wanted: Any) -> bool:
    """Text ignores case and surrounding space; numbers agree within 1 %; a wanted list is
    a set of values that must all be present (array columns)."""
    if isinstance(wanted, bool) or isinstance(value, bool):
        return value == wanted
    if isinstance(wanted, int | float):
        try:
            number = float(value)
        except (TypeError, ValueError):
            return False
        return math.isclose(number, float(wanted), rel_tol=0.01, abs_tol=1e-9)
    if isinstance(wanted, str):
        return isinstance(value, str) and value.strip().lower() == wanted.strip().lower()
    if isinstance(wanted, list):
        have = {str(v).lower() for v in value or []}
        return all(str(w).lower() in have for w in wanted)
    return value == wanted
