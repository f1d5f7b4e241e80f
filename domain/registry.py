"""SessionIdRegistry: the session's map between database UUIDs and the refs the model sees.

The model never sees a UUID. Every entity that enters a conversation gets a short,
stable ref (``recipe_1``, ``inv_4``); content the model generated but nobody saved yet
gets a ``gen_`` ref (``gen_recipe_1``) whose UUID is the ``PENDING`` placeholder.
The registry also remembers, per ref, how the entity arrived (its action tag), its
label, when it was first and last referenced, and whether a recipe was read in full.

The module is pure on purpose: it is rebuilt from ``to_dict()`` output inside
workflows and activities alike, so it does no I/O, reads no clock and draws no
random numbers, and every output depends only on the sequence of calls made.
Counters only ever grow, so a ref names one entity for the whole session.
"""

from __future__ import annotations

import copy
import functools
import re
import uuid as uuid_lib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Literal, NamedTuple, NotRequired, get_origin, get_type_hints

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    create_model,
    model_serializer,
)
from typing_extensions import TypedDict  # pydantic validates typing's only on 3.12+

from domain.kitchen.entities import (
    BY_TABLE,
    BY_TYPE,
    NAME_COLUMN,
    EntityType,
    compute_label,
    detect_detail_level,
)

__all__ = [
    "ACTIONS",
    "PENDING",
    "UI_ACTIONS",
    "PendingRefError",
    "SessionIdRegistry",
    "UnknownRefError",
    "is_ref",
    "is_uuid",
]

PENDING = "__pending__"
"""UUID placeholder of a generated artifact that has not been saved yet."""

PROMPT_TURNS = 6
"""How many turns back a prompt's registry copy looks (``for_prompt``)."""
PER_REF_FIELDS = (
    "ref_to_uuid",
    "pending_artifacts",
    "ref_actions",
    "ref_labels",
    "ref_types",
    "ref_detail_tracking",
    "ref_turn_created",
    "ref_turn_last_ref",
    "ref_source_step",
    "ref_turn_promoted",
    "ref_active_reason",
)
"""The registry's fields keyed by ref."""

UI_ACTIONS: tuple[str, ...] = ("created:user", "updated:user", "deleted:user", "mentioned:user")
"""Action tags for changes the user made in the frontend (or an @-mention in chat)."""

_AI_ACTIONS = ("read", "created", "updated", "deleted", "generated", "linked")
ACTIONS: tuple[str, ...] = _AI_ACTIONS + UI_ACTIONS
"""Every action tag a ref can carry (seed 001, "Action Tags Reference")."""

_GEN_PREFIX = "gen_"
_UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")


class UnknownRefError(ValueError):
    """A ref the registry has never assigned (or has since forgotten) was used."""

    def __init__(self, ref: object) -> None:
        super().__init__(f"unknown ref {ref!r}")
        self.ref = ref


class PendingRefError(ValueError):
    """A ``gen_`` ref that is not saved yet was used where a database id is needed."""

    def __init__(self, ref: str) -> None:
        super().__init__(
            f"ref {ref!r} is generated content that is not saved yet; "
            "save it first (db_create) before using it as a database id"
        )
        self.ref = ref


class _RefParts(NamedTuple):
    type_name: str
    number: int
    generated: bool


def _parse_ref(value: object) -> _RefParts | None:
    """Split ``gen_recipe_2`` into ``("recipe", 2, True)``; None for anything else."""
    if not isinstance(value, str) or "_" not in value:
        return None
    prefix, _, digits = value.rpartition("_")
    # isascii() guards against str.isdigit() accepting characters such as "²".
    if not (digits.isascii() and digits.isdigit()):
        return None
    generated = prefix.startswith(_GEN_PREFIX)
    type_name = prefix[len(_GEN_PREFIX) :] if generated else prefix
    if type_name not in BY_TYPE:
        return None
    return _RefParts(type_name, int(digits), generated)


_REF_TOKEN = re.compile(r"\b(?:gen_)?[a-z]+_\d+\b")


def refs_in_text(text: str) -> list[str]:
    """The ref tokens in a piece of prose, in order (``"saved recipe_2"`` → ``[recipe_2]``)."""
    return [m.group(0) for m in _REF_TOKEN.finditer(text) if is_ref(m.group(0))]


def is_ref(value: object) -> bool:
    """Whether ``value`` has the shape of a ref of a known type (``ri_10``, ``gen_recipe_2``)."""
    return _parse_ref(value) is not None


def is_uuid(value: object) -> bool:
    """Whether ``value`` is a UUID string in canonical 8-4-4-4-12 form."""
    return isinstance(value, str) and len(value) == 36 and _UUID_RE.match(value) is not None


def _canonical_uuid(value: object) -> str | None:
    """The lower-case string form of a UUID value, or None when ``value`` is no UUID.

    Lower-casing keeps one UUID from getting two refs just because two code paths
    spelled it differently; ``uuid.UUID`` objects are accepted for the same reason.
    """
    if isinstance(value, uuid_lib.UUID):
        return str(value)
    if is_uuid(value):
        return str(value).lower()
    return None


def _entity_for_table(table: str) -> EntityType:
    try:
        return BY_TABLE[table]
    except KeyError:
        raise ValueError(f"no entity type is stored in table {table!r}") from None


def _entity_for_type(type_name: str) -> EntityType:
    try:
        return BY_TYPE[type_name]
    except KeyError:
        raise ValueError(f"unknown entity type {type_name!r}") from None


def _label_key(fk_field: str) -> str:
    return f"_{fk_field}_label"


def _fields_of(data: Mapping[str, Any] | BaseModel | None) -> Mapping[str, Any]:
    """A snapshot's fields by name (a ``to_dict`` mapping as it is; None: nothing)."""
    if isinstance(data, RegistrySnapshot):
        return {name: getattr(data, name) for name in RegistrySnapshot.model_fields}
    return data or {}


class DetailTracking(TypedDict):
    """How much of a row a read showed: ``full`` (and the turn it was read in full) or a
    summary level (``domain.kitchen.entities.detect_detail_level``)."""

    level: str
    full_turn: NotRequired[int]


@dataclass
class SessionIdRegistry:
    """Refs, their UUIDs and their metadata for one conversation session.

    Every ``dict`` field below is persisted by ``to_dict``; the enrichment queue is
    transient because it only lives between a read and the enrichment that follows it.
    """

    session_id: str = ""
    ref_to_uuid: dict[str, str] = field(default_factory=dict)
    uuid_to_ref: dict[str, str] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    gen_counters: dict[str, int] = field(default_factory=dict)
    pending_artifacts: dict[str, dict[str, JsonValue]] = field(default_factory=dict)
    ref_actions: dict[str, str] = field(default_factory=dict)
    ref_labels: dict[str, str] = field(default_factory=dict)
    ref_types: dict[str, str] = field(default_factory=dict)
    ref_detail_tracking: dict[str, DetailTracking] = field(default_factory=dict)
    ref_turn_created: dict[str, int] = field(default_factory=dict)
    ref_turn_last_ref: dict[str, int] = field(default_factory=dict)
    ref_source_step: dict[str, int] = field(default_factory=dict)
    ref_turn_promoted: dict[str, int] = field(default_factory=dict)
    ref_active_reason: dict[str, str] = field(default_factory=dict)
    current_turn: int = 0
    _lazy_enrich_queue: dict[str, tuple[str, str, str]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    # ------------------------------------------------------------------ turns & state

    def begin_turn(self, turn: int) -> None:
        """Make ``turn`` the current turn; the caller owns the numbering."""
        self.current_turn = turn

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serializable copy of the persistent state (the enrichment queue is left out)."""
        data: dict[str, Any] = {}
        for f in fields(self):
            if f.name.startswith("_"):
                continue
            # Deep copies so that a caller editing the snapshot cannot reach into us.
            data[f.name] = copy.deepcopy(getattr(self, f.name))
        return data

    def snapshot(self) -> RegistrySnapshot:
        """The typed snapshot of ``to_dict``, for a model field."""
        return RegistrySnapshot.model_construct(**self.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | RegistrySnapshot | None) -> SessionIdRegistry:
        """Rebuild a registry from ``to_dict`` output.

        Missing keys fall back to their defaults, so states saved before a field
        existed still load; ``None`` and ``{}`` give an empty registry.
        """
        data = _fields_of(data)
        registry = cls()
        for f in fields(registry):
            if f.name.startswith("_") or f.name not in data or data[f.name] is None:
                continue
            setattr(registry, f.name, copy.deepcopy(data[f.name]))
        return registry

    def delta_since(self, before: Mapping[str, Any] | RegistrySnapshot) -> RegistryDelta:
        """What changed since ``before`` (a ``to_dict`` snapshot): per field, the keys
        added or changed with their new values and the keys removed, and the scalars that
        changed. Applied to ``before``, it gives this registry (``apply_delta``)."""
        before = _fields_of(before)
        changed: dict[str, dict[str, Any]] = {}
        removed: dict[str, list[str]] = {}
        for name in MAP_FIELDS:
            now = getattr(self, name)  # read, not copied: the delta is sent
            then = before.get(name)
            then = then if isinstance(then, dict) else {}
            added = {k: v for k, v in now.items() if k not in then or then[k] != v}
            gone = [k for k in then if k not in now]
            if added:
                changed[name] = added
            if gone:
                removed[name] = gone
        scalars = {
            name: getattr(self, name)
            for name in SCALAR_FIELDS
            if getattr(self, name) != before.get(name)
        }
        return RegistryDelta(
            changed=RegistryMaps.model_construct(**changed),
            removed=removed,
            scalars=RegistryScalars.model_construct(**scalars),
        )

    def apply_delta(self, delta: RegistryDelta) -> None:
        """Apply what an activity changed (``delta_since``), in place."""
        for name, keys in delta.removed.items():
            target = getattr(self, name)
            for key in keys:
                target.pop(key, None)
        for name, changed in delta.changed.nonempty():
            getattr(self, name).update(copy.deepcopy(changed))
        for name, value in delta.scalars.given():
            setattr(self, name, value)

    def for_prompt(self, recent_turns: int = PROMPT_TURNS) -> SessionIdRegistry:
        """A copy holding only the refs a prompt can show, for LLM activity inputs.

        Kept: refs referenced in the last ``recent_turns`` turns (the registry table, the
        conversation's annotations and the active window all look back less far), refs
        with an active reason, and unsaved artifacts. Anything that resolves or writes refs
        (CRUD) uses the whole registry; prompts built from this copy are the same as from
        the whole one.
        """
        return self.only(self.recent_refs(self.current_turn - recent_turns))

    def recent_refs(self, after_turn: int) -> list[str]:
        """Refs referenced after ``after_turn``, refs with an active reason, unsaved ones."""
        return [
            ref
            for ref in self.ref_to_uuid
            if (self.last_referenced(ref) or -1) > after_turn
            or ref in self.ref_active_reason
            or self.ref_to_uuid[ref] == PENDING
        ]

    def only(self, keep: Iterable[str]) -> SessionIdRegistry:
        """A copy with only the refs in ``keep`` (counters, turn and session id whole).

        The copy's counters cover every ref of this registry: a copy cannot skip a number
        it does not hold, so counters that lag behind their refs (states saved by older
        code) would hand out a live ref again."""
        keep = [ref for ref in keep if ref in self.ref_to_uuid]
        copy_ = SessionIdRegistry(
            session_id=self.session_id,
            counters=dict(self.counters),
            gen_counters=dict(self.gen_counters),
            current_turn=self.current_turn,
        )
        for ref in self.ref_to_uuid:
            parts = _parse_ref(ref)
            if parts is not None:
                counters = copy_.gen_counters if parts.generated else copy_.counters
                if counters.get(parts.type_name, 0) < parts.number:
                    counters[parts.type_name] = parts.number
        for ref in keep:
            uuid = self.ref_to_uuid[ref]
            copy_.ref_to_uuid[ref] = uuid
            if uuid != PENDING:
                copy_.uuid_to_ref[uuid] = ref
        for mine, theirs in zip(self._per_ref_dicts(), copy_._per_ref_dicts(), strict=True):
            for ref in keep:
                if ref in mine:
                    theirs[ref] = copy.deepcopy(mine[ref])
        return copy_

    def entries_of(self, refs: Iterable[str]) -> RegistryDelta:
        """The whole entries of ``refs`` this registry knows (unknown ones are left out), as
        a delta that adds them to a copy lacking them (a working copy) and leaves one
        holding them as it is."""
        entries = self.only(refs).delta_since({})
        kept = {
            name: changed
            for name, changed in entries.changed.nonempty()
            if name in PER_REF_FIELDS or name == "uuid_to_ref"
        }
        return RegistryDelta(changed=RegistryMaps.model_construct(**kept))

    def adopt(self, entries: RegistryDelta) -> None:
        """Add the entries (``entries_of``) of the refs this registry lacks; a ref it holds
        keeps its own entry, which may be newer (changed since the entries were read)."""
        lacking = [ref for ref in self.refs_in(entries) if ref not in self.ref_to_uuid]
        if not lacking:
            return
        wanted = set(lacking)
        kept: dict[str, dict[str, Any]] = {}
        for name, changed in entries.changed.nonempty():
            if name == "uuid_to_ref":
                kept[name] = {u: ref for u, ref in changed.items() if ref in wanted}
            else:
                kept[name] = {ref: v for ref, v in changed.items() if ref in wanted}
        self.apply_delta(RegistryDelta(changed=RegistryMaps.model_construct(**kept)))

    def refs_in(self, delta: RegistryDelta) -> list[str]:
        """The refs ``delta`` adds or changes an entry of, in first-seen order."""
        seen: dict[str, None] = {}
        for name, changed in delta.changed.nonempty():
            if name == "uuid_to_ref":
                seen.update(dict.fromkeys(changed.values()))
            elif name in PER_REF_FIELDS:
                seen.update(dict.fromkeys(changed))
        return list(seen)

    # ------------------------------------------------------------------ registration

    def ref_for_uuid(
        self,
        uuid: str,
        type_name: str,
        *,
        action: str,
        label: str = "",
        step: int | None = None,
    ) -> str:
        """The ref of ``uuid``, assigning the next ``{type}_{n}`` the first time it is seen.

        A known UUID keeps its ref; ``action`` and a non-empty ``label`` replace the
        stored ones and the ref counts as referenced this turn.

        Raises:
            ValueError: ``uuid`` is not a UUID (``PENDING`` included) or the type is unknown.
        """
        canonical = _canonical_uuid(uuid)
        if canonical is None:
            raise ValueError(f"not a UUID: {uuid!r}")
        _entity_for_type(type_name)
        ref = self.uuid_to_ref.get(canonical)
        if ref is None:
            ref = self._next_ref(type_name, generated=False)
            self.ref_to_uuid[ref] = canonical
            self.uuid_to_ref[canonical] = ref
            self.ref_types[ref] = type_name
            self.ref_labels[ref] = label
        elif label:
            self.ref_labels[ref] = label
        if action:
            self.ref_actions[ref] = action
        self._note_seen(ref, step)
        return ref

    def register_generated(
        self,
        type_name: str,
        content: Mapping[str, Any],
        *,
        label: str = "",
        step: int | None = None,
    ) -> str:
        """Give freshly generated content a ``gen_{type}_{n}`` ref and keep a copy of it.

        The content stays in ``pending_artifacts`` so it can be shown, revised and
        finally saved in a later turn ("generate now, save later").
        """
        _entity_for_type(type_name)
        ref = self._next_ref(type_name, generated=True)
        self.ref_to_uuid[ref] = PENDING
        self.ref_types[ref] = type_name
        self.ref_actions[ref] = "generated"
        self.ref_labels[ref] = label or compute_label(type_name, content)
        self.pending_artifacts[ref] = copy.deepcopy(dict(content))
        self._note_seen(ref, step)
        return ref

    def register_created(
        self,
        uuid: str,
        table: str,
        record: Mapping[str, Any],
        *,
        gen_ref: str | None = None,
        step: int | None = None,
    ) -> str:
        """Register a row the AI just inserted, promoting its ``gen_`` ref when it has one.

        The generated artifact is found through ``gen_ref`` or, failing that, as the
        first still-pending artifact of the same type whose label equals the new
        record's label (case-insensitive). A promoted ref keeps its name and now
        resolves to ``uuid``; its content stays available until
        ``clear_turn_promoted_artifacts`` so linked rows can still be built from it.

        Raises:
            ValueError: ``gen_ref`` is not a pending gen ref of this table's type, or
                ``uuid`` already belongs to a different ref.
        """
        entity = _entity_for_table(table)
        canonical = _canonical_uuid(uuid)
        if canonical is None:
            raise ValueError(f"not a UUID: {uuid!r}")
        label = self._label_of_row(entity, record)
        existing = self.uuid_to_ref.get(canonical)
        if existing is not None and gen_ref is not None and existing != gen_ref:
            raise ValueError(f"{uuid!r} is already registered as {existing!r}, not {gen_ref!r}")
        if existing is not None:
            # A repeated notification for the same row: keep its ref (idempotent).
            return self.ref_for_uuid(canonical, entity.type_name, action="created", label=label)
        if gen_ref is not None:
            self._check_pending_gen_ref(gen_ref, entity.type_name)
        else:
            gen_ref = self._find_pending_by_label(entity.type_name, label)
        if gen_ref is None:
            return self.ref_for_uuid(
                canonical, entity.type_name, action="created", label=label, step=step
            )
        self.ref_to_uuid[gen_ref] = canonical
        self.uuid_to_ref[canonical] = gen_ref
        self.ref_actions[gen_ref] = "created"
        if label:
            self.ref_labels[gen_ref] = label
        self.ref_turn_promoted[gen_ref] = self.current_turn
        self._note_seen(gen_ref, step)
        return gen_ref

    def register_from_ui(
        self, uuid: str, table: str, record: Mapping[str, Any] | None, action: str
    ) -> str:
        """Register an entity the user created, edited, deleted or @-mentioned in the UI."""
        if action not in UI_ACTIONS:
            raise ValueError(f"UI action must be one of {UI_ACTIONS}, got {action!r}")
        entity = _entity_for_table(table)
        label = self._label_of_row(entity, record) if record else ""
        return self.ref_for_uuid(uuid, entity.type_name, action=action, label=label)

    def mark_action(self, ref: str, action: str) -> None:
        """Record what the AI just did to ``ref`` (``"updated"``, ``"deleted"`` ...)."""
        self._require_known(ref)
        if action not in ACTIONS:
            raise ValueError(f"unknown action tag {action!r}")
        self.ref_actions[ref] = action
        self.touch(ref)

    def touch(self, ref: str) -> None:
        """Count ``ref`` as referenced in the current turn (keeps it in the active window)."""
        self._require_known(ref)
        self.ref_turn_last_ref[ref] = self.current_turn

    # ------------------------------------------------------------------ resolution

    def resolve(self, ref: str) -> str:
        """The database UUID behind ``ref``.

        Raises:
            UnknownRefError: the registry does not know ``ref``.
            PendingRefError: ``ref`` is generated content that was never saved.
        """
        uuid = self.ref_to_uuid.get(ref)
        if uuid is None:
            raise UnknownRefError(ref)
        if uuid == PENDING:
            raise PendingRefError(ref)
        return uuid

    def translate_value(self, value: Any) -> Any:
        """Turn an id-like input value from the model into what the database expects.

        Refs become UUIDs, lists are translated element by element, and everything
        else (raw UUIDs included) passes through unchanged.
        """
        if isinstance(value, list):
            return [self.translate_value(item) for item in value]
        if is_ref(value):
            return self.resolve(value)
        return value

    # ------------------------------------------------------------------ reads

    def translate_read_output(
        self,
        records: list[dict[str, Any]],
        table: str,
        *,
        step: int | None = None,
        action: str = "read",
    ) -> list[dict[str, Any]]:
        """Rewrite database rows for the model: UUIDs become refs, ``user_id`` disappears.

        Each row's ``id`` gets (or reuses) a ref tagged ``action`` (``"read"``, or the write
        that returned the row: ``"created"``, ``"updated"``, ``"deleted"``). FK columns become
        refs too, with a ``_<fk>_label`` next to them when the target's label is known;
        a target never seen before is registered as ``"linked"`` and queued for name
        enrichment. Nested relations (a recipe's ``recipe_ingredients``) are translated
        the same way. The input is not modified; new dicts are returned.

        Detail levels only go up: a summary read after a full read leaves the ref at
        ``"full"`` with the turn of its last full read, because the model has already
        seen the full record and its data cannot have shrunk by being read again.
        """
        entity = _entity_for_table(table)
        return [self._translate_record(record, entity, step, action) for record in records]

    def lazy_enrich_queue(self) -> dict[str, tuple[str, str, str]]:
        """Refs awaiting a name, as ``{ref: (table, name_column, uuid)}`` in queue order."""
        return dict(self._lazy_enrich_queue)

    def apply_enrichment(self, labels: Mapping[str, str]) -> None:
        """Store names fetched for queued refs and take them off the queue.

        Refs the registry no longer knows (dropped since they were queued) are ignored.
        """
        for ref, label in labels.items():
            self._lazy_enrich_queue.pop(ref, None)
            if ref in self.ref_to_uuid and label:
                self.ref_labels[ref] = str(label)

    def add_enriched_labels(
        self, records: list[dict[str, Any]], table: str
    ) -> list[dict[str, Any]]:
        """Add ``_<fk>_label`` keys for FK refs whose label is now known (new dicts).

        A row's own label is recomputed as well, because some labels are built from
        their FK labels (a cooking-log entry is labelled by its recipe's name).
        """
        entity = _entity_for_table(table)
        return [self._label_record(record, entity) for record in records]

    def reroute_pending_read(self, table: str, ids: list[str]) -> list[dict[str, Any]] | None:
        """Serve a read of unsaved generated content from memory instead of the database.

        Returns copies of the artifacts (each with ``"id"`` set to its gen ref) when
        every id is a still-pending gen ref of this table's type; otherwise None, and
        the caller reads the database (a promoted gen ref resolves to its real UUID).
        """
        entity = BY_TABLE.get(table)
        if entity is None or not ids:
            return None
        for ref in ids:
            parts = _parse_ref(ref)
            if (
                parts is None
                or not parts.generated
                or parts.type_name != entity.type_name
                or self.ref_to_uuid.get(ref) != PENDING
                or ref not in self.pending_artifacts
            ):
                return None
        rows = []
        for ref in ids:
            content = copy.deepcopy(self.pending_artifacts[ref])
            content.pop("id", None)
            rows.append({"id": ref, **content})
            self.touch(ref)
        return rows

    # ------------------------------------------------------------------ pending artifacts

    def get_entity_data(self, ref: str) -> dict[str, Any] | None:
        """A copy of the stored content of a generated artifact, or None."""
        content = self.pending_artifacts.get(ref)
        return copy.deepcopy(content) if content is not None else None

    def update_entity_data(self, ref: str, content: Mapping[str, Any]) -> None:
        """Replace the content of a still-unsaved generated artifact, keeping its ref.

        Used when the user revises generated content ("add feta") before saving it.
        The label is recomputed from the new content (kept if the content has none).

        Raises:
            ValueError: ``ref`` is not a gen ref, is unknown, or was already saved.
        """
        parts = _parse_ref(ref)
        if parts is None or not parts.generated:
            raise ValueError(f"{ref!r} is not a generated (gen_) ref")
        self._require_known(ref)
        if self.ref_to_uuid[ref] != PENDING:
            raise ValueError(f"{ref!r} is already saved; update the database record instead")
        self.pending_artifacts[ref] = copy.deepcopy(dict(content))
        label = compute_label(parts.type_name, content)
        if label:
            self.ref_labels[ref] = label
        self.touch(ref)

    def get_all_pending_artifacts(self) -> dict[str, dict[str, Any]]:
        """Copies of every stored artifact, saved-this-turn ones included."""
        return copy.deepcopy(self.pending_artifacts)

    def get_truly_pending_artifacts(self) -> dict[str, dict[str, Any]]:
        """Copies of the artifacts that are not saved yet.

        "Not saved" means the ref still maps to ``PENDING``; that is the same set as
        action != ``"created"`` except that a saved ref later tagged ``"updated"``
        is still (correctly) treated as saved.
        """
        return {
            ref: copy.deepcopy(content)
            for ref, content in self.pending_artifacts.items()
            if self.ref_to_uuid.get(ref) == PENDING
        }

    def get_just_promoted_artifacts(self) -> dict[str, dict[str, Any]]:
        """Copies of the artifacts saved during the current turn."""
        return {
            ref: copy.deepcopy(content)
            for ref, content in self.pending_artifacts.items()
            if self.ref_turn_promoted.get(ref) == self.current_turn
        }

    def clear_turn_promoted_artifacts(self) -> list[str]:
        """Drop the stored content of artifacts saved in this turn or earlier.

        The refs themselves stay (they now name database rows). Returns the refs
        whose content was dropped, in storage order.
        """
        cleared = [
            ref
            for ref in self.pending_artifacts
            if ref in self.ref_turn_promoted and self.ref_turn_promoted[ref] <= self.current_turn
        ]
        for ref in cleared:
            del self.pending_artifacts[ref]
        return cleared

    def clear_pending_artifact(self, ref: str) -> None:
        """Drop the stored content of one artifact (no-op when there is none)."""
        self.pending_artifacts.pop(ref, None)

    # ------------------------------------------------------------------ active context

    def get_active_entities(self, turns_window: int = 2) -> tuple[list[str], list[str]]:
        """Split the refs worth showing the model into recent and retained ones.

        Recent refs were referenced within the last ``turns_window`` turns (the
        current turn included). Retained refs are older but carry an active reason
        set by Understand. Both lists are ordered by last-referenced turn, then ref
        number, then ref name, so identical states always give identical lists.
        """
        if turns_window < 1:
            raise ValueError("turns_window must be at least 1")
        cutoff = self.current_turn - turns_window + 1
        recent: list[str] = []
        retained: list[str] = []
        for ref in self.ref_to_uuid:
            last = self.last_referenced(ref)
            if last is not None and last >= cutoff:
                recent.append(ref)
            elif ref in self.ref_active_reason:
                retained.append(ref)
        return sorted(recent, key=self._activity_key), sorted(retained, key=self._activity_key)

    def set_active_reason(self, ref: str, reason: str) -> None:
        """Keep ``ref`` in context beyond the recency window, with the reason why."""
        self._require_known(ref)
        self.ref_active_reason[ref] = reason

    def clear_active_reason(self, ref: str) -> None:
        """Let ``ref`` fall out of context once it leaves the window (idempotent)."""
        self.ref_active_reason.pop(ref, None)

    def remove_ref(self, ref: str) -> None:
        """Forget ``ref`` entirely. Counters are untouched, so its number is never reused."""
        uuid = self.ref_to_uuid.pop(ref, None)
        if uuid is not None and self.uuid_to_ref.get(uuid) == ref:
            del self.uuid_to_ref[uuid]
        for per_ref in self._per_ref_dicts():
            per_ref.pop(ref, None)
        self._lazy_enrich_queue.pop(ref, None)

    def clear_all(self) -> None:
        """Forget every ref ("start over"); counters, turn and session id are kept."""
        for ref in list(self.ref_to_uuid):
            self.remove_ref(ref)
        # Leftovers not tied to a live ref (e.g. from a hand-edited state) go too.
        self.uuid_to_ref.clear()
        for per_ref in self._per_ref_dicts():
            per_ref.clear()
        self._lazy_enrich_queue.clear()

    # ------------------------------------------------------------------ lookups

    def label(self, ref: str) -> str:
        """The label of ``ref`` (empty when nothing names it yet)."""
        self._require_known(ref)
        return self.ref_labels.get(ref, "")

    def type_of(self, ref: str) -> str:
        """The entity type name of ``ref`` (``recipe``, ``ri`` ...)."""
        self._require_known(ref)
        return self.ref_types[ref]

    def action(self, ref: str) -> str:
        """The action tag of ``ref`` (``read``, ``generated``, ``updated:user`` ...)."""
        self._require_known(ref)
        return self.ref_actions.get(ref, "")

    def known_refs(self) -> list[str]:
        """Every ref the registry knows, in the order they were assigned."""
        return list(self.ref_to_uuid)

    # ------------------------------------------------------------------ internals

    def _next_ref(self, type_name: str, *, generated: bool) -> str:
        counters = self.gen_counters if generated else self.counters
        prefix = f"{_GEN_PREFIX}{type_name}" if generated else type_name
        number = counters.get(type_name, 0)
        # Skip numbers still in use in case a state saved by older code let a counter
        # lag behind its refs; handing out a live ref twice would merge two entities.
        while True:
            number += 1
            ref = f"{prefix}_{number}"
            if ref not in self.ref_to_uuid:
                counters[type_name] = number
                return ref

    def _note_seen(self, ref: str, step: int | None) -> None:
        """Temporal bookkeeping shared by every path that registers or reuses a ref."""
        self.ref_turn_created.setdefault(ref, self.current_turn)
        self.ref_turn_last_ref[ref] = self.current_turn
        if step is not None:
            self.ref_source_step.setdefault(ref, step)

    def _require_known(self, ref: str) -> None:
        if ref not in self.ref_to_uuid:
            raise UnknownRefError(ref)

    def _per_ref_dicts(self) -> tuple[dict[str, Any], ...]:
        return (
            self.pending_artifacts,
            self.ref_actions,
            self.ref_labels,
            self.ref_types,
            self.ref_detail_tracking,
            self.ref_turn_created,
            self.ref_turn_last_ref,
            self.ref_source_step,
            self.ref_turn_promoted,
            self.ref_active_reason,
        )

    def last_referenced(self, ref: str) -> int | None:
        """The last turn that referenced ``ref`` (its creation turn if none did)."""
        last = self.ref_turn_last_ref.get(ref)
        return last if last is not None else self.ref_turn_created.get(ref)

    def _activity_key(self, ref: str) -> tuple[int, int, str]:
        parts = _parse_ref(ref)
        last = self.last_referenced(ref)
        return (last if last is not None else -1, parts.number if parts else 0, ref)

    def _label_of_row(self, entity: EntityType, record: Mapping[str, Any]) -> str:
        """The label of a raw database row, computed as if its FKs were already refs.

        Some labels quote an FK (a cooking-log entry names its recipe); translating
        first keeps a UUID from ever leaking into a label the model reads.
        """
        view = dict(record)
        for fk in entity.fk_fields:
            target_uuid = _canonical_uuid(view.get(fk))
            if target_uuid is None:
                continue
            target = self.uuid_to_ref.get(target_uuid)
            view[fk] = target
            if target is not None and self.ref_labels.get(target):
                view.setdefault(_label_key(fk), self.ref_labels[target])
        return compute_label(entity.type_name, view)

    def _check_pending_gen_ref(self, gen_ref: str, type_name: str) -> None:
        parts = _parse_ref(gen_ref)
        if parts is None or not parts.generated or parts.type_name != type_name:
            raise ValueError(f"{gen_ref!r} is not a generated {type_name} ref")
        self._require_known(gen_ref)
        if self.ref_to_uuid[gen_ref] != PENDING:
            raise ValueError(f"{gen_ref!r} is already saved as {self.ref_to_uuid[gen_ref]!r}")

    def _find_pending_by_label(self, type_name: str, label: str) -> str | None:
        wanted = label.strip().casefold()
        if not wanted:
            return None
        for ref in self.pending_artifacts:
            if (
                self.ref_types.get(ref) == type_name
                and self.ref_to_uuid.get(ref) == PENDING
                and self.ref_labels.get(ref, "").strip().casefold() == wanted
            ):
                return ref
        return None

    def _translate_record(
        self, record: Any, entity: EntityType, step: int | None, action: str = "read"
    ) -> Any:
        if not isinstance(record, Mapping):
            return copy.deepcopy(record)
        own_uuid = _canonical_uuid(record.get("id"))
        # The row gets its ref before its FKs so refs are numbered in reading order.
        ref = (
            self.ref_for_uuid(own_uuid, entity.type_name, action=action, step=step)
            if own_uuid is not None
            else None
        )
        derived = tuple(_label_key(fk) for fk in entity.fk_fields)
        out: dict[str, Any] = {}
        nested_keys: list[str] = []
        for key, value in record.items():
            if key == "user_id" or key in derived:
                continue  # user_id is noise to the model; FK labels are rebuilt below
            if key == "id" and ref is not None:
                out[key] = ref
            elif key in entity.fk_fields:
                target = self._fk_target_ref(value, entity.fk_fields[key], step)
                self._put_fk(out, key, value if target is None else target, record)
            elif key in entity.nested and isinstance(value, list):
                out[key] = None  # placeholder keeps the key where the input had it
                nested_keys.append(key)
            else:
                out[key] = copy.deepcopy(value)
        if ref is not None:
            # The label comes before nested rows so their back-reference gets a label.
            label = compute_label(entity.type_name, out)
            if label:
                self.ref_labels[ref] = label
            self._track_detail(ref, entity.type_name, record)
        for key in nested_keys:
            child = BY_TYPE[entity.nested[key]]
            out[key] = [self._translate_record(item, child, step, action) for item in record[key]]
        return out

    def _fk_target_ref(self, value: Any, target_type: str, step: int | None) -> str | None:
        """The ref an FK value points at, lazily registering unseen UUIDs; None if no id."""
        if isinstance(value, str) and value in self.ref_to_uuid:
            return value  # already a ref (e.g. a row served from pending artifacts)
        target_uuid = _canonical_uuid(value)
        if target_uuid is None:
            return None
        ref = self.uuid_to_ref.get(target_uuid)
        if ref is None:
            ref = self.ref_for_uuid(target_uuid, target_type, action="linked", step=step)
        if not self.ref_labels.get(ref):
            # Also re-queues a ref that stayed nameless: the queue is not persisted,
            # so an enrichment lost between turns would otherwise never be retried.
            self._queue_enrichment(ref, target_type, target_uuid)
        return ref

    def _queue_enrichment(self, ref: str, type_name: str, uuid: str) -> None:
        table = BY_TYPE[type_name].table
        name_column = NAME_COLUMN.get(table)
        # A table with no name column configured cannot be named by a one-column
        # lookup; its refs keep an empty label rather than queue a doomed query.
        if name_column and ref not in self._lazy_enrich_queue:
            self._lazy_enrich_queue[ref] = (table, name_column, uuid)

    def _put_fk(self, out: dict[str, Any], key: str, value: Any, source: Mapping[str, Any]) -> None:
        """Write an FK value and, right after it, its label when one is known."""
        out[key] = copy.deepcopy(value)
        label = ""
        if isinstance(value, str) and value in self.ref_to_uuid:
            label = self.ref_labels.get(value, "")
        label = label or source.get(_label_key(key)) or ""
        if label:
            out[_label_key(key)] = label

    def _track_detail(self, ref: str, type_name: str, record: Mapping[str, Any]) -> None:
        level = detect_detail_level(type_name, record)
        if level is None:
            return
        if level == "full":
            self.ref_detail_tracking[ref] = {"level": "full", "full_turn": self.current_turn}
        elif self.ref_detail_tracking.get(ref, {}).get("level") != "full":
            self.ref_detail_tracking[ref] = {"level": level}

    def _label_record(self, record: Any, entity: EntityType) -> Any:
        if not isinstance(record, Mapping):
            return copy.deepcopy(record)
        derived = tuple(_label_key(fk) for fk in entity.fk_fields)
        out: dict[str, Any] = {}
        for key, value in record.items():
            if key in derived:
                continue
            if key in entity.fk_fields:
                self._put_fk(out, key, value, record)
            elif key in entity.nested and isinstance(value, list):
                child = BY_TYPE[entity.nested[key]]
                out[key] = [self._label_record(item, child) for item in value]
            else:
                out[key] = copy.deepcopy(value)
        ref = out.get("id")
        if isinstance(ref, str) and self.ref_types.get(ref) == entity.type_name:
            label = compute_label(entity.type_name, out)
            if label:
                self.ref_labels[ref] = label
        return out


class _DefaultsLeftOut(BaseModel):
    """How registry snapshots and deltas are written: a field at its default (an empty
    map, turn 0, no value) is left out and read back as its default, so an empty one
    crosses as ``{}``."""

    model_config = ConfigDict(extra="ignore")

    @model_serializer(mode="wrap")
    def _without_defaults(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        defaults = _written_defaults(type(self))
        return {k: v for k, v in data.items() if k not in defaults or v != defaults[k]}


@functools.cache
def _written_defaults(model: type[BaseModel]) -> dict[str, Any]:
    written = {}
    for name, info in model.model_fields.items():
        default = info.get_default(call_default_factory=True)
        written[name] = default.model_dump() if isinstance(default, BaseModel) else default
    return written


def _persistent_fields() -> dict[str, tuple[Any, Any]]:
    """``SessionIdRegistry``'s persistent fields: name, type and default, from the
    dataclass itself, so the models below cannot drift apart from it."""
    hints = get_type_hints(SessionIdRegistry)
    persistent: dict[str, tuple[Any, Any]] = {}
    for f in fields(SessionIdRegistry):
        if f.name.startswith("_"):
            continue
        has_factory = f.default_factory is not MISSING
        default = Field(default_factory=f.default_factory) if has_factory else f.default
        persistent[f.name] = (hints[f.name], default)
    return persistent


_PERSISTENT = _persistent_fields()
MAP_FIELDS = tuple(n for n, (hint, _) in _PERSISTENT.items() if get_origin(hint) is dict)
"""The registry's maps (per ref, per UUID, per type)."""
SCALAR_FIELDS = tuple(n for n in _PERSISTENT if n not in MAP_FIELDS)
"""The registry's single values (session id, current turn)."""

RegistrySnapshot = create_model(
    "RegistrySnapshot",
    __base__=_DefaultsLeftOut,
    __doc__=(
        "The registry as it is stored and crosses Temporal boundaries: the persistent "
        "fields of ``SessionIdRegistry`` (``to_dict``), typed. A state saved before a "
        "field existed loads with its default; a key no field has is left out."
    ),
    __module__=__name__,
    **_PERSISTENT,
)


class _Maps(_DefaultsLeftOut):
    model_config = ConfigDict(extra="forbid")  # the registry's maps are a closed set

    def nonempty(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Each map holding something, by name, in the registry's field order."""
        for name in MAP_FIELDS:
            value = getattr(self, name)
            if value:
                yield name, value


RegistryMaps = create_model(
    "RegistryMaps",
    __base__=_Maps,
    __doc__="Entries added or changed, per map of the registry (each typed as there).",
    __module__=__name__,
    **{name: _PERSISTENT[name] for name in MAP_FIELDS},
)


class _Scalars(_DefaultsLeftOut):
    model_config = ConfigDict(extra="forbid")

    def given(self) -> Iterator[tuple[str, Any]]:
        """Each single value that changed, by name."""
        for name in SCALAR_FIELDS:
            value = getattr(self, name)
            if value is not None:
                yield name, value


RegistryScalars = create_model(
    "RegistryScalars",
    __base__=_Scalars,
    __doc__="Single values of the registry that changed (None: unchanged).",
    __module__=__name__,
    **{name: (_PERSISTENT[name][0] | None, None) for name in SCALAR_FIELDS},
)

MapName = Literal[MAP_FIELDS]  # type: ignore[valid-type]
"""The name of one of the registry's maps."""


class RegistryDelta(_DefaultsLeftOut):
    """What an activity changed in the registry (refs registered, promoted, labelled):
    it crosses back instead of the whole registry. ``delta_since`` makes one,
    ``apply_delta`` applies it."""

    changed: RegistryMaps = Field(default_factory=RegistryMaps)  # type: ignore[valid-type]
    removed: dict[MapName, list[str]] = Field(default_factory=dict)  # type: ignore[valid-type]
    scalars: RegistryScalars = Field(default_factory=RegistryScalars)  # type: ignore[valid-type]

    def is_empty(self) -> bool:
        return not (any(self.changed.nonempty()) or self.removed or any(self.scalars.given()))
