"""The ref table: one ``RefEntry`` per ref, the counters that number new refs, the turn, and
the content of generated artifacts (``artifacts.py`` says how that content lives and dies).

The table is stored as it is (``ConversationState.registry``) and crosses Temporal whole
(a workflow's working copy) or as a ``RegistryDelta`` (what an activity changed). It does
no I/O, reads no clock and draws no random numbers: every output depends only on the
sequence of calls made. Counters only grow, so a ref names one entity for the whole
session. Entries are frozen, so copies share them and a change replaces an entry whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, PrivateAttr

from domain.kitchen.entities import BY_TYPE
from domain.registry.refs import (
    GEN,
    UI_ACTIONS,
    PendingRefError,
    UnknownRefError,
    canonical_uuid,
    is_ref,
    parse_ref,
)
from domain.registry.translate import RowTranslator, entity_of_table, row_label

PROMPT_TURNS = 6
"""How many turns back a prompt's copy of the table looks (``for_prompt``)."""

Content = dict[str, JsonValue]


class RefEntry(BaseModel):
    """One ref: the row it names and what the conversation did with it (seed 001)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str
    """The entity type (``recipe``, ``inv`` ...; ``domain.kitchen.entities``)."""
    uuid: str | None = None
    """The row's UUID; None for generated content not saved yet."""
    label: str = ""
    action: str = ""
    """What last happened to it: ``read``, ``created``, ``generated``, ``linked``,
    ``updated:user`` ... (seed 001, "Action Tags Reference")."""
    created: int = 0
    """The turn it was first seen."""
    last_ref: int = 0
    """The turn that last referenced it."""
    promoted: int | None = None
    """The turn its generated content was saved."""
    active_reason: str | None = None
    """Why Understand keeps it in context beyond the recent turns."""
    detail: Literal["full", "summary"] | None = None
    """How much of the row a read showed, for detail-tracked types; never goes down."""


class RegistryDelta(BaseModel):
    """What changed in a table (``delta_since``; ``apply_delta``): what an activity sends
    back instead of the whole table. Also the whole entries of some refs (``entries_of``)."""

    model_config = ConfigDict(extra="forbid")

    entries: dict[str, RefEntry | None] = Field(default_factory=dict)
    """Entries added or changed, whole; None: the ref is forgotten."""
    counters: dict[str, int] = Field(default_factory=dict)
    artifacts: dict[str, Content | None] = Field(default_factory=dict)
    """Generated content stored or revised; None: dropped."""
    turn: int | None = None


class RefTable(BaseModel):
    """Refs and their entries for one conversation, and the counters behind new refs."""

    model_config = ConfigDict(extra="forbid")

    entries: dict[str, RefEntry] = Field(default_factory=dict)
    """Entries by ref, in the order this copy met them (a table read back from PostgreSQL
    comes in JSONB's order of keys: shorter first)."""
    counters: dict[str, int] = Field(default_factory=dict)
    """The last number given per prefix (``recipe``, ``gen_recipe``)."""
    artifacts: dict[str, Content] = Field(default_factory=dict)
    """Generated content by its ``gen_`` ref, until saved (``artifacts.py``)."""
    turn: int = 0
    """The current turn (the caller owns the numbering)."""
    _by_uuid: dict[str, str] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        self._by_uuid = {e.uuid: ref for ref, e in self.entries.items() if e.uuid is not None}

    def begin_turn(self, turn: int) -> None:
        self.turn = turn

    # ------------------------------------------------------------------ lookups

    def entry(self, ref: str) -> RefEntry:
        """The entry of ``ref``; UnknownRefError when the table has none."""
        try:
            return self.entries[ref]
        except KeyError:
            raise UnknownRefError(ref) from None

    def label(self, ref: str) -> str:
        return self.entry(ref).label

    def type_of(self, ref: str) -> str:
        return self.entry(ref).type

    def action(self, ref: str) -> str:
        return self.entry(ref).action

    def last_referenced(self, ref: str) -> int | None:
        """The last turn that referenced ``ref`` (None: unknown ref)."""
        entry = self.entries.get(ref)
        return entry.last_ref if entry is not None else None

    def known_refs(self) -> list[str]:
        """Every ref the table knows, in ``entries`` order."""
        return list(self.entries)

    def ref_of(self, uuid: object) -> str | None:
        """The ref of a row's UUID (any spelling), or None when it has none here."""
        canonical = canonical_uuid(uuid)
        return self._by_uuid.get(canonical) if canonical is not None else None

    def resolve(self, ref: str) -> str:
        """The database UUID behind ``ref``.

        Raises:
            UnknownRefError: the table does not know ``ref``.
            PendingRefError: ``ref`` is generated content that was never saved.
        """
        uuid = self.entry(ref).uuid
        if uuid is None:
            raise PendingRefError(ref)
        return uuid

    def translate_value(self, value: Any) -> Any:
        """An id-like input value from the model as the database expects it: refs become
        UUIDs, lists are translated item by item, anything else (UUIDs too) passes."""
        if isinstance(value, list):
            return [self.translate_value(item) for item in value]
        return self.resolve(value) if is_ref(value) else value

    # ------------------------------------------------------------------ registration

    def ref_for_uuid(self, uuid: str, type_name: str, *, action: str, label: str = "") -> str:
        """The ref of ``uuid``, assigning the next ``{type}_{n}`` the first time it is seen.

        A known UUID keeps its ref; ``action`` and a non-empty ``label`` replace the
        stored ones and the ref counts as referenced this turn.

        Raises:
            ValueError: ``uuid`` is not a UUID or the type is unknown.
        """
        canonical = canonical_uuid(uuid)
        if canonical is None:
            raise ValueError(f"not a UUID: {uuid!r}")
        if type_name not in BY_TYPE:
            raise ValueError(f"unknown entity type {type_name!r}")
        ref = self._by_uuid.get(canonical)
        if ref is None:
            return self._add(type_name, uuid=canonical, label=label, action=action)
        entry = self.entries[ref]
        self.amend(
            ref, label=label or entry.label, action=action or entry.action, last_ref=self.turn
        )
        return ref

    def register_from_ui(
        self, uuid: str, table: str, record: Mapping[str, Any] | None, action: str
    ) -> str:
        """Register an entity the user created, edited, deleted or @-mentioned in the UI."""
        if action not in UI_ACTIONS:
            raise ValueError(f"UI action must be one of {UI_ACTIONS}, got {action!r}")
        entity = entity_of_table(table)
        label = row_label(self, entity, record) if record else ""
        return self.ref_for_uuid(uuid, entity.type_name, action=action, label=label)

    def amend(self, ref: str, **changes: Any) -> None:
        """Replace fields of the entry of ``ref`` (``RefEntry``'s names)."""
        self._put(ref, self.entry(ref).model_copy(update=changes))

    def touch(self, ref: str) -> None:
        """Count ``ref`` as referenced in the current turn (keeps it in the active window)."""
        self.amend(ref, last_ref=self.turn)

    def translate_read_output(
        self, records: list[dict[str, Any]], table: str, *, action: str = "read"
    ) -> list[dict[str, Any]]:
        """``records`` as the model sees them (``RowTranslator``), FKs not enriched."""
        return RowTranslator(self, action=action).rows(records, table)

    # ------------------------------------------------------------------ the active window

    def get_active_entities(self, turns_window: int = 2) -> tuple[list[str], list[str]]:
        """Split the refs worth showing the model into recent and retained ones.

        Recent refs were referenced within the last ``turns_window`` turns (the
        current turn included). Retained refs are older but carry an active reason
        set by Understand. Both lists are ordered by last-referenced turn, then ref
        number, then ref name, so identical states always give identical lists.
        """
        if turns_window < 1:
            raise ValueError("turns_window must be at least 1")
        cutoff = self.turn - turns_window + 1
        recent = [r for r, e in self.entries.items() if e.last_ref >= cutoff]
        retained = [
            r
            for r, e in self.entries.items()
            if e.last_ref < cutoff and e.active_reason is not None
        ]
        return sorted(recent, key=self._activity_key), sorted(retained, key=self._activity_key)

    def set_active_reason(self, ref: str, reason: str) -> None:
        """Keep ``ref`` in context beyond the recency window, with the reason why."""
        self.amend(ref, active_reason=reason)

    def clear_active_reason(self, ref: str) -> None:
        """Let ``ref`` fall out of context once it leaves the window (idempotent)."""
        if ref in self.entries:
            self.amend(ref, active_reason=None)

    def remove_ref(self, ref: str) -> None:
        """Forget ``ref`` entirely. Counters are untouched, so its number is never reused."""
        entry = self.entries.pop(ref, None)
        if entry is not None and entry.uuid is not None:
            self._by_uuid.pop(entry.uuid, None)
        self.artifacts.pop(ref, None)

    def clear_all(self) -> None:
        """Forget every ref ("start over"); counters and turn are kept."""
        self.entries.clear()
        self.artifacts.clear()
        self._by_uuid.clear()

    # ------------------------------------------------------------------ copies and deltas

    def recent_refs(self, after_turn: int) -> list[str]:
        """Refs referenced after ``after_turn``, refs with an active reason, unsaved ones."""
        return [
            ref
            for ref, e in self.entries.items()
            if e.last_ref > after_turn or e.active_reason is not None or e.uuid is None
        ]

    def for_prompt(self, recent_turns: int = PROMPT_TURNS) -> Self:
        """A copy holding only the refs a prompt can show, for LLM activity inputs.

        Kept: refs referenced in the last ``recent_turns`` turns (the registry table, the
        conversation's annotations and the active window all look back less far), refs
        with an active reason, and unsaved artifacts. Anything that resolves or writes refs
        (CRUD) uses the whole table; prompts built from this copy are the same as from
        the whole one.
        """
        return self.only(self.recent_refs(self.turn - recent_turns))

    def only(self, keep: Iterable[str]) -> Self:
        """A copy with only the refs in ``keep`` and their content (counters and turn whole)."""
        entries = {ref: self.entries[ref] for ref in keep if ref in self.entries}
        return type(self)(
            entries=entries,
            counters=dict(self.counters),
            artifacts={r: c for r, c in self.artifacts.items() if r in entries},
            turn=self.turn,
        )

    def clone(self) -> Self:
        """A copy to change on its own."""
        return self.only(self.entries)

    def delta_since(self, before: RefTable) -> RegistryDelta:
        """What changed since ``before``: applied to ``before``, it gives this table."""
        return RegistryDelta(
            entries=_changed(self.entries, before.entries),
            counters={k: n for k, n in self.counters.items() if before.counters.get(k) != n},
            artifacts=_changed(self.artifacts, before.artifacts),
            turn=self.turn if self.turn != before.turn else None,
        )

    def apply_delta(self, delta: RegistryDelta) -> None:
        """Apply what an activity changed (``delta_since``), in place."""
        for ref, entry in delta.entries.items():
            if entry is None:
                self.remove_ref(ref)
            else:
                self._put(ref, entry)
        self.counters.update(delta.counters)
        for ref, content in delta.artifacts.items():
            if content is None:
                self.artifacts.pop(ref, None)
            else:
                self.artifacts[ref] = content
        if delta.turn is not None:
            self.turn = delta.turn

    def entries_of(self, refs: Iterable[str]) -> RegistryDelta:
        """The entries of ``refs`` this table knows (unknown ones are left out), for a
        working copy that may lack them (``adopt``)."""
        return RegistryDelta(entries={r: self.entries[r] for r in refs if r in self.entries})

    def adopt(self, entries: RegistryDelta) -> None:
        """Add the entries (``entries_of``) of the refs this table lacks; a ref it holds
        keeps its own entry, which may be newer (changed since the entries were read)."""
        for ref, entry in entries.entries.items():
            if entry is not None and ref not in self.entries:
                self._put(ref, entry)

    # ------------------------------------------------------------------ internals

    def _add(self, type_name: str, *, generated: bool = False, **fields: Any) -> str:
        """A new entry under the next ``{type}_{n}`` (``gen_{type}_{n}``)."""
        prefix = f"{GEN}{type_name}" if generated else type_name
        number = self.counters.get(prefix, 0) + 1
        self.counters[prefix] = number
        ref = f"{prefix}_{number}"
        self._put(ref, RefEntry(type=type_name, created=self.turn, last_ref=self.turn, **fields))
        return ref

    def _put(self, ref: str, entry: RefEntry) -> None:
        self.entries[ref] = entry
        if entry.uuid is not None:
            self._by_uuid[entry.uuid] = ref

    def _activity_key(self, ref: str) -> tuple[int, int, str]:
        parts = parse_ref(ref)
        return (self.entries[ref].last_ref, parts.number if parts else 0, ref)


def _changed(now: dict[str, Any], then: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of ``now`` added or changed since ``then``, and None for the ones gone."""
    changed: dict[str, Any] = {k: v for k, v in now.items() if then.get(k) != v}
    changed.update((k, None) for k in then if k not in now)
    return changed
