"""Run one scenario as a client of the real stack: the HTTP API, the workflow, PostgreSQL.

The kitchen is seeded through the CRUD executor (the way a model writes, so nothing shows
as a UI edit); every turn goes through the API as a chat client sends it (the message with
``?wait=true``, answers to pauses through ``/input``, UI edits through the kitchen routes);
the runner waits until the turn is settled (its summary saved) before the next message,
then checks the turn's effects on the database, the registry and the reply.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
import time
import uuid
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import BaseModel, Field

from domain.clock import local_date
from domain.conversation import ConversationState
from domain.crud.calls import DbCreate
from domain.crud.executor import CrudExecutor
from domain.db.engine import user_transaction
from domain.kitchen import repository
from domain.kitchen.entities import BY_TABLE
from domain.kitchen.tables import TABLES
from domain.registry import SessionIdRegistry
from domain.turn_store import Sessions, load_conversation
from domain.users import create_user
from evals.cassette import Call, Replay, Watch
from evals.checks import Check, check_turn
from evals.scenario import Answer, Edit, Scenario, Turn, expand

ROUTES = {
    "inventory": "inventory",
    "recipes": "recipes",
    "shopping_list": "shopping-list",
    "meal_plans": "meal-plans",
    "tasks": "tasks",
}
SETTLED = frozenset({"completed", "failed", "cancelled", "expired"})
KITCHEN = tuple(t for t, spec in TABLES.items() if spec.writable)


class TurnResult(BaseModel):
    say: str
    status: str = ""
    response: str = ""
    pauses: list[str] = Field(default_factory=list)
    checks: list[Check] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)
    llm_calls: int = 0
    repairs: int = 0
    fallbacks: list[str] = Field(default_factory=list)
    breakers: list[str] = Field(default_factory=list)
    seconds: float = 0.0


class ScenarioResult(BaseModel):
    id: str
    title: str
    covers: list[str]
    passed: bool = False
    error: str | None = None
    """The run itself went wrong (a misfit cassette, a turn that never settled)."""
    turns: list[TurnResult] = Field(default_factory=list)
    calls: list[Call] = Field(default_factory=list)
    seconds: float = 0.0

    @property
    def reached(self) -> set[str]:
        return {p for t in self.turns for p in t.paths}

    @property
    def nodes(self) -> set[str]:
        return {c.node for c in self.calls}


@dataclass
class Stack:
    """What scenarios run on. ``http`` reaches the API; ``watch`` is the worker's provider."""

    http: httpx.AsyncClient
    sessions: Sessions
    executor: CrudExecutor
    watch: Watch
    turn_timeout: float = 120.0
    poll: float = 0.05


class RunError(Exception):
    """The run could not go on (a request refused, a turn that never settled)."""


async def run_scenario(
    scenario: Scenario, stack: Stack, replay: Replay | None = None
) -> ScenarioResult:
    """Run ``scenario`` on ``stack``; with ``replay``, its misfits make the result an error."""
    result = ScenarioResult(id=scenario.id, title=scenario.title, covers=scenario.covers)
    started = time.monotonic()
    stack.watch.take()
    if replay is not None:
        replay.today = scenario_today(scenario)
    try:
        await _run(scenario, stack, result)
    except RunError as error:
        result.error = str(error)
    result.calls = stack.watch.take()
    result.seconds = round(time.monotonic() - started, 2)
    if replay is not None and result.error is None:
        unused = replay.unused()
        if replay.misfits:
            result.error = "recording no longer fits: " + "; ".join(replay.misfits)
        elif unused:
            result.error = "the run took another way than recorded: unused " + ", ".join(unused)
    result.passed = result.error is None and all(c.passed for t in result.turns for c in t.checks)
    return result


async def _run(scenario: Scenario, stack: Stack, result: ScenarioResult) -> None:
    user_id, token = await create_user(stack.sessions, f"eval {scenario.id}")
    auth = {"Authorization": f"Bearer {token}"}
    today = scenario_today(scenario)
    seeded = await _seed(scenario, stack, user_id, today)

    def mention(marker: str, table: str, label: str) -> str:
        row_id = seeded.get((table, label.lower()))
        if row_id is None:
            raise RunError(f"{marker}{{{table}:{label}}}: no such seeded row")
        if marker == "#":
            return row_id
        return f"@[{label}]({BY_TABLE[table].type_name}:{row_id})"

    created = await _request(stack, "POST", "/v1/conversations", auth, {"title": scenario.id})
    conversation = created["id"]
    for turn in scenario.turns:
        turn = Turn.model_validate(expand(turn.model_dump(), today, mention))
        state_before, _ = await load_conversation(stack.sessions, str(user_id), conversation)
        for edit in turn.edits:
            await _edit(stack, auth, user_id, edit)
        before = await _kitchen(stack, user_id)  # as the turn finds it: after its UI edits
        first_call = len(stack.watch.calls)
        outcome, steps = await _turn(stack, auth, conversation, turn)
        state_after, _ = await load_conversation(stack.sessions, str(user_id), conversation)
        after = await _kitchen(stack, user_id)
        outcome.checks = check_turn(turn.expect, outcome, after, before, state_after, state_before)
        reached = _paths(
            turn, outcome, steps, stack.watch.calls[first_call:], state_before, state_after
        )
        outcome.paths = sorted(reached)
        result.turns.append(outcome)


def scenario_today(scenario: Scenario) -> dt.date:
    """Today in the scenario's user's timezone (UTC unless its preferences say)."""
    timezone = str(scenario.preferences.get("timezone") or "UTC")
    return local_date(dt.datetime.now(dt.UTC), timezone)


# --- the kitchen -------------------------------------------------------------------------------


async def _seed(
    scenario: Scenario, stack: Stack, user_id: uuid.UUID, today: dt.date
) -> dict[tuple[str, str], str]:
    """Rows before the first turn, written as the model writes them; (table, label) -> id.

    One row per write, in the scenario's order: rows written together share their
    ``created_at``, and a read ordered by it would then list them by their random ids,
    numbering their refs differently in each run (a recording's ``recipe_2`` another
    recipe when replayed)."""
    registry = SessionIdRegistry()
    seeded: dict[tuple[str, str], str] = {}
    tables = dict(scenario.kitchen)
    if scenario.preferences:
        tables["preferences"] = [scenario.preferences]
    for table, rows in tables.items():
        if not rows:
            continue
        for data in expand(rows, today):
            request = DbCreate(table=table, data=data)
            result = await stack.executor.execute(
                request, user_id=user_id, registry=registry, idempotency_key=uuid.uuid4().hex
            )
            for row in result.rows:
                label = str(row.get("name") or row.get("title") or row.get("date") or "")
                seeded[(table, label.lower())] = registry.resolve(str(row["id"]))
    return seeded


async def _kitchen(stack: Stack, user_id: uuid.UUID) -> dict[str, list[dict[str, Any]]]:
    async with user_transaction(stack.sessions, user_id) as session:
        return {t: await repository.list_rows(session, t) for t in KITCHEN}


async def _edit(stack: Stack, auth: dict[str, str], user_id: uuid.UUID, edit: Edit) -> None:
    if edit.table == "preferences":
        await _request(stack, "PUT", "/v1/preferences", auth, edit.data)
        return
    route = f"/v1/{ROUTES[edit.table]}"
    if edit.op == "create":
        await _request(stack, "POST", route, auth, edit.data)
        return
    rows = (await _kitchen(stack, user_id))[edit.table]
    matches = [r for r in rows if all(_same(r.get(k), v) for k, v in edit.where.items())]
    if len(matches) != 1:
        raise RunError(f"edit {edit.op} {edit.table} {edit.where}: {len(matches)} rows match")
    url = f"{route}/{matches[0]['id']}"
    if edit.op == "update":
        await _request(stack, "PATCH", url, auth, edit.data)
    else:
        await _request(stack, "DELETE", url, auth, None)


def _same(value: Any, wanted: Any) -> bool:
    if isinstance(value, str) and isinstance(wanted, str):
        return value.strip().lower() == wanted.strip().lower()
    return value == wanted


# --- a turn ------------------------------------------------------------------------------------


async def _turn(
    stack: Stack, auth: dict[str, str], conversation: str, turn: Turn
) -> tuple[TurnResult, list[dict[str, Any]]]:
    """Send the message, answer its pauses, wait until it settles: (outcome, its steps)."""
    outcome = TurnResult(say=turn.say)
    started = time.monotonic()
    body: dict[str, Any] = {"text": turn.say}
    if turn.mode is not None:
        body["mode"] = turn.mode
    view = await _request(
        stack, "POST", f"/v1/conversations/{conversation}/messages?wait=true", auth, body
    )
    turn_id = view["id"]
    answers = list(turn.answers)
    confirmed = False  # the proposal ``may_propose`` allows
    deadline = time.monotonic() + stack.turn_timeout
    seen: set[str] = set()
    while True:
        pending = view.get("pending")
        if view["status"] == "awaiting_input" and pending and pending["pause_id"] not in seen:
            seen.add(pending["pause_id"])
            outcome.pauses.append(pending["kind"])
            if answers:
                answer = answers.pop(0)
            elif turn.expect.may_propose and pending["kind"] == "proposal" and not confirmed:
                answer, confirmed = Answer(action="confirm"), True
            else:
                break  # the scenario expects the turn to stay paused
            await _request(
                stack,
                "POST",
                f"/v1/turns/{turn_id}/input",
                auth,
                {"action": answer.action, "text": answer.text, "pause_id": pending["pause_id"]},
            )
        elif view["status"] in SETTLED:
            break
        if time.monotonic() > deadline:
            raise RunError(
                f"turn {view['turn_number']} ({turn.say[:40]!r}) not settled after "
                f"{stack.turn_timeout:.0f} s: {view['status']}"
            )
        await asyncio.sleep(stack.poll)
        view = await _request(stack, "GET", f"/v1/turns/{turn_id}", auth, None)
    outcome.status = view["status"]
    outcome.response = view.get("response") or ""
    outcome.llm_calls = int(view.get("llm_calls") or 0)
    outcome.repairs = int((view.get("usage") or {}).get("repairs") or 0)
    outcome.fallbacks = list(view.get("fallbacks") or [])
    outcome.breakers = list(view.get("breakers") or [])
    outcome.seconds = round(time.monotonic() - started, 2)
    return outcome, list(view.get("steps") or [])


async def _request(
    stack: Stack, method: str, url: str, auth: dict[str, str], body: Any
) -> dict[str, Any]:
    response = await stack.http.request(method, url, headers=auth, json=body)
    if response.status_code >= 400:
        raise RunError(f"{method} {url}: HTTP {response.status_code}: {response.text[:300]}")
    return response.json() if response.content else {}


# --- paths reached -----------------------------------------------------------------------------


def _answer(call: Call) -> dict[str, Any]:
    content = call.content
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except ValueError:
            return {}
    return content if isinstance(content, dict) else {}


def _paths(
    turn: Turn,
    outcome: TurnResult,
    steps: list[dict[str, Any]],
    calls: list[Call],
    before: ConversationState,
    after: ConversationState,
) -> set[str]:
    """Which paths of the turn this run took, from what the turn did (not what the scenario
    hoped): its nodes, steps and pauses, the answers its nodes gave, its registry."""
    done = [s for s in steps if s.get("status") == "completed"]
    reached = {s["step_type"] for s in done if s.get("step_type")}
    groups = [s.get("group") for s in steps]
    if len(groups) != len(set(groups)):
        reached.add("parallel_group")
    nodes = {c.node for c in calls}
    reached |= nodes & {"cook", "brainstorm"}
    if "act_quick" in nodes:
        reached.add("quick")
    if steps and "proposal" not in outcome.pauses:
        reached.add("plan_direct")
    for call in calls:
        answer = _answer(call)
        if call.node == "understand":
            if answer.get("needs_clarification") and answer.get("clarification_questions"):
                reached.add("clarify_understand")
            curation = answer.get("entity_curation") or {}
            if curation.get("drop") or curation.get("clear_all"):
                reached.add("forget")
        if call.node == "think" and (answer.get("outcome") or {}).get("decision") == "clarify":
            reached.add("clarify_think")
    if "question" in outcome.pauses:
        reached.add("ask_user")
    if "proposal" in outcome.pauses and turn.answers:
        actions = [a.action for a in turn.answers]
        reached.add("propose_rejected" if "reject" in actions else "propose_confirmed")
    unsaved_before = before.registry.get_truly_pending_artifacts()
    unsaved_after = after.registry.get_truly_pending_artifacts()
    if set(unsaved_before) - set(unsaved_after) and "write" in reached:
        reached.add("generate_then_save")
    if "generate" in reached and set(unsaved_before) & set(unsaved_after):
        if len(unsaved_after) <= len(unsaved_before):
            reached.add("revise_generated")
    if "@[" in turn.say:
        reached.add("mention")
    if turn.edits:
        reached.add("ui_edit")
    if turn.mode not in ("cook", "brainstorm") and before.handoff is not None:
        reached.add("handoff")
    said = " ".join([turn.say, *(a.text or "" for a in turn.answers)]).lower()
    if any(word in said for word in RELATIVE_WORDS) or RELATIVE_SPAN.search(said):
        reached.add("relative_date")
    return reached


RELATIVE_SPAN = re.compile(r"\b(next|in|within) (\w+ )?(days|weeks)\b")
RELATIVE_WORDS = (
    "today",
    "tomorrow",
    "tonight",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "next week",
    "this week",
    "weekend",
)
