"""The crud activity hands a refused value back to the model at once: a tool error, no retry."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from temporalio.testing import ActivityEnvironment

from activities.crud import CrudActivities
from activities.payloads import CrudCallRequest, StateRef
from activities.saved_state import SavedStates
from domain.conversation import ConversationState
from domain.crud import validate
from domain.crud.executor import CrudExecutor
from domain.nodes import ToolCall
from tests.activities.saved_conversation import save


@pytest.fixture
async def turn(sessions, user) -> StateRef:
    """A turn's state by reference: a conversation saved once, nothing changed since."""
    conversation, version = await save(sessions, user, ConversationState())
    return StateRef(user_id=str(user), conversation_id=conversation, version=version)


def call(turn: StateRef, tool: str, params: dict[str, Any]) -> CrudCallRequest:
    return CrudCallRequest(
        user_id=turn.user_id,
        call=ToolCall(tool=tool, params=params),  # type: ignore[arg-type]
        state_ref=turn,
        idempotency_key=uuid.uuid4().hex,
    )


async def run(executor: CrudExecutor, sessions, request: CrudCallRequest):
    # Returning (rather than raising) is what keeps Temporal from retrying the activity.
    crud = CrudActivities(executor, SavedStates(sessions))
    return await ActivityEnvironment().run(crud.crud, request)


async def rows(executor: CrudExecutor, sessions, turn: StateRef, table: str) -> list[dict]:
    result = await run(executor, sessions, call(turn, "db_read", {"table": table}))
    assert result.error is None
    return result.result.rows


@pytest.mark.parametrize(
    ("tool", "params", "error"),
    [
        (
            "db_create",
            {"table": "inventory", "data": {"name": "rice", "quantity": "NaN"}},
            "data[0].quantity: NaN is not a number the kitchen can store",
        ),
        (
            "db_create",
            {"table": "recipes", "data": {"name": "Stew", "servings": 10**30}},
            "data[0].servings: out of range for an integer column",
        ),
        (
            "db_read",
            {"table": "inventory", "filters": [{"field": "name", "op": "=", "value": "ri\x00ce"}]},
            "filters[0].value: text cannot contain a NUL character",
        ),
    ],
    ids=["nan", "oversized integer", "nul in a filter"],
)
async def test_a_value_postgresql_cannot_store_is_a_tool_error_on_the_first_attempt(
    executor: CrudExecutor, sessions, turn: StateRef, tool: str, params: dict[str, Any], error: str
):
    result = await run(executor, sessions, call(turn, tool, params))
    assert result.error is not None and result.error.startswith(error)
    assert result.result is None and result.attempt == 1
    assert await rows(executor, sessions, turn, params["table"]) == []


async def test_a_database_data_error_is_a_tool_error_with_no_driver_text(
    executor: CrudExecutor, sessions, turn: StateRef, monkeypatch
):
    # Pretend validation missed the range: PostgreSQL's NumericValueOutOfRange must still
    # come back as a tool error, not an exception Temporal would retry.
    monkeypatch.setattr(validate, "INTEGER_BOUNDS", ((validate.Integer, 10**40),))
    params = {"table": "recipes", "data": {"name": "Stew", "servings": 10**30}}
    result = await run(executor, sessions, call(turn, "db_create", params))
    assert result.error is not None and "refused a value of this call" in result.error
    assert "psycopg" not in result.error and "INSERT" not in result.error
    monkeypatch.undo()
    assert await rows(executor, sessions, turn, "recipes") == []


async def test_an_old_row_read_through_a_working_copy_keeps_its_ref(sessions, pantry):
    """Turn 10's working copy no longer holds the pantry read in turn 1; the call resolves
    refs in the saved registry, so the rice is still inv_3, and the copy gets its entry
    with the call's changes. The copy itself stays in the workflow."""
    pantry.registry.begin_turn(1)
    rice = pantry.registry.resolve("inv_3")
    saved_state = ConversationState(registry=pantry.registry)
    conversation, version = await save(sessions, pantry.user, saved_state)
    working = saved_state.for_workflow(10).registry
    base = working.clone()
    working.begin_turn(10)
    assert working.known_refs() == []
    turn = StateRef(
        user_id=str(pantry.user),
        conversation_id=conversation,
        version=version,
        registry=working.delta_since(base),
    )
    result = await run(pantry.executor, sessions, call(turn, "db_read", {"table": "inventory"}))
    assert sorted(row["id"] for row in result.result.rows) == ["inv_1", "inv_2", "inv_3", "inv_4"]
    working.apply_delta(result.registry_delta)
    assert working.resolve("inv_3") == rice
    assert working.last_referenced("inv_3") == 10
    assert working.counters == pantry.registry.counters  # no new refs were made
    assert working.known_refs() == ["inv_1", "inv_2", "inv_3", "inv_4"]
