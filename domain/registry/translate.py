"""Database rows as the model sees them: UUIDs become refs, ``user_id`` disappears (seed 001,
"Entity Lifecycle" and "FK Lazy Registration").

Each row's ``id`` gets (or reuses) a ref tagged with the translator's action (``read``, or
the write that returned the row: ``created``, ``updated``, ``deleted``). FK columns become
refs too, with a ``_<fk>_label`` next to them when the target's label is known; a target
never seen before is registered as ``linked`` and waits in ``unnamed`` until the caller
fetched its name (``named``). Nested relations (a recipe's ``recipe_ingredients``) are
translated the same way. Inputs are never modified; new dicts are returned.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from domain.kitchen.entities import (
    BY_TABLE,
    BY_TYPE,
    EntityType,
    compute_label,
    detect_detail_level,
)
from domain.registry.refs import canonical_uuid

if TYPE_CHECKING:
    from domain.registry.table import RefTable


def _label_key(fk: str) -> str:
    return f"_{fk}_label"


_ALIASES = {"recipe": {"ingredients": "recipe_ingredients"}}
"""Nested lists a row carries under another key: a recipe read by the kitchen repository
(an @-mention, a UI change: ``repository.get_row``) has its ``ingredients``. Untranslated,
their ids and the recipe's reached cook mode's prompt as UUIDs."""


def _child(entity: EntityType, key: str) -> EntityType | None:
    """The entity of the nested list ``key`` holds, or None when it holds none."""
    child = entity.nested.get(_ALIASES.get(entity.type_name, {}).get(key, key))
    return BY_TYPE[child] if child is not None else None


class RowTranslator:
    """Translates rows into the refs of one ``RefTable``; ``unnamed`` holds the FK targets
    it registered without a name, as ``{ref: (table, uuid)}`` in the order met."""

    def __init__(self, refs: RefTable, *, action: str = "read") -> None:
        self.refs = refs
        self.action = action
        self.unnamed: dict[str, tuple[str, str]] = {}

    def rows(self, records: list[dict[str, Any]], table: str) -> list[dict[str, Any]]:
        """The rows of ``table`` with refs for ids and FKs.

        Detail levels only go up: a summary read after a full read leaves the ref at
        ``full``, because the model has already seen the full record.
        """
        entity = entity_of_table(table)
        return [self._row(record, entity) for record in records]

    def named(
        self, rows: list[dict[str, Any]], table: str, labels: Mapping[str, str]
    ) -> list[dict[str, Any]]:
        """Store the names fetched for ``unnamed`` refs, then give ``rows`` (translated by
        ``rows``) the FK labels now known. A row's own label is recomputed as well:
        some are built from their FK labels (a cooking-log entry names its recipe)."""
        for ref, label in labels.items():
            self.unnamed.pop(ref, None)
            if ref in self.refs.entries and label:
                self.refs.amend(ref, label=str(label))
        entity = entity_of_table(table)
        return [self._relabel(row, entity) for row in rows]

    def _row(self, record: Any, entity: EntityType) -> Any:
        if not isinstance(record, Mapping):
            return copy.deepcopy(record)
        refs = self.refs
        own_uuid = canonical_uuid(record.get("id"))
        # The row gets its ref before its FKs so refs are numbered in reading order.
        ref = None
        if own_uuid is not None:
            ref = refs.ref_for_uuid(own_uuid, entity.type_name, action=self.action)
        derived = [_label_key(fk) for fk in entity.fk_fields]
        out: dict[str, Any] = {}
        nested: list[str] = []
        for key, value in record.items():
            if key == "user_id" or key in derived:
                continue  # user_id is noise to the model; FK labels are rebuilt below
            if key == "id" and ref is not None:
                out[key] = ref
            elif key in entity.fk_fields:
                target = self._fk_ref(value, entity.fk_fields[key])
                _put_fk(refs, out, key, value if target is None else target, record)
            elif _child(entity, key) is not None and isinstance(value, list):
                out[key] = None  # a placeholder keeps the key where the input had it
                nested.append(key)
            else:
                out[key] = copy.deepcopy(value)
        if ref is not None:
            # The label comes before nested rows so their back-reference gets a label.
            entry = refs.entries[ref]
            level = detect_detail_level(entity.type_name, record)
            refs.amend(
                ref,
                label=compute_label(entity.type_name, out) or entry.label,
                detail="full" if entry.detail == "full" else level or entry.detail,
            )
        for key in nested:
            child = _child(entity, key)
            assert child is not None
            out[key] = [self._row(item, child) for item in record[key]]
        return out

    def _fk_ref(self, value: Any, target_type: str) -> str | None:
        """The ref an FK value points at, registering an unseen UUID; None if no id."""
        refs = self.refs
        if isinstance(value, str) and value in refs.entries:
            return value  # already a ref (a row served from generated content)
        target_uuid = canonical_uuid(value)
        if target_uuid is None:
            return None
        ref = refs.ref_of(target_uuid)
        if ref is None:
            ref = refs.ref_for_uuid(target_uuid, target_type, action="linked")
        if not refs.entries[ref].label:
            # Also a known ref that stayed nameless: ``unnamed`` lives one call only.
            self.unnamed.setdefault(ref, (BY_TYPE[target_type].table, target_uuid))
        return ref

    def _relabel(self, record: Any, entity: EntityType) -> Any:
        if not isinstance(record, Mapping):
            return copy.deepcopy(record)
        derived = [_label_key(fk) for fk in entity.fk_fields]
        out: dict[str, Any] = {}
        for key, value in record.items():
            if key in derived:
                continue
            if key in entity.fk_fields:
                _put_fk(self.refs, out, key, value, record)
            elif (child := _child(entity, key)) is not None and isinstance(value, list):
                out[key] = [self._relabel(item, child) for item in value]
            else:
                out[key] = copy.deepcopy(value)
        ref = out.get("id")
        entry = self.refs.entries.get(ref) if isinstance(ref, str) else None
        if entry is not None and entry.type == entity.type_name:
            label = compute_label(entity.type_name, out)
            if label:
                self.refs.amend(ref, label=label)
        return out


def row_label(refs: RefTable, entity: EntityType, record: Mapping[str, Any]) -> str:
    """The label of a raw database row, computed as if its FKs were already refs.

    Some labels quote an FK (a cooking-log entry names its recipe); translating
    first keeps a UUID from ever leaking into a label the model reads.
    """
    view = dict(record)
    for fk in entity.fk_fields:
        target_uuid = canonical_uuid(view.get(fk))
        if target_uuid is None:
            continue
        target = refs.ref_of(target_uuid)
        view[fk] = target
        if target is not None and refs.entries[target].label:
            view.setdefault(_label_key(fk), refs.entries[target].label)
    return compute_label(entity.type_name, view)


def _put_fk(
    refs: RefTable, out: dict[str, Any], key: str, value: Any, source: Mapping[str, Any]
) -> None:
    """Write an FK value and, right after it, its label when one is known."""
    out[key] = copy.deepcopy(value)
    entry = refs.entries.get(value) if isinstance(value, str) else None
    label = (entry.label if entry is not None else "") or source.get(_label_key(key)) or ""
    if label:
        out[_label_key(key)] = label


def entity_of_table(table: str) -> EntityType:
    try:
        return BY_TABLE[table]
    except KeyError:
        raise ValueError(f"no entity type is stored in table {table!r}") from None
