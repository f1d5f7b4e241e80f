"""The crud activity hands a refused value back to the model at once: a tool error, no retry."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.crud import CrudActivities
from activities.payloads import CrudCallRequest, StateRef
from activities.saved_state import SavedStates
from domain.conversation import ConversationState
from domain.crud import validate
from domain.crud.executor import CrudExecutor
from domain.nodes import ToolCall
from domain.registry import SessionIdRegistry
from tests.activities.saved_conversation import save


def call(user: uuid.UUID, tool: str, params: dict[str, Any]) -> CrudCallRequest:
    return CrudCallRequest(
        user_id=str(user),
        call=ToolCall(tool=tool, params=params),  # type: ignore[arg-type]
        registry={},
        idempotency_key=uuid.uuid4().hex,
    )


async def run(executor: CrudExecutor, request: CrudCallRequest):
    # Returning (rather than raising) is what keeps Temporal from retrying the activity.
    return await ActivityEnvironment().run(CrudActivities(executor).crud, request)


async def rows(executor: CrudExecutor, user: uuid.UUID, table: str) -> list[dict[str, Any]]:
    result = await run(executor, call(user, "db_read", {"table": table}))
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
    executor: CrudExecutor, user: uuid.UUID, tool: str, params: dict[str, Any], error: str
):
    result = await run(executor, call(user, tool, params))
    assert result.error is not None and result.error.startswith(error)
    assert result.result is None and result.attempt == 1
    assert await rows(executor, user, params["table"]) == []


async def test_a_database_data_error_is_a_tool_error_with_no_driver_text(
    executor: CrudExecutor, user: uuid.UUID, monkeypatch
):
    # Pretend validation missed the range: PostgreSQL's NumericValueOutOfRange must still
    # come back as a tool error, not an exception Temporal would retry.
    monkeypatch.setattr(validate, "INTEGER_BOUNDS", ((validate.Integer, 10**40),))
    params = {"table": "recipes", "data": {"name": "Stew", "servings": 10**30}}
    result = await run(executor, call(user, "db_create", params))
    assert result.error is not None and "refused a value of this call" in result.error
    assert "psycopg" not in result.error and "INSERT" not in result.error
    monkeypatch.undo()
    assert await rows(executor, user, "recipes") == []


@pytest.mark.parametrize("copy_sent", [False, True], ids=["by reference", "copy sent (older runs)"])
async def test_an_old_row_read_through_a_working_copy_keeps_its_ref(sessions, pantry, copy_sent):
    """Turn 10's working copy no longer holds the pantry read in turn 1; the call resolves
    refs in the saved registry, so the rice is still inv_3, and the copy gets its entry.
    The copy itself stays in the workflow; runs recorded before that sent it along."""
    pantry.registry.begin_turn(1)
    rice = pantry.registry.resolve("inv_3")
    saved_state = ConversationState(registry=pantry.registry.to_dict())
    conversation, version = await save(sessions, pantry.user, saved_state)
    working = SessionIdRegistry.from_dict(saved_state.for_workflow(10).registry)
    base = working.to_dict()
    working.begin_turn(10)
    assert working.known_refs() == []
    request = call(pantry.user, "db_read", {"table": "inventory"}).model_copy(
        update={
            "registry": working.snapshot() if copy_sent else None,
            "state_ref": StateRef(
                user_id=str(pantry.user),
                conversation_id=conversation,
                version=version,
                registry=working.delta_since(base),
            ),
        }
    )
    crud = CrudActivities(pantry.executor, SavedStates(sessions))
    result = await ActivityEnvironment().run(crud.crud, request)
    assert sorted(row["id"] for row in result.result.rows) == ["inv_1", "inv_2", "inv_3", "inv_4"]
    if result.known is not None:
        working.adopt(result.known)
    working.apply_delta(result.registry_delta)
    assert working.resolve("inv_3") == rice
    assert working.ref_turn_last_ref["inv_3"] == 10
    assert working.counters == pantry.registry.counters  # no new refs were made
    assert working.known_refs() == ["inv_1", "inv_2", "inv_3", "inv_4"]


async def test_a_call_with_neither_a_registry_nor_a_state_is_refused_for_good(executor, user):
    request = call(user, "db_read", {"table": "inventory"}).model_copy(update={"registry": None})
    with pytest.raises(ApplicationError) as raised:
        await run(executor, request)
    assert raised.value.non_retryable and raised.value.type == "invalid_request"
