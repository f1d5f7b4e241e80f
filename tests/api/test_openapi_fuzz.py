"""Every operation of the OpenAPI schema, fuzzed by schemathesis: no request is a 5xx.

The requests go to the real app in-process, on the test's event loop (the loop the
PostgreSQL pool and the Temporal test server's client live on), as an authenticated user.
Schemathesis generates the cases; they are sent with httpx rather than ``case.call()``,
whose ASGI client runs the app on an event loop of its own.

Path ids are, as Hypothesis draws, random (a 404) or real: a fresh conversation, turn or
kitchen row made for the case, so bodies reach the database and Temporal. Generated text
rarely holds what PostgreSQL cannot store, so some cases get a NUL or a lone surrogate
appended to every string of their body and query: a new text field that is not
``SafeText`` shows up here as a 500.

A worker with the offline demo model runs the turns this starts, as ``make run`` does, so
an answer meets a real turn (paused, running or ended); the waits a turn read can do are
cut short: the test is about status codes, not turn outcomes. (With no worker at all, an
answer is a 503 ``worker_unavailable`` with Retry-After, on purpose: test_turn_ownership.)
A request that does not answer at all fails the test as a 5xx would.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator, Awaitable
from datetime import timedelta
from typing import Any, TypeVar

import httpx
import hypothesis
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error

from activities.llm.demo_provider import DemoProvider
from api.app import create_app
from api.deps import Services
from domain.users import create_user
from tests.api.test_kitchen import RESOURCES
from workflows.worker import build_worker

T = TypeVar("T")

schema = schemathesis.openapi.from_dict(create_app().openapi())

MAX_EXAMPLES = 15
"""Generated cases per operation: the whole file takes about half a minute on two cores."""

REQUEST_SECONDS = 10
"""A request still unanswered by then fails the test too: its client would be left hanging."""

HOSTILE = ["\x00", "\ud800"]
"""Text PostgreSQL cannot store: NUL, and half a UTF-16 pair (sent as the JSON ``\\ud800``)."""

NEW_ROWS = {r.path: r.create for r in RESOURCES}
"""A valid new row of each kitchen collection, for the ``{row_id}`` routes below it."""


@dataclasses.dataclass
class Fuzz:
    """The test's side of the app. Hypothesis drives a sync test, so each request is run on
    the test's event loop by hand (that loop is idle while a sync test body runs)."""

    loop: asyncio.AbstractEventLoop
    http: httpx.AsyncClient
    auth: dict[str, str]

    def run(self, work: Awaitable[T]) -> T:
        return self.loop.run_until_complete(work)

    def send(self, request: Awaitable[httpx.Response]) -> httpx.Response | None:
        """The response, or None if there is none in ``REQUEST_SECONDS``."""

        async def bounded() -> httpx.Response | None:
            task = asyncio.ensure_future(request)
            done, _ = await asyncio.wait({task}, timeout=REQUEST_SECONDS)
            if not done:  # (wait_for would raise whatever the cancelled app raises instead)
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                return None
            return task.result()

        return self.run(bounded())

    def created(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        response = self.run(self.http.post(url, json=body, headers=self.auth))
        assert response.status_code in (201, 202), response.text
        return response.json()


@pytest.fixture
async def fuzz(api_services: Services, sessions) -> AsyncIterator[Fuzz]:
    """An app on this test's services (the Temporal test server, the recording turn client
    that ends the turns started here, a worker with the demo model) and a user of its own.
    Progress queries time out fast, and ``?wait=true`` and event streams end soon."""
    api_services.turns.query_timeout = timedelta(seconds=0.05)
    settings = api_services.settings.model_copy(
        update={"api_wait_seconds": 0.2, "sse_max_seconds": 0.2}
    )
    services = dataclasses.replace(api_services, settings=settings)
    _, token = await create_user(sessions, "fuzz")
    transport = httpx.ASGITransport(app=create_app(services))
    http = httpx.AsyncClient(transport=transport, base_url="http://alfred")
    turns = api_services.turns
    async with build_worker(
        turns.client, task_queue=turns.task_queue, sessions=sessions, provider=DemoProvider()
    ):
        yield Fuzz(asyncio.get_running_loop(), http, {"Authorization": f"Bearer {token}"})
    await http.aclose()


def real_ids(fuzz: Fuzz, path: str) -> dict[str, str]:
    """Fresh objects for the ids in ``path`` (a template such as ``/v1/turns/{turn_id}``)."""
    ids: dict[str, str] = {}
    if "{conversation_id}" in path or "{turn_id}" in path:
        ids["conversation_id"] = fuzz.created("/v1/conversations", {"title": "fuzz"})["id"]
    if "{turn_id}" in path:
        url = f"/v1/conversations/{ids['conversation_id']}/messages"
        ids["turn_id"] = fuzz.created(url, {"text": "show my pantry"})["id"]
    if "{row_id}" in path:
        collection = path.removesuffix("/{row_id}")
        ids["row_id"] = fuzz.created(collection, NEW_ROWS[collection])["id"]
    return ids


def spiked(value: Any, text: str | None) -> Any:
    """``value`` with ``text`` appended to each of its strings (keys stay: they are names)."""
    if text is None:
        return value
    if isinstance(value, str):
        return value + text
    if isinstance(value, dict):
        return {k: spiked(v, text) for k, v in value.items()}
    if isinstance(value, list):
        return [spiked(v, text) for v in value]
    return value


@schema.parametrize()
@schema.given(real=st.booleans(), hostile=st.sampled_from([None, *HOSTILE]))
@hypothesis.settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,  # a turn start or a stream takes longer than Hypothesis' default
    database=None,  # no replay of earlier failures: each run draws afresh
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a hang would be retried for minutes
    # ``fuzz`` (one user) is shared by an operation's cases on purpose; what a case needs
    # fresh, ``real_ids`` makes per case.
    suppress_health_check=list(HealthCheck),
)
def test_no_request_is_a_server_error(case, real: bool, hostile: str | None, fuzz: Fuzz):
    if real:
        ids = real_ids(fuzz, case.operation.path)
        case.path_parameters = {**(case.path_parameters or {}), **ids}
    # Spiked once serialized: schemathesis cannot re-check a case holding a lone surrogate.
    kwargs = case.as_transport_kwargs(base_url="http://alfred", headers=fuzz.auth)
    body = kwargs.get("data")
    if "json" in kwargs:  # as requests would send it: escapes for non-ASCII, NaN as is
        body = json.dumps(spiked(kwargs["json"], hostile)).encode()
    # A URL carries a NUL (%00), but no lone surrogate: UTF-8 cannot encode one.
    params = spiked(kwargs.get("params"), hostile if hostile == "\x00" else None)
    request = fuzz.http.request(
        kwargs["method"],
        kwargs["url"],
        params=params,
        headers=kwargs["headers"],
        cookies=kwargs.get("cookies") or None,  # httpx warns on any per-request cookies
        content=body,
    )
    response = fuzz.send(request)
    if response is None:
        sent = f"{kwargs['method']} {kwargs['url']} {body!r:.300}"
        pytest.fail(f"no answer in {REQUEST_SECONDS} s to {sent}", pytrace=False)
    # An exception in the app reaches here through httpx (a 500 with its traceback); any
    # other 5xx the app answers fails this check.
    case.validate_response(response, checks=[not_a_server_error])
