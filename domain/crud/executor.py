"""The CRUD executor: the model's tool calls in, user-scoped SQL, refs back out.

For every call it (1) checks table, columns, operators and values against the whitelist,
(2) translates refs to UUIDs through the SessionIdRegistry (an unknown ref is an error),
(3) runs the SQL in a transaction where row-level security sees only ``user_id``'s rows,
and (4) translates the rows back so the model sees refs, never UUIDs. Writes take an
idempotency key recorded with their result in the same transaction: a repeated key returns
the recorded result and writes nothing.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import String, Table, delete, func, insert, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.exc import DataError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.crud import ingredients
from domain.crud.calls import (
    HELD_ALREADY,
    CrudResult,
    DbCreate,
    DbDelete,
    DbRead,
    DbUpdate,
    Filter,
    Row,
    cut_short,
)
from domain.crud.filters import NameMatch, compile_filter, compile_where, crossed, never_empty
from domain.crud.merge import merge_into_existing
from domain.crud.near import (
    NAMES,
    NEAR_NAMES,
    made_with_note,
    meant_note,
    name_words,
    near_note,
    planned_note,
    planned_row,
    unset_note,
)
from domain.crud.rows import (
    execute_checked,
    refused_value,
    row_to_json,
    to_json,
    visible_columns,
)
from domain.crud.validate import (
    amount_in_name,
    check_filter,
    check_row,
    convert,
    in_pieces,
    ordering,
    table_spec,
)
from domain.db.engine import user_transaction
from domain.db.models import Base, Operation
from domain.errors import CrudValidationError, MissingIdempotencyKey
from domain.kitchen.entities import BY_TABLE, BY_TYPE, compute_label
from domain.kitchen.tables import (
    HIDDEN,
    LINKED_TABLES,
    ONE_ROW_TABLES,
    TABLES,
    Column,
    TableSpec,
)
from domain.registry import (
    PendingRefError,
    RowTranslator,
    SessionIdRegistry,
    UnknownRefError,
)
from domain.registry.refs import canonical_uuid, parse_ref

DEFAULT_LIMIT = 50
SCOPED = "the filter on user_id was dropped: every row you read is the user's own"
"""A read's filter on the owner column (which no model is shown, and whose value none
knows) means "the user's rows", which every read is: the filter is dropped, with this
note. Only a read's: an update or delete that names no other row is refused."""
NESTED_ALIASES = {"recipes": {"ingredients": "recipe_ingredients"}}
"""Keys a generated artifact, or a read's ``columns``, may use for a nested relation."""


def _table(name: str) -> Table:
    return Base.metadata.tables[name]


class CrudExecutor:
    """Runs db_read / db_create / db_update / db_delete for one user at a time."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], *, max_rows: int = 200):
        self._sessions = sessions
        self._max_rows = max_rows
        self._trigram: bool | None = None

    async def execute(
        self,
        request: DbRead | DbCreate | DbUpdate | DbDelete,
        *,
        user_id: uuid.UUID | str,
        registry: SessionIdRegistry,
        idempotency_key: str | None = None,
    ) -> CrudResult:
        """Run one call. ``registry`` is updated in place with every ref the call touched."""
        try:
            if isinstance(request, DbRead):
                return await self.read(request, user_id=user_id, registry=registry)
            if not idempotency_key:
                raise MissingIdempotencyKey(f"{request.tool} needs an idempotency key")
            if isinstance(request, DbCreate):
                return await self.create(request, user_id, registry, idempotency_key)
            if isinstance(request, DbUpdate) and request.table in ONE_ROW_TABLES:
                return await self._set_one_row(request, user_id, registry, idempotency_key)
            return await self.change(request, user_id, registry, idempotency_key)
        except DataError:
            # A value validation let through (a read, a catalog look-up, the write's record):
            # the transaction is rolled back, and retrying the same call cannot succeed.
            raise refused_value(request.tool) from None

    # --- read -----------------------------------------------------------------------------

    async def read(
        self,
        request: DbRead,
        *,
        user_id: uuid.UUID | str,
        registry: SessionIdRegistry,
    ) -> CrudResult:
        spec = table_spec(request.table)
        pending = self._pending_read(spec, request, registry)
        if pending is not None:
            return CrudResult(
                tool="db_read",
                table=spec.name,
                rows=pending,
                count=len(pending),
                rerouted=True,
                notes=["served from generated content that is not saved yet"],
            )
        if request.columns is not None:  # "ingredients" is a recipe's recipe_ingredients
            aliases = NESTED_ALIASES.get(spec.name, {})
            columns = [aliases.get(c, c) for c in request.columns]
            request = request.model_copy(update={"columns": columns})
        nested = self._nested_requested(spec, request)
        selected, unknown = self._columns(spec, request.columns)
        table = _table(spec.name)
        limit = min(request.limit or DEFAULT_LIMIT, self._max_rows)
        if limit < 1:
            raise CrudValidationError("limit: must be at least 1")

        filters = [f for f in request.filters if f.field not in HIDDEN]
        meant: tuple[DbRead, str] | None = None
        async with user_transaction(self._sessions, user_id) as session:
            notes: list[str] = [left_out(spec, unknown)] if unknown else []
            if len(filters) < len(request.filters):
                notes.append(SCOPED)
            notes += never_empty(spec, [*filters, *request.or_filters])
            where = await self._where(
                session, spec, filters, request.or_filters, registry, notes, smart=True
            )
            query = select(*(table.c[c] for c in selected)).where(where).limit(limit)
            if request.order_by:
                name, direction = ordering(spec, request.order_by, request.order_dir)
                order_col = table.c[name]
                query = query.order_by(
                    order_col.desc() if direction == "desc" else order_col.asc(), table.c.id
                )
            else:
                query = query.order_by(*_default_order(table))
            rows = [row_to_json(r) for r in (await session.execute(query)).all()]
            if len(rows) == limit:
                matching = select(func.count()).select_from(table).where(where)
                if (total := await session.scalar(matching) or 0) > limit:
                    notes.append(cut_short(limit, total))
            if not rows and (filters or request.or_filters):
                held = await session.scalar(select(func.count()).select_from(table))
                notes.append(unmatched(spec.name, held or 0))
                if never := crossed(request.filters, request.or_filters):
                    notes.append(never)
                if held:
                    meant = await _meant(session, spec, table, request)
                if held and meant is None:
                    looked = [*filters, *request.or_filters]
                    elsewhere = await self._elsewhere(session, table, looked)
                    meant = _placed(request, elsewhere)
                    if meant is None:
                        notes += [found.note() for found in elsewhere]
                        notes += await _unset(session, table, looked)
                        notes += await _named_alike(session, table, looked)
            for key in nested:
                await self._attach_nested(session, spec, key, rows)
            out = await self._to_refs(session, rows, spec.name, registry)
        if meant is not None:
            read, note = meant
            result = await self.read(read, user_id=user_id, registry=registry)
            return result.model_copy(update={"notes": [note, *result.notes]})
        return CrudResult(tool="db_read", table=spec.name, rows=out, count=len(out), notes=notes)

    def _pending_read(
        self, spec: TableSpec, request: DbRead, registry: SessionIdRegistry
    ) -> list[Row] | None:
        """A read of ``gen_`` refs by id is answered from pending artifacts (seed 001)."""
        if spec.name not in BY_TABLE or request.or_filters or len(request.filters) != 1:
            return None
        only = request.filters[0]
        if only.field != "id" or only.op not in ("=", "in"):
            return None
        ids = only.value if isinstance(only.value, list) else [only.value]
        if not ids or not all(isinstance(v, str) and v.startswith("gen_") for v in ids):
            return None
        return registry.reroute_pending_read(spec.name, ids)

    @staticmethod
    def _nested_requested(spec: TableSpec, request: DbRead) -> list[str]:
        """Nested rows come when asked for in ``columns``, or with an id-filtered full read."""
        if request.columns is not None:
            return [c for c in request.columns if c in spec.nested]
        by_id = any(f.field == "id" for f in request.filters)
        return list(spec.nested) if by_id else []

    @staticmethod
    def _columns(spec: TableSpec, requested: list[str] | None) -> tuple[list[str], list[str]]:
        """The columns a read selects ("*": all), and the names it asked for that are no
        readable column of the table: those are left out and noted (``left_out``), not
        refused, since a projection changes which fields come back, never which rows."""
        if requested is None:
            return list(spec.readable), []
        known = {"*", *spec.readable, *spec.nested}
        unknown = [c for c in requested if c not in known]
        if "*" in requested:
            return list(spec.readable), unknown
        chosen = [c for c in requested if c in spec.readable]
        # Always the id (for the ref) and what the label is made of.
        implied = ["id"] + [c for c in ("name", "title", "date", "meal_type") if c in spec.columns]
        return list(dict.fromkeys(implied + chosen)), unknown

    async def _attach_nested(
        self, session: AsyncSession, spec: TableSpec, key: str, rows: list[Row]
    ) -> None:
        child = _table(spec.nested[key])
        parent_ids = [uuid.UUID(r["id"]) for r in rows]
        for row in rows:
            row[key] = []
        if not parent_ids:
            return
        fk = _parent_fk(spec.name, child.name)
        readable = [c for c in TABLES[child.name].readable]
        query = (
            select(*(child.c[c] for c in readable))
            .where(child.c[fk].in_(parent_ids))
            .order_by(child.c[fk], child.c.name, child.c.id)
        )
        by_parent = {r["id"]: r for r in rows}
        for child_row in (await session.execute(query)).all():
            item = row_to_json(child_row)
            by_parent[item[fk]][key].append(item)

    # --- filters ----------------------------------------------------------------------------

    async def _where(
        self,
        session: AsyncSession,
        spec: TableSpec,
        filters: list[Filter],
        or_filters: list[Filter],
        registry: SessionIdRegistry,
        notes: list[str],
        *,
        smart: bool,
    ) -> Any:
        table = _table(spec.name)
        trigram = await self._has_trigram(session)
        compiled: dict[str, list[Any]] = {"filters": [], "or_filters": []}
        for group, items in (("filters", filters), ("or_filters", or_filters)):
            for i, flt in enumerate(items):
                where = f"{group}[{i}]"
                col = check_filter(spec, flt, where)
                flt = self._translate_filter(spec, col, flt, registry, where)
                match: NameMatch | None = None
                if (
                    smart
                    and spec.name in ingredients.SMART_NAME_TABLES
                    and flt.field == "name"
                    and flt.op in ("=", "similar")
                ):
                    match = await ingredients.match_name(
                        session, str(flt.value), flt.op, trigram=trigram
                    )
                    notes.extend(match.notes)
                compiled[group].append(
                    compile_filter(
                        table,
                        col,
                        flt,
                        where=where,
                        table_name=spec.name,
                        trigram=trigram,
                        name_match=match,
                    )
                )
        return compile_where(compiled["filters"], compiled["or_filters"])

    @staticmethod
    def _translate_filter(
        spec: TableSpec, col: Column, flt: Filter, registry: SessionIdRegistry, where: str
    ) -> Filter:
        if col.kind != "uuid" or flt.value is None:
            return flt
        # a row's own id: it can be named another way
        name = next((n for n in NAMES if n in spec.columns), None) if col.name == "id" else None
        value = _translate(registry, flt.value, f"{where}.value", _ref_type(spec, col), name)
        return flt.model_copy(update={"value": value})

    async def _has_trigram(self, session: AsyncSession) -> bool:
        if self._trigram is None:
            self._trigram = await ingredients.has_trigram(session)
        return self._trigram

    # --- create -----------------------------------------------------------------------------

    async def create(
        self,
        request: DbCreate,
        user_id: uuid.UUID | str,
        registry: SessionIdRegistry,
        key: str,
    ) -> CrudResult:
        spec = table_spec(request.table, write=True)
        batch = request.data if isinstance(request.data, list) else [request.data]
        if not batch:
            raise CrudValidationError("data: nothing to create")
        planned = [self._plan_row(spec, row, registry, f"data[{i}]") for i, row in enumerate(batch)]

        async with user_transaction(self._sessions, user_id) as session:
            recorded = await self._recorded(session, user_id, key)
            if recorded is None:
                raw = [await self._insert(session, spec, clean) for _, clean in planned]
                recorded = {"rows": raw, "gen_refs": [gen for gen, _ in planned]}
                await self._record(session, user_id, key, recorded)
                replayed = False
            else:
                replayed = True
            out = []
            for raw_row, gen_ref in zip(recorded["rows"], recorded["gen_refs"], strict=True):
                registry.register_created(raw_row["id"], spec.name, raw_row, gen_ref=gen_ref)
                for nested_key, child_table in spec.nested.items():
                    for child in raw_row.get(nested_key, []):
                        registry.register_created(child["id"], child_table, child)
                out.extend(
                    await self._to_refs(session, [raw_row], spec.name, registry, action="created")
                )
        return CrudResult(
            tool="db_create", table=spec.name, rows=out, count=len(out), replayed=replayed
        )

    def _plan_row(
        self, spec: TableSpec, row: Any, registry: SessionIdRegistry, where: str
    ) -> tuple[str | None, dict[str, Any]]:
        """Validate one row before anything is written: (gen ref it saves, clean values)."""
        if not isinstance(row, dict):
            raise CrudValidationError(f"{where}: a row must be an object")
        row = dict(row)
        gen_ref = None
        if "id" in row:
            gen_ref = self._gen_ref_to_save(spec, row.pop("id"), registry, where)
            row = {**self._artifact_values(spec, registry.get_entity_data(gen_ref) or {}), **row}
        for alias, real in NESTED_ALIASES.get(spec.name, {}).items():
            if alias in row:
                row.setdefault(real, row.pop(alias))
        row = self._translate_fks(spec, row, registry, where)
        clean = in_pieces(spec.name, check_row(spec, row, where, partial=False))
        if amounted := amount_in_name(spec.name, clean, where):
            raise CrudValidationError(amounted)
        for key, child_table in spec.nested.items():
            items = clean.get(key) or []
            if not isinstance(items, list):
                raise CrudValidationError(f"{where}.{key}: must be a list of rows")
            child = TABLES[child_table]
            clean[key] = [
                check_row(
                    child,
                    self._translate_fks(
                        child,
                        self._child_row(item, f"{where}.{key}[{j}]"),
                        registry,
                        f"{where}.{key}[{j}]",
                    ),
                    f"{where}.{key}[{j}]",
                    partial=False,
                    implied=("recipe_id",),
                )
                for j, item in enumerate(items)
            ]
        return gen_ref, clean

    @staticmethod
    def _child_row(item: Any, where: str) -> dict[str, Any]:
        if not isinstance(item, dict):
            raise CrudValidationError(f"{where}: a row must be an object")
        return {k: v for k, v in item.items() if k not in ("recipe_id", "id")}

    @staticmethod
    def _gen_ref_to_save(
        spec: TableSpec, value: Any, registry: SessionIdRegistry, where: str
    ) -> str:
        entity = BY_TABLE[spec.name]
        if not (isinstance(value, str) and value.startswith(f"gen_{entity.type_name}_")):
            raise CrudValidationError(
                f"{where}.id: ids are assigned by the database; to save generated content "
                f"pass its gen_{entity.type_name}_N ref"
            )
        if registry.get_entity_data(value) is None:
            raise CrudValidationError(f"{where}.id: unknown ref {value!r}")
        if registry.action(value) == "created":
            raise CrudValidationError(f"{where}.id: {value!r} is already saved; update it instead")
        return value

    @staticmethod
    def _artifact_values(spec: TableSpec, content: dict[str, Any]) -> dict[str, Any]:
        """The writable part of a generated artifact (its other keys are display-only)."""
        aliases = NESTED_ALIASES.get(spec.name, {})
        keep = set(spec.writable_columns) | set(spec.nested) | set(aliases)
        return {k: v for k, v in content.items() if k in keep}

    @staticmethod
    def _translate_fks(
        spec: TableSpec, row: dict[str, Any], registry: SessionIdRegistry, where: str
    ) -> dict[str, Any]:
        out = dict(row)
        for name, value in row.items():
            col = spec.columns.get(name)
            if col is not None and col.kind == "uuid" and value is not None:
                out[name] = _translate(registry, value, f"{where}.{name}", _ref_type(spec, col))
        return out

    async def _insert(self, session: AsyncSession, spec: TableSpec, clean: dict[str, Any]) -> Row:
        table = _table(spec.name)
        nested = {k: clean.pop(k) for k in list(clean) if k in spec.nested}
        await self._link_catalog(session, spec.name, clean)
        merged = await merge_into_existing(session, table, clean, any_unit=True)
        if merged is not None:  # already on the list, or in the same place: more of it
            return merged
        if spec.name in ONE_ROW_TABLES:  # one row per user: a create is an upsert
            stmt = pg_insert(table).values(**clean)
            stmt = stmt.on_conflict_do_update(
                index_elements=["user_id"], set_=clean or {"id": table.c.id}
            )
        else:
            stmt = insert(table).values(**clean)
        row = row_to_json((await self._run(session, stmt.returning(*_visible(table)))).one())
        for key, items in nested.items():
            child = _table(spec.nested[key])
            row[key] = []
            for item in items:
                await self._link_catalog(session, child.name, item)
                values = {**item, "recipe_id": uuid.UUID(row["id"])}
                inserted = await self._run(
                    session, insert(child).values(**values).returning(*_visible(child))
                )
                row[key].append(row_to_json(inserted.one()))
        return row

    @staticmethod
    async def _link_catalog(session: AsyncSession, table: str, values: dict[str, Any]) -> None:
        if table not in LINKED_TABLES or values.get("ingredient_id") or not values.get("name"):
            return
        found = await ingredients.link_ingredient(session, values["name"])
        if found is not None:
            values["ingredient_id"] = found.id
            if "category" in TABLES[table].columns and not values.get("category"):
                values["category"] = found.category

    # --- update / delete ----------------------------------------------------------------------

    async def _set_one_row(
        self, request: DbUpdate, user_id: Any, registry: SessionIdRegistry, key: str
    ) -> CrudResult:
        """An update of the user's one row (``ONE_ROW_TABLES``): it sets the columns given,
        creating the row if the user has none yet. Rows named by filters can only be the
        user's, so none are needed; any given must still be valid."""
        if request.filters or request.or_filters:
            return await self.change(request, user_id, registry, key)
        created = await self.create(
            DbCreate(table=request.table, data=request.data), user_id, registry, key
        )
        return created.model_copy(update={"tool": "db_update"})

    async def change(
        self,
        request: DbUpdate | DbDelete,
        user_id: uuid.UUID | str,
        registry: SessionIdRegistry,
        key: str,
    ) -> CrudResult:
        spec = table_spec(request.table, write=True)
        if not request.filters and not request.or_filters:
            raise CrudValidationError(
                f"{request.tool} needs filters: refusing to change every row of {spec.name!r}"
            )
        values: dict[str, Any] = {}
        if isinstance(request, DbUpdate):
            values = check_row(
                spec,
                self._translate_fks(spec, request.data, registry, "data"),
                "data",
                partial=True,
            )
            values = in_pieces(spec.name, values)
        table = _table(spec.name)
        action = "updated" if isinstance(request, DbUpdate) else "deleted"

        async with user_transaction(self._sessions, user_id) as session:
            recorded = await self._recorded(session, user_id, key)
            replayed = recorded is not None
            if recorded is None:
                notes: list[str] = []
                where = await self._where(
                    session,
                    spec,
                    request.filters,
                    request.or_filters,
                    registry,
                    notes,
                    smart=False,
                )
                held = 0
                if isinstance(request, DbUpdate) and values:
                    same = [table.c[k].is_not_distinct_from(v) for k, v in values.items()]
                    count = select(func.count()).select_from(table).where(where, *same)
                    held = await session.scalar(count) or 0
                stmt = (
                    update(table).where(where).values(**values)
                    if isinstance(request, DbUpdate)
                    else delete(table).where(where)
                )
                result = await self._run(session, stmt.returning(*_visible(table)))
                rows = [row_to_json(r) for r in result.all()]
                recorded = {
                    "rows": rows,
                    "notes": [HELD_ALREADY] if rows and held == len(rows) else [],
                }
                await self._record(session, user_id, key, recorded)
            out = await self._to_refs(session, recorded["rows"], spec.name, registry, action=action)
            notes = list(recorded.get("notes") or [])
            if not out:
                notes = [await self._unchanged(session, spec.name, request, action)]
        return CrudResult(
            tool=request.tool,
            table=spec.name,
            rows=out,
            count=len(out),
            replayed=replayed,
            notes=notes,
        )

    @staticmethod
    async def _unchanged(
        session: AsyncSession, table_name: str, request: DbUpdate | DbDelete, action: str
    ) -> str:
        """The note on an update or delete that matched no row: how many rows the table
        holds and those whose name shares a word with a name the filters gave ("leftover
        rice" finds "cooked rice"), so that the next call can name the row. Writes stay
        exact; this only says what is there."""
        table = _table(table_name)
        held = await session.scalar(select(func.count()).select_from(table)) or 0
        note = f"no row matches the filters, so nothing was {action}; " + held_rows(
            table_name, held
        )
        near = await _near_names(
            session, table, _name_words([*request.filters, *request.or_filters])
        )
        if near:
            note += f"; {near_note(near)}"
        if table_name == "meal_plans" and held:
            planned = await _planned_near(session, [*request.filters, *request.or_filters])
            note += "; " + planned_note(planned)
        if never := crossed(request.filters, request.or_filters):
            note += f"; {never}"
        return note

    @staticmethod
    async def _elsewhere(session: AsyncSession, table: Table, filters: list[Filter]) -> list[Found]:
        """The words an empty read's filters looked for that are another column's whole
        value, each with that column and its count of rows (``Found.note``: "'freezer' is
        the location of 2 row(s), not their name"; the 1.5B local model looked for the
        freezer among the inventory's names, found nothing, and told the user the freezer
        was empty)."""
        found = []
        for flt in filters:
            word = flt.value.strip("% ").lower() if isinstance(flt.value, str) else ""
            others = [
                c
                for c in table.c
                if c.name != flt.field and c.name not in HIDDEN and isinstance(c.type, String)
            ]
            if not word or not others:
                continue
            counts = (
                await session.execute(
                    select(*(func.count().filter(func.lower(c) == word) for c in others))
                )
            ).one()
            found += [Found(flt, word, c.name, n) for c, n in zip(others, counts, strict=True) if n]
        return found

    # --- shared -------------------------------------------------------------------------------

    @staticmethod
    async def _run(session: AsyncSession, stmt: Any) -> Any:
        return await execute_checked(session, stmt)

    @staticmethod
    async def _recorded(session: AsyncSession, user_id: Any, key: str) -> dict[str, Any] | None:
        # Serialise concurrent attempts with the same key: the second waits, then replays.
        await session.execute(select(func.pg_advisory_xact_lock(func.hashtextextended(key, 0))))
        return await session.scalar(
            select(Operation.result).where(
                Operation.user_id == uuid.UUID(str(user_id)), Operation.key == key
            )
        )

    @staticmethod
    async def _record(session: AsyncSession, user_id: Any, key: str, result: dict) -> None:
        await session.execute(
            insert(Operation).values(
                user_id=uuid.UUID(str(user_id)), key=key, result=to_json(result)
            )
        )

    async def _to_refs(
        self,
        session: AsyncSession,
        rows: list[Row],
        table: str,
        registry: SessionIdRegistry,
        *,
        action: str = "read",
    ) -> list[Row]:
        """Rows with refs for ids and FKs, FK labels enriched in one query per table."""
        if table not in BY_TABLE:
            return rows
        translator = RowTranslator(registry, action=action)
        translated = translator.rows(rows, table)
        if translator.unnamed:
            labels = await self._labels(session, translator.unnamed)
            translated = translator.named(translated, table, labels)
        return translated

    @staticmethod
    async def _labels(session: AsyncSession, unnamed: dict[str, tuple[str, str]]) -> dict[str, str]:
        by_table: dict[str, dict[str, str]] = {}
        for ref, (table, raw_id) in unnamed.items():
            by_table.setdefault(table, {})[raw_id] = ref
        labels: dict[str, str] = {}
        for table_name, refs_by_id in by_table.items():
            table = _table(table_name)
            ids = [uuid.UUID(i) for i in refs_by_id]
            for row in (await session.execute(select(table).where(table.c.id.in_(ids)))).all():
                record = row_to_json(row)
                entity = BY_TABLE[table_name]
                labels[refs_by_id[record["id"]]] = compute_label(entity.type_name, record)
        return labels


def _name_words(filters: list[Filter]) -> list[str]:
    """The words of the names the filters give (``near.name_words``)."""
    return sorted(
        {
            w
            for f in filters
            if f.field in NAMES and isinstance(f.value, str)
            for w in name_words(f.value)
        }
    )


async def _near_names(session: AsyncSession, table: Table, words: list[str]) -> list[str]:
    """The names of the rows whose name (a task's title) holds one of ``words``
    (``_name_words``)."""
    name = next((table.c[n] for n in NAMES if n in table.c), None)
    if not words or name is None:
        return []
    like = or_(*(name.ilike(f"%{w}%") for w in words))
    query = select(name).where(like).order_by(name).limit(NEAR_NAMES)
    return list((await session.scalars(query)).all())


async def _meant(
    session: AsyncSession, spec: TableSpec, table: Table, request: DbRead
) -> tuple[DbRead, str] | None:
    """The read by the name of the one row whose name holds every word of the name an
    empty read gave, and that name; None when the read gave no one name, or no row or more
    than one holds it. The 1.5B local model read recipes by ``name = "Chili"`` for "what
    do i need to buy for the chili", the Weeknight Chili saved, and read nothing. Not for
    the stock and the list, whose names the ingredient catalog matches."""
    if spec.name in ingredients.SMART_NAME_TABLES:
        return None
    by_name = [f for f in request.filters if f.field in NAMES and f.op in ("=", "ilike", "similar")]
    if len(by_name) != 1 or not isinstance(by_name[0].value, str):
        return None
    named = by_name[0].value.strip("%")
    words, column = sorted(name_words(named)), table.c.get(by_name[0].field)
    if not words or column is None:
        return None
    query = select(column).where(*(column.ilike(f"%{w}%") for w in words)).limit(2)
    found = list((await session.scalars(query)).all())
    if len(found) != 1 or found[0].lower() == named.lower():
        return None
    kept = [f for f in request.filters if f is not by_name[0]]
    meant = Filter(field=by_name[0].field, op="=", value=found[0])
    return request.model_copy(update={"filters": [*kept, meant]}), meant_note(named, found[0])


@dataclass(frozen=True)
class Found:
    """A word a filter of an empty read looked for (``flt``) that is the whole value of
    ``column`` in ``rows`` rows (``CrudExecutor._elsewhere``)."""

    flt: Filter
    word: str
    column: str
    rows: int

    def note(self) -> str:
        return (
            f"{self.word!r} is the {self.column} of {self.rows} row(s), not their {self.flt.field}"
        )


def _placed(request: DbRead, elsewhere: list[Found]) -> tuple[DbRead, str] | None:
    """The read by location of an empty read whose one filter, by name, looked for what is,
    whole, the location of rows and no other column's value (``_elsewhere``), and its note;
    None otherwise. For "how many things are in the fridge" the 1.5B local model read the
    inventory by name ilike "fridge", was told "'fridge' is the location of 2 row(s), not
    their name", and said nothing was in the fridge."""
    if request.or_filters or len(elsewhere) != 1:
        return None
    (found,) = elsewhere
    if found.column != "location" or found.flt.field not in NAMES:
        return None
    kept = [f for f in request.filters if f is not found.flt]
    placed = Filter(field="location", op="ilike", value=found.word)
    return request.model_copy(update={"filters": [*kept, placed]}), (
        f"read by location: {found.note()}"
    )


async def _unset(session: AsyncSession, table: Table, filters: list[Filter]) -> list[str]:
    """Notes on the columns an empty read looked for a value in that no row sets
    (``unset_note``): the 1.5B local model read the tasks by ``category = cleanup`` for
    "when do i need to clean the oven by", no task having a category, and told the user it
    found no matching task."""
    valued = [f.field for f in filters if f.op not in ("is_null", "is_not_null")]
    fields = dict.fromkeys(f for f in valued if f in table.c and table.c[f].nullable)
    notes = []
    for field in fields:
        if not await session.scalar(select(func.count()).where(table.c[field].is_not(None))):
            notes.append(unset_note(field))
    return notes


async def _named_alike(session: AsyncSession, table: Table, filters: list[Filter]) -> list[str]:
    """Notes on an empty read by name: the rows whose name shares a word with it, and, for
    recipes, those with an ingredient that does. The 1.5B local model read recipes by
    name ilike "lentils" for "any recipes with lentils?", found nothing beside a Red
    Lentil Dal made of red lentils, and said there were none."""
    notes = []
    words = _name_words(filters)
    if near := await _near_names(session, table, words):
        notes.append(near_note(near))
    if table.name != "recipes" or not words:
        return notes
    parts = _table("recipe_ingredients")
    query = (
        select(table.c.name)
        .join(parts, parts.c.recipe_id == table.c.id)
        .where(or_(*(parts.c.name.ilike(f"%{w}%") for w in words)))
        .group_by(table.c.name)
        .order_by(table.c.name)
        .limit(NEAR_NAMES)
    )
    if made := [row.name for row in (await session.execute(query)).all()]:
        notes.append(made_with_note(made))
    return notes


async def _planned_near(session: AsyncSession, filters: list[Filter]) -> list[str]:
    """The meal plan's rows as ``date meal_type: recipe``, nearest a date the filters give
    first (else the earliest): a meal plan row has no name to suggest, and the 1.5B local
    model moved "the dal to wednesday" by updating the row dated today, which held none."""
    plans, recipes = _table("meal_plans"), _table("recipes")
    near = next((d for f in filters if f.field == "date" and (d := _plan_date(f.value))), None)
    order = [func.abs(plans.c.date - near)] if near else []
    query = (
        select(plans.c.date, plans.c.meal_type, recipes.c.name)
        .outerjoin(recipes, recipes.c.id == plans.c.recipe_id)
        .order_by(*order, plans.c.date, plans.c.meal_type)
        .limit(NEAR_NAMES)
    )
    return [
        planned_row(row.date.isoformat(), row.meal_type, row.name)
        for row in (await session.execute(query)).all()
    ]


def _plan_date(value: object) -> Any:
    """A filter's value as a meal plan date (``validate.convert``), None when it is none
    (a list, a pattern)."""
    try:
        return convert(TABLES["meal_plans"].columns["date"], value, "filters")
    except CrudValidationError:
        return None


def _parent_fk(parent: str, child: str) -> str:
    """The child's FK column that points at its parent (``recipe_ingredients.recipe_id``)."""
    parent_type = BY_TABLE[parent].type_name
    return next(c for c, t in BY_TABLE[child].fk_fields.items() if t == parent_type)


def left_out(spec: TableSpec, unknown: list[str]) -> str:
    """The note on a read whose ``columns`` named what the table does not have."""
    names = ", ".join(repr(c) for c in unknown)
    return (
        f"columns {names} are not columns of {spec.name} and were left out; "
        f"its columns: {', '.join(spec.readable)}"
    )


def unmatched(table: str, held: int) -> str:
    """The note on a filtered read that found nothing: how many rows the filters left out,
    so that "none match" is not read as "there are none"."""
    return (
        held_rows(table, held)
        if held == 0
        else f"no row matches the filters; {held_rows(table, held)}"
    )


def held_rows(table: str, held: int) -> str:
    """How many rows ``table`` holds, as a note says it."""
    return f"{table} is empty" if held == 0 else f"{table} holds {held} row(s) in all"


def _default_order(table: Table) -> list[Any]:
    """Stable, meaningful order: by date, else oldest first, else by name; id breaks ties."""
    for name in ("date", "created_at", "cooked_at", "name"):
        if name in table.c:
            return [table.c[name], table.c.id]
    return [table.c.id]


def _visible(table: Table) -> list[Any]:
    return visible_columns(table)


def _ref_type(spec: TableSpec, col: Column) -> str | None:
    """The entity type whose refs ``col`` takes: the table's own for ``id``, the target of a
    foreign key; None when the column names no entity."""
    if col.name == "id":
        entity = BY_TABLE.get(spec.name)
        return entity.type_name if entity else None
    return col.fk


def _translate(
    registry: SessionIdRegistry,
    value: Any,
    where: str,
    ref_type: str | None,
    named_by: str | None = None,
) -> Any:
    """``value``'s refs as UUIDs; a ref of another type than the column's is an error (it
    would match nothing, or link the wrong row). ``named_by``: the column that names the
    row a filter's unknown ref stands for, the way to find it with no ref."""
    for item in value if isinstance(value, list) else [value]:
        parts = parse_ref(item)
        if parts is not None and ref_type is not None and parts.type_name != ref_type:
            raise CrudValidationError(
                f"{where}: {item!r} is a ref to {BY_TYPE[parts.type_name].table}, but this "
                f"column takes a ref to {BY_TYPE[ref_type].table}"
            )
        if isinstance(item, str) and parts is None and ref_type and canonical_uuid(item) is None:
            other = f"filter by its {named_by} instead" if named_by else "filter by other columns"
            raise CrudValidationError(  # a made-up ref: "gen_red_lentil_dal"
                f"{where}: {item!r} is not a ref: this column takes the ref of a row of "
                f"{BY_TYPE[ref_type].table}, such as {ref_type}_1, as a read or the "
                f"entities show it; read that row first, or {other}"
            )
    try:
        return registry.translate_value(value)
    except UnknownRefError as exc:  # "gen_recipe_1" for a pasta no recipe holds
        known = "no row of this conversation has it: use a ref a read or the entities show"
        writes = where.startswith("data") and not where.endswith(".id")  # a row's link
        left = ", or leave it out" if writes else ""
        if named_by:  # the 1.5B local model updated "gen_recipe_1" twice for "the chili"
            left = f", or filter by its {named_by} instead, in the user's words"
        raise CrudValidationError(f"{where}: {exc}; {known}{left}") from None
    except PendingRefError as exc:
        raise CrudValidationError(f"{where}: {exc}") from None
    except ValueError as exc:  # pragma: no cover - registry guards its own inputs
        raise CrudValidationError(f"{where}: {exc}") from None
