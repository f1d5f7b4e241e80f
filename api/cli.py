"""The ``alfred`` command: run the stack, the worker or the API; migrate; manage users; chat.

Settings are read here, once, and passed down. This is the only place that prints. Each
command imports what it uses when it runs: the parser and a process of one command (a worker
in the image) load no other command's code (the eval harness, the chat client, the embedded
stack).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import threading
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from api.logs import configure_logging
from domain.settings import Settings
from domain.startup import CannotStart

if TYPE_CHECKING:
    from domain.db.server import Database


def _describe(database: Database) -> str:
    where = "embedded PostgreSQL" if database.embedded else "PostgreSQL at ALFRED_DATABASE_URL"
    return f"{where}, migrated to the latest revision"


def _leave(code: int) -> int:
    """Exit without interpreter teardown once Temporal's runtime has run in this process:
    its threads can abort CPython's finalization (temporalio/sdk-python#300)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def cmd_run(settings: Settings, workers: int = 1) -> int:
    """The embedded default stack: PostgreSQL, the Temporal dev server with its UI, the
    worker and the API, until Ctrl-C. External servers are used when configured.
    ``workers`` > 1 adds worker processes beside the one in this process.

    Ctrl-C (or SIGTERM) stops the parts: the workers (this process's and the others) drain
    while the API ends its event streams and stops; then the dev server and PostgreSQL stop
    (each runs in a session of its own, so the terminal's Ctrl-C reaches only this
    process). A second Ctrl-C stops them all at once (exit code 130)."""
    from activities.llm.providers import provider_from_settings
    from api import stack
    from api.devserver import dev_server
    from api.processes import WorkerProcesses
    from domain.db.server import prepare_database

    provider = provider_from_settings(settings)
    data_dir = settings.data_dir
    drain = settings.worker_drain_seconds
    with ExitStack() as parts:
        api_sockets = stack.bind_api(settings)
        for sock in api_sockets:
            parts.callback(sock.close)
        database = prepare_database(settings)
        parts.callback(database.close)
        if settings.temporal_address is None:
            address = parts.enter_context(
                dev_server(
                    host=settings.temporal_host,
                    port=settings.temporal_port,
                    ui_port=settings.temporal_ui_port,
                    db_file=data_dir / "temporal.db",
                    log_file=data_dir / "temporal.log",
                )
            )
            settings = settings.model_copy(update={"temporal_address": address})
            temporal = f"{address} (embedded dev server, state in {data_dir / 'temporal.db'})"
        else:
            temporal = settings.temporal_address
        if workers > 1:
            extra = WorkerProcesses(
                workers - 1,
                env={
                    **os.environ,
                    "ALFRED_TEMPORAL_ADDRESS": settings.temporal_target,
                    "ALFRED_DATABASE_URL": database.owner_url,
                },
            )
            extra.start()
            parts.callback(extra.stop, drain + 20)

        async def announce(sessions) -> None:
            token = await stack.dev_token(sessions, data_dir / "dev-token")
            api = f"http://{settings.api_host}:{settings.api_port}"
            print("alfred: ready", flush=True)
            print(f"  API          {api}   (docs: {api}/docs)")
            print(f"  Temporal     {temporal}")
            print(f"  Temporal UI  {settings.temporal_ui_base}")
            print(f"  database     {_describe(database)}")
            print(
                f"  model        {provider.name}"
                + (" (offline rule-based demo, not an LLM)" if provider.name == "demo" else "")
            )
            print(f"  workers      {workers} process{'es' if workers > 1 else ''}")
            print(f"  token        {token}   (saved in {data_dir / 'dev-token'})")
            print("alfred: press Ctrl-C to stop", flush=True)

        def stop_now() -> None:
            print("alfred: stopping at once; turns in flight go on at the next start", flush=True)
            if workers > 1:
                extra.stop(timeout=0)
            parts.close()  # the dev server and PostgreSQL, without waiting for the worker
            print("alfred: stopped", flush=True)
            _leave(130)

        asyncio.run(
            stack.serve(
                settings,
                database.app_url,
                provider=provider,
                announce=announce,
                api_sockets=api_sockets,
                also_stop=(lambda: extra.stop(drain + 20)) if workers > 1 else None,
                stop_now=stop_now,
            )
        )
        for sig in stack.STOP_SIGNALS:  # the last parts stop in a second or two
            signal.signal(sig, signal.SIG_IGN)
    print("alfred: stopped", flush=True)
    return _leave(0)


def cmd_workers(settings: Settings, processes: int) -> int:
    """``alfred worker --processes N``: N worker processes on the task queue, each started
    again if it dies; SIGTERM or Ctrl-C stops them all, each draining its activities."""
    if not (settings.database_url or settings.app_database_url) or not settings.temporal_address:
        print(
            "alfred: worker --processes needs ALFRED_DATABASE_URL and ALFRED_TEMPORAL_ADDRESS "
            "(the embedded stack is `alfred run --workers N`)",
            file=sys.stderr,
        )
        return 2
    from api.processes import WorkerProcesses

    children = WorkerProcesses(processes)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: stop.set())
    children.start()
    print(f"alfred: {processes} worker processes: {children.pids}", flush=True)
    stop.wait()
    children.stop(timeout=settings.worker_drain_seconds + 20)
    print("alfred: stopped", flush=True)
    return 0


def cmd_serve(settings: Settings, *, worker: bool, api: bool) -> int:
    """One part of a deployment (compose runs ``worker`` and ``api`` as services). With
    ``ALFRED_APP_DATABASE_URL`` it connects as the application role and nothing else;
    otherwise it derives that connection from the owner's (``prepare_database``)."""
    from activities.llm.providers import provider_from_settings
    from api import stack
    from domain.db.server import prepare_database

    provider = provider_from_settings(settings) if worker else None
    if settings.app_database_url:
        asyncio.run(
            stack.serve(
                settings, settings.app_database_url, worker=worker, api=api, provider=provider
            )
        )
        return _leave(0)
    database = prepare_database(settings, migrate=False)
    try:
        asyncio.run(
            stack.serve(settings, database.app_url, worker=worker, api=api, provider=provider)
        )
    finally:
        database.close()
    return _leave(0)


def cmd_db_upgrade(settings: Settings) -> int:
    from domain.db.server import prepare_database

    database = prepare_database(settings)
    try:
        print(f"alfred: {_describe(database)}")
    finally:
        database.close()
    return 0


def cmd_users_create(settings: Settings, name: str) -> int:
    from domain.db.engine import create_engine, session_factory
    from domain.db.server import prepare_database
    from domain.users import create_user

    database = prepare_database(settings)

    async def create() -> tuple[str, str]:
        engine = create_engine(database.app_url, pool_size=1)
        try:
            user_id, token = await create_user(session_factory(engine), name)
        finally:
            await engine.dispose()
        return str(user_id), token

    try:
        user_id, token = asyncio.run(create())
    finally:
        database.close()
    print(f"user {name!r} created: id {user_id}")
    print(f"token: {token}")
    return 0


def cmd_turns_end_stuck(settings: Settings, *, dry_run: bool) -> int:
    """End the running turns whose history this code cannot replay (``api.stuck``)."""
    from api.stuck import end_stuck, find_stuck
    from api.temporal import connect
    from domain.db.engine import create_engine, session_factory
    from domain.db.server import prepare_database

    database = prepare_database(settings, migrate=False)

    async def end_them() -> int:
        # A command run by hand serves no metrics: the worker beside it may hold the port.
        client = await connect(settings.model_copy(update={"metrics_address": None}))
        engine = create_engine(database.app_url, pool_size=1)
        try:
            stuck = await find_stuck(client)
            for turn in stuck:
                print(f"{turn.workflow_id}: does not replay: {turn.error[:300]}")
                if not dry_run:
                    await end_stuck(client, session_factory(engine), turn)
                    print(f"{turn.workflow_id}: terminated; its turn is ended (failed)")
        finally:
            await engine.dispose()
        return len(stuck)

    try:
        count = asyncio.run(end_them())
    finally:
        database.close()
    verb = "found" if dry_run else "ended"
    print(f"alfred: {count} stuck turn(s) {verb}")
    return _leave(0)


def cmd_turns_versions(settings: Settings) -> int:
    """Which running turns still need an old path of the turn (``api.turn_versions``);
    exit code 1 while one does."""
    from api.stack import connect
    from api.turn_versions import lines, report, waiting

    async def look():
        return await report(await connect(settings, within=10))

    found = asyncio.run(look())
    print("\n".join(lines(found)))
    return _leave(1 if waiting(found) else 0)


def cmd_chat(settings: Settings, args: argparse.Namespace) -> int:
    from api.chat import run_chat  # the chat client needs neither the database nor Temporal

    token = args.token or _read_token(settings)
    url = args.url or f"http://{settings.api_host}:{settings.api_port}"
    return run_chat(url, token, conversation_id=args.conversation, mode=args.mode)


def _read_token(settings: Settings) -> str:
    path = settings.data_dir / "dev-token"
    if not path.exists():
        raise SystemExit(f"no token: pass --token or start `alfred run` (it writes {path})")
    return path.read_text().strip()


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("at least 1")
    return value


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="alfred", description="Alfred, the kitchen assistant.")
    commands = top.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="the whole stack (embedded by default) until Ctrl-C")
    run.add_argument("--workers", type=_positive, default=1, help="worker processes (default 1)")
    worker = commands.add_parser("worker", help="run the turn worker")
    worker.add_argument(
        "--processes",
        type=_positive,
        default=1,
        help="worker processes on the task queue, supervised (default 1: this process)",
    )
    commands.add_parser("api", help="serve the HTTP API")
    db = commands.add_parser("db", help="database administration")
    db.add_subparsers(dest="db_command", required=True).add_parser(
        "upgrade", help="create the database if needed and apply migrations"
    )
    users = commands.add_parser("users", help="user administration")
    create = users.add_subparsers(dest="users_command", required=True).add_parser(
        "create", help="create a user and print its bearer token"
    )
    create.add_argument("name")
    turns = commands.add_parser("turns", help="turn administration")
    turn_commands = turns.add_subparsers(dest="turns_command", required=True)
    turn_commands.add_parser(
        "versions",
        help="which running turns still need an old path of the turn (exit 1 while any does)",
    )
    end_stuck = turn_commands.add_parser(
        "end-stuck",
        help="end running turns whose history this version cannot replay (a "
        "nondeterminism error): terminate the workflow, mark the turn failed",
    )
    end_stuck.add_argument("--dry-run", action="store_true", help="only list them")
    chat = commands.add_parser("chat", help="talk to Alfred in the terminal, over the API")
    chat.add_argument("--url", help="API address (default: the configured API host and port)")
    chat.add_argument("--token", help="bearer token (default: .alfred/dev-token)")
    chat.add_argument("--conversation", help="continue this conversation id")
    chat.add_argument("--mode", choices=["quick", "plan", "create", "cook", "brainstorm"])
    _add_eval(commands)
    return top


def _add_eval(commands: argparse._SubParsersAction) -> None:
    """``alfred eval`` (``evals.command``)."""
    run = commands.add_parser(
        "eval", help="run the evaluation suite against a model (or a recording)"
    )
    run.add_argument("what", nargs="*", help="`compare A.json B.json` to compare two runs")
    run.add_argument("--only", nargs="+", metavar="ID", help="run only these scenarios")
    run.add_argument(
        "--probes",
        action="store_true",
        help="run the probes (evals/probes: one-line requests as people type them)",
    )
    run.add_argument("--label", help="names the model(s) in the report (default: the models)")
    run.add_argument("--base-url", help="OpenAI-compatible endpoint (ALFRED_OPENAI_BASE_URL)")
    run.add_argument("--api-key", help="its key (ALFRED_OPENAI_API_KEY / OPENAI_API_KEY)")
    run.add_argument("--model", help="model for medium and high complexity calls")
    run.add_argument("--mini-model", help="model for low complexity calls")
    run.add_argument(
        "--node-model", action="append", default=[], metavar="NODE=MODEL", help="per node"
    )
    run.add_argument("--response-format", choices=["json_schema", "json_object"])
    run.add_argument("--timeout", type=float, help="seconds per model request")
    run.add_argument(
        "--temperature", type=float, help="sampling temperature (default: the server's)"
    )
    run.add_argument(
        "--context-tokens", type=int, help="the model's context window (tokens), if small"
    )
    run.add_argument("--turn-timeout", type=float, default=1800, help="seconds per turn")
    run.add_argument(
        "--node",
        choices=["understand", "think"],
        help="only this node is the model's, on each scenario's first turn (evals.nodes)",
    )
    run.add_argument("--record", action="store_true", help="keep the answers as cassettes")
    run.add_argument("--replay", metavar="LABEL", help="serve the cassettes of this label")
    run.add_argument("--out", type=Path, help="results file (default: evals/results/LABEL.json)")
    run.add_argument("--docs", action="store_true", help="put the report in docs/EVALS.md")


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    settings = Settings()
    configure_logging(settings)
    try:
        return _dispatch(settings, args)
    except CannotStart as error:  # a part could not start: say which, no traceback
        print(f"alfred: cannot start: {error}", file=sys.stderr)
        return _leave(1)
    except RuntimeError as error:
        if args.command != "run":  # elsewhere, an error while running keeps its traceback
            raise
        print(f"alfred: cannot start: {error}", file=sys.stderr)
        return _leave(1)


def _dispatch(settings: Settings, args: argparse.Namespace) -> int:
    if args.command == "run":
        return cmd_run(settings, workers=args.workers)
    if args.command == "worker" and args.processes > 1:
        return cmd_workers(settings, args.processes)
    if args.command in ("worker", "api"):
        return cmd_serve(settings, worker=args.command == "worker", api=args.command == "api")
    if args.command == "db":
        return cmd_db_upgrade(settings)
    if args.command == "chat":
        return cmd_chat(settings, args)
    if args.command == "turns" and args.turns_command == "versions":
        return cmd_turns_versions(settings)
    if args.command == "turns":
        return cmd_turns_end_stuck(settings, dry_run=args.dry_run)
    if args.command == "eval":
        from evals.command import cmd_eval

        return _leave(cmd_eval(settings, args))
    return cmd_users_create(settings, args.name)


if __name__ == "__main__":
    sys.exit(main())
