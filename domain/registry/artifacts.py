"""Generated content: "generate now, save later" (seed 001, "Pending Artifacts").

Content a model generated gets a ``gen_{type}_{n}`` ref with no UUID, and a copy of it is
kept in the table's ``artifacts`` so it can be shown, revised and saved in a later turn.
Saving it promotes the ref: it keeps its name and now resolves to the new row; the content
stays until the turn ends (``clear_turn_promoted_artifacts``), so rows linked to it can
still be built from it. Stored content is never changed in place: it goes in and comes out
as copies.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from domain.kitchen.entities import BY_TABLE, BY_TYPE, compute_label
from domain.registry.refs import canonical_uuid, parse_ref
from domain.registry.table import Content, RefTable
from domain.registry.translate import entity_of_table, row_label


class SessionIdRegistry(RefTable):
    """The session's refs (``RefTable``) and the generated content behind its ``gen_`` refs."""

    def register_generated(self, type_name: str, content: Mapping[str, Any]) -> str:
        """Give freshly generated content a ``gen_{type}_{n}`` ref and keep a copy of it."""
        if type_name not in BY_TYPE:
            raise ValueError(f"unknown entity type {type_name!r}")
        label = compute_label(type_name, content)
        ref = self._add(type_name, generated=True, action="generated", label=label)
        self.artifacts[ref] = _copy(content)
        return ref

    def update_entity_data(self, ref: str, content: Mapping[str, Any]) -> None:
        """Replace the content of a still-unsaved artifact, keeping its ref ("add feta").

        The label is recomputed from the new content (kept if the content has none).

        Raises:
            ValueError: ``ref`` is not a gen ref, is unknown, or was already saved.
        """
        parts = parse_ref(ref)
        if parts is None or not parts.generated:
            raise ValueError(f"{ref!r} is not a generated (gen_) ref")
        if self.entry(ref).uuid is not None:
            raise ValueError(f"{ref!r} is already saved; update the database record instead")
        self.artifacts[ref] = _copy(content)
        label = compute_label(parts.type_name, content) or self.entries[ref].label
        self.amend(ref, label=label, last_ref=self.turn)

    def get_entity_data(self, ref: str) -> dict[str, Any] | None:
        """A copy of the stored content of a generated artifact, or None."""
        content = self.artifacts.get(ref)
        return copy.deepcopy(content) if content is not None else None

    def register_created(
        self, uuid: str, table: str, record: Mapping[str, Any], *, gen_ref: str | None = None
    ) -> str:
        """Register a row the AI just inserted, promoting its ``gen_`` ref when it has one.

        The artifact is found through ``gen_ref`` or, failing that, as the first unsaved
        artifact of the same type whose label equals the new row's (case-insensitive).

        Raises:
            ValueError: ``gen_ref`` is not an unsaved gen ref of this table's type, or
                ``uuid`` already belongs to a different ref.
        """
        entity = entity_of_table(table)
        canonical = canonical_uuid(uuid)
        if canonical is None:
            raise ValueError(f"not a UUID: {uuid!r}")
        label = row_label(self, entity, record)
        existing = self.ref_of(canonical)
        if existing is not None and gen_ref is not None and existing != gen_ref:
            raise ValueError(f"{uuid!r} is already registered as {existing!r}, not {gen_ref!r}")
        if existing is None:
            if gen_ref is not None:
                self._check_unsaved(gen_ref, entity.type_name)
            else:
                gen_ref = self._unsaved_labelled(entity.type_name, label)
        if existing is not None or gen_ref is None:
            # A new row, or a repeated notification for the same row (it keeps its ref).
            return self.ref_for_uuid(canonical, entity.type_name, action="created", label=label)
        self.amend(
            gen_ref,
            uuid=canonical,
            action="created",
            label=label or self.entries[gen_ref].label,
            promoted=self.turn,
            last_ref=self.turn,
        )
        return gen_ref

    def unsaved_refs(self) -> list[str]:
        """The refs of the artifacts that are not saved yet, in storage order (no copies:
        for callers that need only the refs)."""
        return [ref for ref in self.artifacts if self.entries[ref].uuid is None]

    def get_truly_pending_artifacts(self) -> dict[str, dict[str, Any]]:
        """Copies of the artifacts that are not saved yet, by ref."""
        return {
            ref: copy.deepcopy(content)
            for ref, content in self.artifacts.items()
            if self.entries[ref].uuid is None
        }

    def get_just_promoted_artifacts(self) -> dict[str, dict[str, Any]]:
        """Copies of the artifacts saved during the current turn, by ref."""
        return {
            ref: copy.deepcopy(content)
            for ref, content in self.artifacts.items()
            if self.entries[ref].promoted == self.turn
        }

    def promoted(self) -> list[str]:
        """The ``gen_`` refs whose content was saved (they name rows now)."""
        return [ref for ref, e in self.entries.items() if e.promoted is not None]

    def clear_turn_promoted_artifacts(self) -> list[str]:
        """Drop the content of artifacts saved in this turn or earlier (their refs stay);
        the refs whose content was dropped, in storage order."""
        cleared = [
            ref
            for ref in self.artifacts
            if (promoted := self.entries[ref].promoted) is not None and promoted <= self.turn
        ]
        for ref in cleared:
            del self.artifacts[ref]
        return cleared

    def reroute_pending_read(self, table: str, ids: list[str]) -> list[dict[str, Any]] | None:
        """Serve a read of unsaved generated content from memory instead of the database.

        Returns copies of the artifacts (each with ``"id"`` set to its gen ref) when
        every id is an unsaved gen ref of this table's type; otherwise None, and the
        caller reads the database (a promoted gen ref resolves to its real UUID).
        """
        entity = BY_TABLE.get(table)
        if entity is None or not ids:
            return None
        for ref in ids:
            parts = parse_ref(ref)
            entry = self.entries.get(ref)
            if (
                parts is None
                or not parts.generated
                or parts.type_name != entity.type_name
                or entry is None
                or entry.uuid is not None
                or ref not in self.artifacts
            ):
                return None
        rows = []
        for ref in ids:
            content = copy.deepcopy(self.artifacts[ref])
            content.pop("id", None)
            rows.append({"id": ref, **content})
            self.touch(ref)
        return rows

    def _check_unsaved(self, gen_ref: str, type_name: str) -> None:
        parts = parse_ref(gen_ref)
        if parts is None or not parts.generated or parts.type_name != type_name:
            raise ValueError(f"{gen_ref!r} is not a generated {type_name} ref")
        if (uuid := self.entry(gen_ref).uuid) is not None:
            raise ValueError(f"{gen_ref!r} is already saved as {uuid!r}")

    def _unsaved_labelled(self, type_name: str, label: str) -> str | None:
        wanted = label.strip().casefold()
        if not wanted:
            return None
        for ref in self.artifacts:
            entry = self.entries[ref]
            if (
                entry.type == type_name
                and entry.uuid is None
                and entry.label.strip().casefold() == wanted
            ):
                return ref
        return None


def _copy(content: Mapping[str, Any]) -> Content:
    return copy.deepcopy(dict(content))
