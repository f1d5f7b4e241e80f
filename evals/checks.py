"""A turn's expectations, checked on what it left: rows, the registry, the reply."""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from domain.conversation import ConversationState
from domain.kitchen.entities import BY_TYPE, compute_label
from domain.registry import SessionIdRegistry
from domain.shown import left_out
from evals.scenario import Expect, GeneratedCheck, RowCheck

if TYPE_CHECKING:
    from evals.runner import TurnResult

Kitchen = dict[str, list[dict[str, Any]]]


class Check(BaseModel):
    name: str
    passed: bool
    detail: str = ""


REFUSAL = re.compile(
    r"\bi(?:'m| am) sorry,? but i (?:can't|cannot|can not|am unable to|'m unable to) "
    r"(?:assist|help)\b|\bi can(?:'t|not) (?:assist|help) with (?:that|this)\b"
)
"""A reply that turns the request down ("I'm sorry, but I can't assist with that"): no
scenario asks for something Alfred should refuse, so such a reply is wrong whatever the
turn did (invent_in_create_mode passed once with one, the recipe shown after it)."""


def check_turn(
    expect: Expect,
    outcome: TurnResult,
    after: Kitchen,
    before: Kitchen,
    state: ConversationState,
    state_before: ConversationState,
) -> list[Check]:
    """The checks of one turn: ``before`` is the kitchen as the turn found it (after its
    UI edits), ``state_before`` / ``state`` the conversation before and after it."""
    registry = state.registry
    checks = [
        _check("status", outcome.status == expect.status, f"{outcome.status}"),
        _check("pauses", _pauses(outcome.pauses, expect), f"{outcome.pauses}"),
    ]
    checks += [_rows(check, after) for check in expect.rows]
    if expect.no_writes:
        changed = sorted(t for t in after if _bare(after[t]) != _bare(before.get(t, [])))
        checks.append(_check("no writes", not changed, f"changed: {', '.join(changed)}"))
    reply = outcome.response.lower()
    refusal = REFUSAL.search(reply)
    checks.append(_check("reply is no refusal", refusal is None, _quote(reply)))
    for wanted in expect.reply.mentions:
        checks.append(
            _check(f"reply mentions {_words(wanted)}", _any_in(wanted, reply), _quote(reply))
        )
    for claim in expect.reply.not_mentions:
        checks.append(
            _check(f"reply does not say {claim!r}", claim.lower() not in reply, _quote(reply))
        )
    for pattern in expect.reply.matches:
        found = re.search(pattern, reply, re.IGNORECASE) is not None
        checks.append(_check(f"reply matches {pattern!r}", found, _quote(reply)))
    for pattern in expect.reply.not_matches:
        found = re.search(pattern, reply, re.IGNORECASE) is not None
        checks.append(_check(f"reply does not match {pattern!r}", not found, _quote(reply)))
    if expect.unsaved is not None:
        labels = [registry.label(ref) for ref in registry.get_truly_pending_artifacts()]
        checks.append(
            _check(f"{expect.unsaved} unsaved", len(labels) == expect.unsaved, f"{labels}")
        )
    checks += [_generated(g, registry, reply) for g in expect.generated]
    if expect.saved is not None:
        checks.append(_saved(expect.saved, state_before.registry, registry, after))
    if expect.session is not None:
        going = state.bypass is not None
        detail = f"a {state.bypass.mode} session is going" if state.bypass else "no session"
        checks.append(
            _check(f"session {expect.session}", going == (expect.session == "open"), detail)
        )
    return checks


def _pauses(made: list[str], expect: Expect) -> bool:
    kinds = [[w] if isinstance(w, str) else w for w in expect.pauses]
    if expect.may_propose and made[len(kinds) :] == ["proposal"]:
        made = made[: len(kinds)]
    return len(made) == len(kinds) and all(m in k for m, k in zip(made, kinds, strict=True))


def _generated(check: GeneratedCheck, registry: SessionIdRegistry, reply: str) -> Check:
    """Every unsaved item of the type holds the check (and there is one)."""
    items = {
        ref: content
        for ref, content in registry.get_truly_pending_artifacts().items()
        if registry.type_of(ref) == check.type
    }
    name = f"unsaved {check.type} " + ", ".join(
        [*(f"mentions {_words(w)}" for w in check.mentions)]
        + [f"not {w!r}" for w in check.not_mentions]
        + [f"has {check.fields}"] * bool(check.fields)
        + [f"filled {check.filled}"] * bool(check.filled)
        + ["shown"] * check.shown
    )
    if not items:
        return _check(name, False, f"no unsaved {check.type}")
    for ref, content in items.items():
        text = json.dumps(content, ensure_ascii=False, default=str).lower()
        label = compute_label(check.type, content)
        problems = [f"no {_words(w)}" for w in check.mentions if not _any_in(w, text)]
        problems += [f"says {w!r}" for w in check.not_mentions if w.lower() in text]
        problems += [
            f"{k}={content.get(k)!r}"
            for k, v in check.fields.items()
            if not _equal(content.get(k), v)
        ]
        problems += [f"no {k}" for k in check.filled if not content.get(k)]
        if check.shown:
            problems += left_out(reply, check.type, content)
        if problems:
            return _check(name, False, f"{ref} ({label}): {'; '.join(problems)}")
    return _check(name, True, "")


def _saved(
    wanted: int, before: SessionIdRegistry, after: SessionIdRegistry, kitchen: Kitchen
) -> Check:
    """How many items unsaved before the turn are now rows named as generated, a recipe
    with as many ingredient rows as it had ingredients."""
    saved, notes = 0, []
    for ref, content in before.get_truly_pending_artifacts().items():
        label = before.label(ref)
        uuid = after.entry(ref).uuid if ref in after.entries else None
        if uuid is None:
            notes.append(f"{ref} ({label}) unsaved")
            continue
        kind = before.type_of(ref)
        rows = [r for r in kitchen.get(BY_TYPE[kind].table, []) if str(r.get("id")) == uuid]
        if not rows:
            notes.append(f"{ref} ({label}): no row {uuid}")
            continue
        named = compute_label(kind, rows[0])
        if named.strip().lower() != compute_label(kind, content).strip().lower():
            notes.append(f"{ref} ({label}) saved as {named!r}")
            continue
        if kind == "recipe":
            lines = len(content.get("ingredients") or [])
            have = sum(
                1 for r in kitchen.get("recipe_ingredients", []) if str(r.get("recipe_id")) == uuid
            )
            if not lines or have != lines:
                notes.append(f"{ref} ({label}): {have} ingredient rows of {lines}")
                continue
        saved += 1
    return _check(f"{wanted} saved", saved == wanted, f"{saved} saved; " + "; ".join(notes))


def _words(wanted: str | list[str]) -> str:
    return " | ".join([wanted] if isinstance(wanted, str) else wanted)


def _any_in(wanted: str | list[str], text: str) -> bool:
    words = [wanted] if isinstance(wanted, str) else wanted
    return any(w.lower() in text for w in words)


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
        and all(_any_in(w, str(r.get(k) or "").lower()) for k, w in check.like.items())
    ]
    name = f"{check.table} where {check.where or ''}{check.like or ''}"
    if check.absent:
        return _check(f"no {name}", not matched, f"{len(matched)} row(s) match")
    if check.count is not None and len(matched) != check.count:
        return _check(name, False, f"{len(matched)} row(s) match, expected {check.count}")
    if check.count == 0:
        return _check(name, True, "")
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
