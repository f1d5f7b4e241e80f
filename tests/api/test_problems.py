"""Errors as clients need them: one shape for every error, text PostgreSQL cannot store is a
422 naming the field, and a database that is down (or goes away) is a 503 with Retry-After."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import create_async_engine
from temporalio.service import RPCError, RPCStatusCode

from api.app import create_app
from api.deps import Services
from api.temporal import TurnClient
from domain.db.engine import create_engine, session_factory
from domain.db.urls import app_url, sync_url
from tests.api.conftest import Api

NUL = "ri\u0000ce"
SURROGATE = "\\ud800"  # a JSON escape of half a UTF-16 pair: valid JSON, not storable text


async def post_raw(api: Api, url: str, body: str) -> httpx.Response:
    """POST a JSON text as written (``json=`` would refuse to encode a lone surrogate)."""
    headers = {**api.auth, "Content-Type": "application/json"}
    return await api.http.post(url, content=body.encode(), headers=headers)


def assert_422_naming(response: httpx.Response, *loc: str | int) -> dict:
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert any(d["loc"][: len(loc)] == list(loc) for d in error["details"]), error
    assert ".".join(map(str, loc)) in error["message"]
    return error


# --- text PostgreSQL cannot store -----------------------------------------------------------


async def test_a_nul_in_a_message_is_a_422(api: Api):
    conversation = await api.conversation()
    response = await api.post(f"/v1/conversations/{conversation}/messages", json={"text": NUL})
    error = assert_422_naming(response, "body", "text")
    assert "NUL" in error["message"]


async def test_a_lone_surrogate_in_a_message_is_a_422(api: Api):
    conversation = await api.conversation()
    url = f"/v1/conversations/{conversation}/messages"
    response = await post_raw(api, url, f'{{"text": "hi {SURROGATE}"}}')
    error = assert_422_naming(response, "body", "text")
    assert "unicode" in error["message"]  # pydantic's own str check refuses it


async def test_a_nul_or_a_lone_surrogate_in_a_conversation_title_is_a_422(api: Api):
    response = await api.post("/v1/conversations", json={"title": NUL})
    assert_422_naming(response, "body", "title")
    response = await post_raw(api, "/v1/conversations", f'{{"title": "{SURROGATE}"}}')
    assert_422_naming(response, "body", "title")


async def test_a_nul_in_ui_change_data_is_a_422(api: Api):
    conversation = await api.conversation()
    change = {"action": "created", "table": "inventory", "id": str(uuid.uuid4())}
    body = {"text": "hi", "ui_changes": [{**change, "data": {"name": NUL}}]}
    response = await api.post(f"/v1/conversations/{conversation}/messages", json=body)
    assert_422_naming(response, "body", "ui_changes", 0, "data")


@pytest.mark.parametrize(
    ("url", "body", "loc"),
    [
        ("/v1/inventory", f'{{"name": "{SURROGATE}"}}', ["body", "name"]),
        ("/v1/shopping-list", f'{{"name": "milk", "notes": "{SURROGATE}"}}', ["body", "notes"]),
        ("/v1/tasks", f'{{"title": "{SURROGATE}"}}', ["body", "title"]),
        (
            "/v1/recipes",
            f'{{"name": "soup", "instructions": ["boil", "{SURROGATE}"]}}',
            ["body", "instructions", 1],
        ),
        (
            "/v1/recipes",
            f'{{"name": "soup", "ingredients": [{{"name": "{SURROGATE}"}}]}}',
            ["body", "ingredients", 0, "name"],
        ),
    ],
    ids=["inventory name", "shopping notes", "task title", "recipe step", "ingredient name"],
)
async def test_a_lone_surrogate_in_a_kitchen_text_field_is_a_422(api: Api, url, body, loc):
    assert_422_naming(await post_raw(api, url, body), *loc)


@pytest.mark.parametrize(
    "guidance",
    [
        '{"inventory": "ri\\u0000ce"}',
        '{"inventory": "\\ud800"}',
        '{"\\u0000": "key"}',
        '{"n": NaN}',
        '{"deep": ' + "[" * 40 + "]" * 40 + "}",
    ],
    ids=["nul", "surrogate", "nul key", "nan", "too deep"],
)
async def test_json_a_jsonb_column_cannot_store_is_a_422(api: Api, guidance: str):
    response = await api.http.put(
        "/v1/preferences",
        content=f'{{"subdomain_guidance": {guidance}}}'.encode(),
        headers={**api.auth, "Content-Type": "application/json"},
    )
    assert_422_naming(response, "body", "subdomain_guidance")


async def test_a_nul_in_a_query_parameter_is_a_422(api: Api):
    response = await api.get("/v1/inventory", params={"location": "fri\u0000dge"})
    assert_422_naming(response, "query", "location")


async def test_a_nul_in_an_answer_is_a_422(api: Api):
    conversation = await api.conversation()
    started = await api.post(f"/v1/conversations/{conversation}/messages", json={"text": "hi"})
    assert started.status_code == 202, started.text
    turn = started.json()["id"]
    response = await api.post(f"/v1/turns/{turn}/input", json={"action": "answer", "text": NUL})
    assert_422_naming(response, "body", "text")


async def test_an_unknown_key_that_is_a_lone_surrogate_is_a_422_not_a_500(api: Api):
    response = await post_raw(api, "/v1/inventory", f'{{"name": "rice", "{SURROGATE}": 1}}')
    assert response.status_code == 422
    assert response.json()["error"]["details"][0]["loc"][0] == "body"


# --- one shape for every error --------------------------------------------------------------


async def test_a_validation_error_names_every_bad_field_in_the_error_shape(api: Api):
    response = await api.post("/v1/inventory", json={"name": 3, "quantity": "lots"})
    assert response.status_code == 422
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert error["code"] == "invalid_request"
    assert "body.name" in error["message"] and "body.quantity" in error["message"]
    assert {tuple(d["loc"]) for d in error["details"]} == {("body", "name"), ("body", "quantity")}
    assert all(set(d) == {"loc", "msg", "type"} for d in error["details"])


async def test_a_body_that_is_not_json_is_a_422_in_the_error_shape(api: Api):
    response = await post_raw(api, "/v1/conversations", "{not json")
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"


async def test_an_unknown_route_is_a_404_in_the_error_shape(api: Api):
    response = await api.get("/v1/nowhere")
    assert response.status_code == 404
    assert response.json() == {
        "error": {"code": "not_found", "message": "Not Found: GET /v1/nowhere"}
    }


async def test_a_method_a_route_does_not_have_is_a_405_in_the_error_shape(api: Api):
    response = await api.delete("/v1/conversations")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert response.headers["allow"] == "POST"  # Starlette names the first route matching


async def test_a_missing_token_is_a_401_in_the_error_shape(http: httpx.AsyncClient):
    response = await http.get("/v1/conversations")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthenticated"


# --- the database down ----------------------------------------------------------------------


@pytest.fixture
async def db_down(api_services: Services) -> AsyncIterator[httpx.AsyncClient]:
    """The app with PostgreSQL unreachable (nothing listens on port 1); Temporal is up."""
    engine = create_engine("postgresql+psycopg://alfred_app@127.0.0.1:1/alfred")
    services = Services(api_services.settings, session_factory(engine), api_services.turns)
    transport = httpx.ASGITransport(app=create_app(services))
    async with httpx.AsyncClient(transport=transport, base_url="http://alfred") as client:
        yield client
    await engine.dispose()


def assert_database_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"] == "5"
    assert response.json()["error"]["code"] == "database_unavailable"
    assert "127.0.0.1" not in response.text  # not the driver's text


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("GET", "/v1/conversations", None),
        ("POST", "/v1/conversations", {"title": "dinner"}),
        ("POST", "/v1/inventory", {"name": "rice"}),
        ("GET", "/v1/turns/00000000-0000-4000-8000-000000000001", None),
    ],
)
async def test_database_down_is_a_503_with_retry_after(db_down, method, url, body):
    headers = {"Authorization": "Bearer any-token"}  # checking it needs the database
    assert_database_unavailable(await db_down.request(method, url, json=body, headers=headers))


async def test_readiness_is_a_503_naming_the_database_when_it_is_down(db_down):
    response = await db_down.get("/readyz")
    assert response.status_code == 503
    assert response.headers["retry-after"] == "5"
    assert response.json() == {"ready": False, "checks": {"database": False, "temporal": True}}


async def test_no_free_pooled_connection_is_a_503(api: Api, owner_url: str):
    engine = create_async_engine(
        sync_url(app_url(owner_url)), pool_size=1, max_overflow=0, pool_timeout=0.1
    )
    services = Services(api.services.settings, session_factory(engine), api.services.turns)
    transport = httpx.ASGITransport(app=create_app(services))
    try:
        async with (
            engine.connect(),  # the only connection, busy
            httpx.AsyncClient(transport=transport, base_url="http://alfred") as client,
        ):
            assert_database_unavailable(await client.get("/v1/conversations", headers=api.auth))
    finally:
        await engine.dispose()


async def test_a_database_that_goes_away_mid_request_is_a_503(api: Api, owner_url: str):
    """The server ends the connection (a restart, a failover) after the token was checked."""
    engine = create_engine(app_url(owner_url))

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def terminate(conn, cursor, statement, *_):
        if "FROM conversations" in statement:
            cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")

    services = Services(api.services.settings, session_factory(engine), api.services.turns)
    transport = httpx.ASGITransport(app=create_app(services))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://alfred") as client:
            response = await client.get("/v1/conversations", headers=api.auth)
        assert_database_unavailable(response)
    finally:
        await engine.dispose()


# --- Temporal down --------------------------------------------------------------------------


class TemporalDown(TurnClient):
    async def start(self, workflow_id, turn, status="running"):
        raise RPCError("connection refused", RPCStatusCode.UNAVAILABLE, b"")


async def test_temporal_down_when_a_turn_starts_is_a_503_with_retry_after(api: Api):
    turns = TemporalDown(api.services.turns.client, task_queue=api.services.turns.task_queue)
    services = Services(api.services.settings, api.services.sessions, turns)
    transport = httpx.ASGITransport(app=create_app(services))
    async with httpx.AsyncClient(transport=transport, base_url="http://alfred") as client:
        created = await client.post("/v1/conversations", json={}, headers=api.auth)
        url = f"/v1/conversations/{created.json()['id']}/messages"
        response = await client.post(url, json={"text": "hi"}, headers=api.auth)
    assert response.status_code == 503
    assert response.headers["retry-after"] == "5"
    error = response.json()["error"]
    assert error["code"] == "temporal_unavailable" and "send the message again" in error["message"]


async def test_more_than_100_ui_changes_in_a_message_is_a_422(api):
    conversation = await api.conversation()
    change = {"action": "deleted", "table": "inventory", "id": str(uuid.uuid4())}
    response = await api.post(
        f"/v1/conversations/{conversation}/messages",
        json={"text": "hi", "ui_changes": [change] * 101},
    )
    assert response.status_code == 422
    assert "ui_changes" in response.json()["error"]["message"]
