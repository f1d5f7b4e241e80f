"""Act's and Act Quick's answers: one decision per call, typed per step.

Act answers ``{"decision": {...}}``, one of the seed's eight actions. The decisions a step
may take depend on it: a read step reads any table; a write step also creates, updates
and deletes, only in its subdomain's tables, with rows typed per table; analyze and
generate steps make no tool calls, and only a generate step's completion carries
generated content (typed per entity). The schema says all of this, so a model held to it
never makes a call the loop would refuse.

Every decision opens with its ``action`` (and a call with its ``tool``): a model held to
the schema chooses the kind of answer at its first key, by the action's name. Behind it,
what a decision rests on comes before what it concludes: a completion's content and data
before its summary, a block's details before its reason code. (Measured: with the action
written last, the branch was chosen by the first field's name, and a 1.5B model answered
a write step with ``retrieve_step`` of a step that had not run, 13 times in one turn; with
the action first it never asked for one in 30 scenarios.)
"""

from __future__ import annotations

import json
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args

from pydantic import Discriminator, Field, Tag, create_model

from domain.answers.base import Answer, Text
from domain.answers.table_rows import (
    Filter,
    MealContent,
    RecipeContent,
    TaskContent,
    change_model,
    content_answer,
    content_values,
    row_answer,
    row_model,
    row_values,
)
from domain.kitchen.entities import BY_TABLE
from domain.kitchen.tables import ONE_ROW_TABLES, SUBDOMAINS, TABLES
from domain.nodes import (
    ActDecision,
    ActQuickDecision,
    GeneratedArtifact,
    Subdomain,
    ToolCall,
)
from domain.registry import refs_in_text

READABLE = tuple(TABLES)


def _writable(subdomain: str) -> tuple[str, ...]:
    return tuple(t for t in SUBDOMAINS[subdomain] if TABLES[t].writable)


# --- tool calls --------------------------------------------------------------------------------


def _where(filters: list[Filter], or_filters: list[Filter]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if filters:
        out["filters"] = [f.model_dump(mode="json") for f in filters]
    if or_filters:
        out["or_filters"] = [f.model_dump(mode="json") for f in or_filters]
    return out


def _call(tool: str, params: dict[str, Any]) -> ActDecision:
    call = ToolCall(tool=tool, params=params)  # type: ignore[arg-type]
    return ActDecision(action="tool_call", tool_call=call)


class ReadParams(Answer):
    table: Literal[READABLE]  # type: ignore[valid-type]
    filters: list[Filter] = Field(default_factory=list)
    """All must hold."""
    or_filters: list[Filter] = Field(default_factory=list)
    """At least one must hold, on top of ``filters``."""
    columns: list[str] | None = None
    limit: int | None = Field(default=None, ge=1)
    order_by: str | None = None
    order_dir: Literal["asc", "desc"] | None = None

    def params(self) -> dict[str, Any]:
        """The executor's read parameters: what was given, nothing empty."""
        out: dict[str, Any] = {"table": self.table, **_where(self.filters, self.or_filters)}
        for name in ("columns", "limit", "order_by", "order_dir"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


class _ReadHead(Answer):
    action: Literal["tool_call"] = "tool_call"
    tool: Literal["db_read"] = "db_read"

    def to_decision(self) -> ActDecision:
        return _call("db_read", ReadParams.params(self))  # type: ignore[arg-type]


ReadCall = create_model(
    "ReadCall",
    __base__=_ReadHead,
    **{name: (f.annotation, f) for name, f in ReadParams.model_fields.items()},  # type: ignore[call-overload]
)
"""A read as a decision: ``action`` and ``tool`` first, then the read's parameters."""


class _Create(Answer):
    action: Literal["tool_call"] = "tool_call"
    tool: Literal["db_create"] = "db_create"
    table: str
    rows: list[Any]

    def to_decision(self) -> ActDecision:
        rows = [row_values(row) for row in self.rows]
        return _call("db_create", {"table": self.table, "data": rows})


class _Update(Answer):
    action: Literal["tool_call"] = "tool_call"
    tool: Literal["db_update"] = "db_update"
    table: str
    filters: list[Filter] = Field(default_factory=list)
    or_filters: list[Filter] = Field(default_factory=list)
    changes: list[Any]

    def to_decision(self) -> ActDecision:
        data = {c.column: c.value for c in self.changes}
        where = _where(self.filters, self.or_filters)
        return _call("db_update", {"table": self.table, **where, "data": data})


class _Set(Answer):
    """An update of the user's one row (``ONE_ROW_TABLES``): no rows to name."""

    action: Literal["tool_call"] = "tool_call"
    tool: Literal["db_update"] = "db_update"
    table: str
    changes: list[Any]

    def to_decision(self) -> ActDecision:
        data = {c.column: c.value for c in self.changes}
        return _call("db_update", {"table": self.table, "data": data})


class _Delete(Answer):
    action: Literal["tool_call"] = "tool_call"
    tool: Literal["db_delete"] = "db_delete"
    table: str
    filters: list[Filter] = Field(default_factory=list)
    or_filters: list[Filter] = Field(default_factory=list)

    def to_decision(self) -> ActDecision:
        return _call("db_delete", {"table": self.table, **_where(self.filters, self.or_filters)})


@cache
def create_call(table: str, saving: tuple[str, ...] | None = None) -> type[Answer]:
    """A create in ``table``: one row or several, typed by the table's columns; ``saving``:
    the unsaved ``gen_`` refs a row may save (``row_model``)."""
    if saving is not None:
        prefix = f"gen_{BY_TABLE[table].type_name}_"
        saving = tuple(r for r in saving if r.startswith(prefix))
    return create_model(
        f"Create{_camel(table)}",
        __base__=_Create,
        table=(Literal[table], ...),  # type: ignore[valid-type]
        rows=(list[row_model(table, saving=saving)], Field(min_length=1)),  # type: ignore[misc]
    )


@cache
def update_call(table: str) -> type[Answer]:
    """An update in ``table``: which rows (filters), and the columns it sets; in a table of
    one row per user, only the columns (the row is the user's)."""
    return create_model(
        f"Update{_camel(table)}",
        __base__=_Set if table in ONE_ROW_TABLES else _Update,
        table=(Literal[table], ...),  # type: ignore[valid-type]
        changes=(list[change_model(table)], Field(min_length=1)),  # type: ignore[misc]
    )


@cache
def delete_call(subdomain: str) -> type[Answer]:
    """A delete in one of the subdomain's writable tables."""
    return create_model(
        f"Delete{_camel(subdomain)}",
        __base__=_Delete,
        table=(Literal[_writable(subdomain)], ...),  # type: ignore[valid-type]
    )


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


# --- the other actions -------------------------------------------------------------------------


class StepData(Answer):
    """A completed step's result for the steps after it and for Reply."""

    refs: list[str] = Field(default_factory=list)
    """The rows or items the result is about (found, matched, saved, chosen)."""
    text: str | None = None
    """The result in words: an analysis, a comparison, what is missing."""


class _Completion(Answer):
    """A step's completion; its subclasses declare the fields, evidence first."""

    def to_decision(self) -> ActDecision:
        data = self.data.model_dump(mode="json") if self.data is not None else None
        return ActDecision(
            action="step_complete",
            result_summary=self.result_summary,
            data=data,
            note_for_next_step=self.note_for_next_step,
            artifacts=self.generated(),
        )

    def generated(self) -> list[GeneratedArtifact]:
        return []


class StepComplete(_Completion):
    action: Literal["step_complete"] = "step_complete"
    data: StepData | None = None
    result_summary: Text
    note_for_next_step: str | None = None


class RecipeArtifact(Answer):
    type: Literal["recipe"] = "recipe"
    ref: str | None = Field(default=None, description="revising unsaved content: its gen_ ref")
    content: RecipeContent


class MealArtifact(Answer):
    type: Literal["meal"] = "meal"
    ref: str | None = Field(default=None, description="revising unsaved content: its gen_ ref")
    content: MealContent


class TaskArtifact(Answer):
    type: Literal["task"] = "task"
    ref: str | None = Field(default=None, description="revising unsaved content: its gen_ ref")
    content: TaskContent


CONTENTS: dict[str, type[Answer]] = {
    "recipe": RecipeContent,
    "meal": MealContent,
    "task": TaskContent,
}

Artifact = Annotated[RecipeArtifact | MealArtifact | TaskArtifact, Field(discriminator="type")]


class GeneratedComplete(_Completion):
    """A generate step's completion: the content it created, one artifact per item,
    before what is said about it."""

    action: Literal["step_complete"] = "step_complete"
    artifacts: list[Artifact] = Field(default_factory=list)
    data: StepData | None = None
    result_summary: Text
    note_for_next_step: str | None = None

    def generated(self) -> list[GeneratedArtifact]:
        return [
            GeneratedArtifact(type=a.type, content=content_values(a.content), ref=a.ref)
            for a in self.artifacts
        ]


class _Plain(Answer):
    """A decision whose fields are ``ActDecision``'s own."""

    def to_decision(self) -> ActDecision:
        return ActDecision.model_validate(self.model_dump())


class RequestSchema(_Plain):
    action: Literal["request_schema"] = "request_schema"
    subdomain: Subdomain


class RetrieveStep(_Plain):
    action: Literal["retrieve_step"] = "retrieve_step"
    step_index: int = Field(ge=0)


class RetrieveArchive(_Plain):
    action: Literal["retrieve_archive"] = "retrieve_archive"
    archive_key: Text


class AskUser(_Plain):
    action: Literal["ask_user"] = "ask_user"
    question: Text


class Blocked(_Plain):
    action: Literal["blocked"] = "blocked"
    details: Text
    reason_code: Text
    suggested_next: str | None = None


class Fail(_Plain):
    action: Literal["fail"] = "fail"
    user_message: Text


COMMON: tuple[type[_Plain], ...] = (
    RequestSchema,
    RetrieveStep,
    RetrieveArchive,
    AskUser,
    Blocked,
    Fail,
)
_PLAIN = {model.model_fields["action"].default: model for model in COMMON}
"""The plain decisions by action."""


def decision_tag(value: Any) -> str | None:
    """Which decision an answer is: its action, and for a tool call its tool (and the
    table, for creates and updates, whose rows are typed per table)."""
    get = value.get if isinstance(value, dict) else lambda key: getattr(value, key, None)
    action = get("action")
    if action != "tool_call":
        return action
    tool = get("tool")
    if tool in ("db_create", "db_update"):
        return f"{tool}:{get('table')}"
    return tool


def _tag_of(model: type[Answer]) -> str:
    fields = model.model_fields
    action = fields["action"].default
    if action != "tool_call":
        return action
    tool = fields["tool"].default
    if tool in ("db_create", "db_update"):
        (table,) = get_args(fields["table"].annotation)
        return f"{tool}:{table}"
    return tool


def decisions(
    step_type: str,
    subdomain: str,
    finished: tuple[int, ...] | None = None,
    saving: tuple[str, ...] | None = None,
) -> tuple[type[Answer], ...]:
    """The decisions a step of this type and subdomain may take; with ``finished`` (the
    steps it may retrieve), ``retrieve_step`` names only those, and is not offered when
    there are none; with ``saving`` (the unsaved ``gen_`` refs), a created row's ``id``
    names only those."""
    complete = GeneratedComplete if step_type == "generate" else StepComplete
    calls: tuple[type[Answer], ...] = ()
    if step_type in ("read", "write"):
        calls = (ReadCall,)
    if step_type == "write":
        writable = _writable(subdomain)
        calls += tuple(create_call(t, saving) for t in writable)
        calls += tuple(update_call(t) for t in writable)
        calls += (delete_call(subdomain),)
    common: tuple[type[Answer], ...] = COMMON
    if finished is not None:
        retrieve = (retrieve_step(finished),) if finished else ()
        common = tuple(m for m in COMMON if m is not RetrieveStep)
        common = (common[0], *retrieve, *common[1:])
    return (*calls, complete, *common)


@cache
def retrieve_step(finished: tuple[int, ...]) -> type[Answer]:
    """``retrieve_step`` of one of the ``finished`` steps (a step of a later group cannot
    be fetched: it has not run)."""
    return create_model(
        "RetrieveStep" + "_".join(map(str, finished)),
        __base__=RetrieveStep,
        step_index=(Literal[finished], ...),  # type: ignore[valid-type]
    )


class ActAnswerBase(Answer):
    contract = ActDecision

    def to_output(self) -> ActDecision:
        return self.decision.to_decision()  # type: ignore[attr-defined]

    @classmethod
    def from_output(cls, output: Any) -> dict[str, Any]:
        return {"decision": decision_answer(output)}


@cache
def act_answer(
    step_type: str,
    subdomain: str,
    finished: tuple[int, ...] | None = None,
    saving: tuple[str, ...] | None = None,
) -> type[Answer]:
    """Act's answer model for a step of ``step_type`` in ``subdomain``; ``finished``: the
    steps it may retrieve, ``saving``: the unsaved ``gen_`` refs it may save (None: any)."""
    if subdomain not in SUBDOMAINS:
        raise KeyError(f"unknown subdomain {subdomain!r}")
    models = decisions(step_type, subdomain, finished, saving)
    tags = [_tag_of(m) for m in models]
    if len(set(tags)) != len(tags):
        raise ValueError(f"two decisions share a tag: {tags}")
    variants = tuple(Annotated[m, Tag(t)] for m, t in zip(models, tags, strict=True))
    union = Annotated[
        variants[0] if len(variants) == 1 else _union(variants),  # type: ignore[valid-type]
        Discriminator(decision_tag),
    ]
    return create_model(
        f"Act{_camel(step_type)}{_camel(subdomain)}",
        __base__=ActAnswerBase,
        decision=(union, ...),
    )


def _union(variants: tuple[Any, ...]) -> Any:
    return Union[variants]  # noqa: UP007 - a union built at run time


def decision_answer(decision: ActDecision) -> dict[str, Any]:
    """An Act contract decision as a model would answer it."""
    action = decision.action
    if action == "tool_call" and decision.tool_call is not None:
        return tool_call_answer(decision.tool_call)
    if action == "step_complete":
        data = decision.data
        out: dict[str, Any] = {"action": action}
        if decision.artifacts:
            out["artifacts"] = [
                {"type": a.type, "ref": a.ref, "content": _content(a)} for a in decision.artifacts
            ]
        return out | {
            "data": data if _is_step_data(data) else _as_step_data(data),
            "result_summary": decision.result_summary,
            "note_for_next_step": decision.note_for_next_step,
        }
    return {name: getattr(decision, name) for name in _PLAIN[action].model_fields}


def _content(artifact: GeneratedArtifact) -> dict[str, Any]:
    return content_answer(CONTENTS[artifact.type], artifact.content)


def _is_step_data(data: Any) -> bool:
    return data is None or (isinstance(data, dict) and set(data) <= {"refs", "text"})


def _as_step_data(data: Any) -> dict[str, Any]:
    """Free-form data (an older contract's) as ``StepData``: its refs, and the rest as text."""
    text = json.dumps(data, ensure_ascii=False, default=str)
    return {"refs": sorted(set(refs_in_text(text))), "text": text}


def tool_call_answer(call: ToolCall) -> dict[str, Any]:
    params = dict(call.params)
    out: dict[str, Any] = {"action": "tool_call", "tool": call.tool, "table": params.pop("table")}
    if call.tool == "db_create":
        data = params.pop("data")
        rows = data if isinstance(data, list) else [data]
        out["rows"] = [row_answer(row) for row in rows]
    elif call.tool == "db_update":
        out["changes"] = [{"column": k, "value": v} for k, v in params.pop("data").items()]
    out.update(params)
    return out


# --- Act Quick ---------------------------------------------------------------------------------


class ActQuickAnswerBase(Answer):
    contract = ActQuickDecision

    def to_output(self) -> ActQuickDecision:
        return ActQuickDecision(params=self.params.params())  # type: ignore[attr-defined]

    @classmethod
    def from_output(cls, output: Any) -> dict[str, Any]:
        return {"params": dict(output.params), "tool": "db_read"}


@cache
def act_quick_answer(subdomain: str) -> type[Answer]:
    """Act Quick's answer: one read of one of the subdomain's tables."""
    tables = SUBDOMAINS[subdomain]
    params = create_model(
        f"QuickRead{_camel(subdomain)}",
        __base__=ReadParams,
        table=(Literal[tables], ...),  # type: ignore[valid-type]
    )
    return create_model(
        f"ActQuick{_camel(subdomain)}",
        __base__=ActQuickAnswerBase,
        params=(params, ...),
        tool=(Literal["db_read"], "db_read"),
    )
