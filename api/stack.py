"""Serve the API and run the turn worker in one process (``alfred run``, ``alfred worker``,
``alfred api``), stopping cleanly on Ctrl-C or SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from temporalio.client import Client
from temporalio.service import RPCError

from activities.llm.provider import LlmProvider
from activities.llm.providers import provider_from_settings
from api.app import create_app
from api.deps import Services
from api.telemetry import trace_sql
from api.temporal import TurnClient, connect
from domain.db.engine import create_engine, session_factory
from domain.settings import Settings
from domain.startup import CannotStart
from domain.turn_store import Sessions
from domain.users import create_user, user_for_token
from workflows.search_attributes import register_search_attributes
from workflows.worker import build_worker

log = logging.getLogger(__name__)


class _EmbeddedServer(uvicorn.Server):
    """uvicorn without its own signal handling: the stack owns Ctrl-C for every part."""

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def bind_api(settings: Settings) -> list[socket.socket]:
    """The API's listening sockets (one per address the host resolves to, as uvicorn binds
    them), bound before the rest of the stack starts: the ports the dev server picks for
    itself cannot take the API's meanwhile, and a port in use is said at once."""
    host, port = settings.api_host, settings.api_port
    sockets: list[socket.socket] = []
    try:
        found = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
        for family, address in dict.fromkeys((f, a) for f, _, _, _, a in found):
            sockets.append(socket.create_server(address, family=family))
    except OSError as error:
        for sock in sockets:
            sock.close()
        reason = error.strerror or str(error)
        raise CannotStart(f"the API cannot listen on {host}:{port}: {reason}") from None
    return sockets


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # Ctrl-C, stop, hang-up


def _on_signals(first: Callable[[], None], again: Callable[[], None]) -> Callable[[], None]:
    """The first stop signal calls ``first``, any later one ``again``. Returns the undo."""
    loop = asyncio.get_running_loop()
    count = 0

    def got() -> None:
        nonlocal count
        count += 1
        (first if count == 1 else again)()

    def undo() -> None:
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)

    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, got)
    return undo


def exit_now() -> None:
    """Leave at once (a second signal): what the worker runs is retried elsewhere."""
    log.warning("stopping at once: activities in flight are abandoned (they are retried)")
    logging.shutdown()
    os._exit(130)


async def ensure_search_attributes(client: Client, settings: Settings) -> None:
    """An external cluster may lack them; an existing registration is fine."""
    try:
        await register_search_attributes(client, settings.temporal_namespace)
    except RPCError as error:
        log.info("search attributes not registered (%s); assuming they exist", error)


def _read(path: Path) -> str:
    return path.read_text().strip() if path.exists() else ""


def _write_private(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")
    path.chmod(0o600)


async def dev_token(sessions: Sessions, path: Path) -> str:
    """The dev user's token, kept in ``path``; a new dev user when it is missing or stale."""
    token = await asyncio.to_thread(_read, path)
    if token and await user_for_token(sessions, token) is not None:
        return token
    _, token = await create_user(sessions, "dev")
    await asyncio.to_thread(_write_private, path, token)
    return token


async def serve(
    settings: Settings,
    app_url: str,
    *,
    worker: bool = True,
    api: bool = True,
    provider: LlmProvider | None = None,
    announce: Callable[[Sessions], Awaitable[None]] | None = None,
    api_sockets: list[socket.socket] | None = None,
    also_stop: Callable[[], None] | None = None,
    stop_now: Callable[[], None] = exit_now,
) -> None:
    """Run the worker and/or the API until a signal arrives (or one of them dies); the API
    listens on ``api_sockets`` when given (``bind_api``), else binds its own. ``/readyz``
    answers 200 once ``announce`` is done and the worker runs.

    The first Ctrl-C, SIGTERM or hang-up stops the parts together: open event streams end
    with ``server_closing``, the API takes no new requests and gives those in flight up to
    ``worker_drain_seconds``, the worker lets its activities finish for as long, and
    ``also_stop`` runs meanwhile (in a thread). Another signal calls ``stop_now``."""
    engine = create_engine(app_url, pool_size=settings.db_pool_size)
    trace_sql(engine, settings)
    sessions = session_factory(engine)
    client = await connect(settings)
    await ensure_search_attributes(client, settings)
    stop, started = asyncio.Event(), asyncio.Event()
    undo_signals = _on_signals(stop.set, stop_now)
    tasks: list[asyncio.Task] = []
    server: _EmbeddedServer | None = None
    services: Services | None = None
    turn_worker = None
    try:
        if worker:
            turn_worker = build_worker(
                client,
                task_queue=settings.task_queue,
                sessions=sessions,
                provider=provider or provider_from_settings(settings),
                settings=settings,
            )
            tasks.append(asyncio.create_task(turn_worker.run(), name="worker"))
        if api:
            services = Services(
                settings=settings,
                sessions=sessions,
                turns=TurnClient.from_settings(client, settings),
                parts={"started": started.is_set},
            )
            if turn_worker is not None:
                services.parts["worker"] = lambda: turn_worker.is_running
            config = uvicorn.Config(
                create_app(services),
                host=settings.api_host,
                port=settings.api_port,
                log_level="warning",
                timeout_graceful_shutdown=max(1, round(settings.worker_drain_seconds)),
            )
            server = _EmbeddedServer(config)
            tasks.append(asyncio.create_task(server.serve(sockets=api_sockets), name="api"))
            # uvicorn exposes only a `started` flag, no event to await.
            while not server.started and not tasks[-1].done():  # noqa: ASYNC110
                await asyncio.sleep(0.05)
        # The banner means ready: the worker polls too (a busy machine starts it late).
        while turn_worker is not None and not turn_worker.is_running and not tasks[0].done():  # noqa: ASYNC110
            await asyncio.sleep(0.05)
        if announce is not None:
            await announce(sessions)
        started.set()
        waiter = asyncio.create_task(stop.wait())
        done, _ = await asyncio.wait([waiter, *tasks], return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            if task is not waiter and task.exception() is not None:
                raise task.exception()  # a part died: stop everything, say why
    finally:
        if services is not None:
            services.closing.set()
        if server is not None:
            server.should_exit = True
        draining = [asyncio.to_thread(also_stop)] if also_stop is not None else []
        if turn_worker is not None:
            draining.append(turn_worker.shutdown())
        try:
            await asyncio.gather(*draining)
            await asyncio.gather(*tasks, return_exceptions=True)
            await engine.dispose()
        finally:
            undo_signals()
