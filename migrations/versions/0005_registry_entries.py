"""The registry in one shape: one entry per ref instead of parallel maps (issue 27 §3).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25

``conversations.state->'registry'`` was ``{ref_to_uuid, uuid_to_ref, counters, gen_counters,
pending_artifacts, ref_actions, ref_labels, ref_types, ref_detail_tracking,
ref_turn_created, ref_turn_last_ref, ref_source_step, ref_turn_promoted, ref_active_reason,
current_turn, session_id}`` (maps at their default left out). It becomes ``{entries,
counters, artifacts, turn}``: per ref ``{type, uuid (None: generated, not saved), label,
action, created, last_ref, promoted, active_reason, detail}``; counters keyed by prefix
(``recipe``, ``gen_recipe``), raised where a state's counter lagged behind its refs (the
old code skipped live numbers; the new one trusts its counters); the content of generated
artifacts of known refs. Dropped: ``uuid_to_ref`` (derived), ``ref_source_step``,
``session_id`` and the turn of a full read (nothing read them).

The downgrade writes the old shape back; the dropped fields stay dropped (the old code
loads a state without them). A state already in the target shape is left alone, so both
directions can be run again. Conversations' row-level security is forced for the owner
too: the owner lifts the force for this transaction, or it would see (and convert) no
row unless it is a superuser.
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

PENDING = "__pending__"  # the old shape's UUID of generated content not saved yet
GEN = "gen_"
BATCH = 500


def upgrade() -> None:
    _convert(lambda registry: "entries" not in registry, _to_entries)


def downgrade() -> None:
    _convert(lambda registry: "entries" in registry, _to_maps)


def _convert(needed: Any, convert: Any) -> None:
    """Rewrite every conversation's registry that ``needed`` says is in the other shape,
    in batches by id."""
    bind = op.get_bind()
    bind.execute(sa.text("ALTER TABLE conversations NO FORCE ROW LEVEL SECURITY"))
    select = sa.text(
        "SELECT id, state->'registry' AS registry FROM conversations "
        "WHERE jsonb_typeof(state->'registry') = 'object' AND id > :after ORDER BY id LIMIT :n"
    )
    update = sa.text(
        "UPDATE conversations SET state = jsonb_set(state, '{registry}', CAST(:registry AS jsonb)) "
        "WHERE id = :id"
    )
    after = "00000000-0000-0000-0000-000000000000"
    while rows := bind.execute(select, {"after": after, "n": BATCH}).all():
        for row in rows:
            if needed(row.registry):
                registry = json.dumps(convert(row.registry))
                bind.execute(update, {"id": row.id, "registry": registry})
        after = rows[-1].id
    bind.execute(sa.text("ALTER TABLE conversations FORCE ROW LEVEL SECURITY"))


def _parts(ref: str) -> tuple[str, int, bool] | None:
    """``gen_recipe_2`` → ``("recipe", 2, True)``; None for what is no ref."""
    prefix, _, digits = ref.rpartition("_")
    if not prefix or not (digits.isascii() and digits.isdigit()):
        return None
    generated = prefix.startswith(GEN)
    return prefix.removeprefix(GEN), int(digits), generated


def _to_entries(old: dict[str, Any]) -> dict[str, Any]:
    def per_ref(name: str) -> dict[str, Any]:
        value = old.get(name)
        return value if isinstance(value, dict) else {}

    types, labels, actions = per_ref("ref_types"), per_ref("ref_labels"), per_ref("ref_actions")
    created, last = per_ref("ref_turn_created"), per_ref("ref_turn_last_ref")
    promoted, reasons = per_ref("ref_turn_promoted"), per_ref("ref_active_reason")
    detail = per_ref("ref_detail_tracking")
    counters = {k: int(n) for k, n in per_ref("counters").items()}
    counters |= {f"{GEN}{k}": int(n) for k, n in per_ref("gen_counters").items()}
    entries: dict[str, dict[str, Any]] = {}
    for ref, uuid in per_ref("ref_to_uuid").items():
        parts = _parts(ref)
        type_name = types.get(ref) or (parts[0] if parts else None)
        if type_name is None:
            continue  # no type to give it: the old code could not show it either
        if parts is not None:
            prefix = f"{GEN}{parts[0]}" if parts[2] else parts[0]
            counters[prefix] = max(counters.get(prefix, 0), parts[1])
        first = int(created.get(ref, last.get(ref, 0)))
        level = (detail.get(ref) or {}).get("level")
        entries[ref] = {
            "type": type_name,
            "uuid": None if uuid == PENDING else str(uuid).lower(),
            "label": labels.get(ref) or "",
            "action": actions.get(ref) or "",
            "created": first,
            "last_ref": int(last.get(ref, first)),
            "promoted": promoted.get(ref),
            "active_reason": reasons.get(ref),
            "detail": level if level in ("full", "summary") else None,
        }
    artifacts = {r: c for r, c in per_ref("pending_artifacts").items() if r in entries}
    return {
        "entries": entries,
        "counters": counters,
        "artifacts": artifacts,
        "turn": int(old.get("current_turn") or 0),
    }


def _to_maps(new: dict[str, Any]) -> dict[str, Any]:
    entries: dict[str, dict[str, Any]] = new.get("entries") or {}
    counters: dict[str, int] = new.get("counters") or {}

    def each(field: str) -> dict[str, Any]:
        return {r: e[field] for r, e in entries.items() if e.get(field) is not None}

    return {
        "ref_to_uuid": {r: e.get("uuid") or PENDING for r, e in entries.items()},
        "uuid_to_ref": {e["uuid"]: r for r, e in entries.items() if e.get("uuid")},
        "counters": {k: n for k, n in counters.items() if not k.startswith(GEN)},
        "gen_counters": {k.removeprefix(GEN): n for k, n in counters.items() if k.startswith(GEN)},
        "pending_artifacts": new.get("artifacts") or {},
        "ref_actions": each("action"),
        "ref_labels": each("label"),
        "ref_types": each("type"),
        "ref_detail_tracking": {r: {"level": d} for r, d in each("detail").items()},
        "ref_turn_created": each("created"),
        "ref_turn_last_ref": each("last_ref"),
        "ref_turn_promoted": each("promoted"),
        "ref_active_reason": each("active_reason"),
        "current_turn": new.get("turn") or 0,
    }
