"""One turn worker in its own process, for the scale-out bench: the worker ``alfred worker``
runs, with the offline demo model answering after a fixed latency (0: at once).

    python -m bench.worker_process --address HOST:PORT --database URL --queue Q [--latency S]

Stops on SIGTERM or SIGINT, draining the activities it runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal

from activities.llm.demo_provider import DemoProvider
from activities.llm.provider import LlmProvider, LlmReply, LlmRequest
from api.temporal import connect
from domain.db.engine import create_engine, session_factory
from domain.settings import Settings
from workflows.worker import build_worker


class SlowModel:
    """A model that takes ``seconds`` to answer (a hosted model's latency, roughly)."""

    def __init__(self, model: LlmProvider, seconds: float) -> None:
        self.model = model
        self.seconds = seconds
        self.name = model.name

    async def complete(self, request: LlmRequest) -> LlmReply:
        await asyncio.sleep(self.seconds)
        return await self.model.complete(request)


async def serve(args: argparse.Namespace) -> None:
    settings = Settings(_env_file=None, temporal_address=args.address, task_queue=args.queue)
    client = await connect(settings)
    engine = create_engine(args.database)
    model: LlmProvider = DemoProvider()
    if args.latency:
        model = SlowModel(model, args.latency)
    worker = build_worker(
        client,
        task_queue=args.queue,
        sessions=session_factory(engine),
        provider=model,
        settings=settings,
    )
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    running = asyncio.create_task(worker.run())
    print("worker ready", flush=True)
    await stop.wait()
    await worker.shutdown()
    await running
    await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument("--queue", required=True)
    parser.add_argument("--latency", type=float, default=0.0)
    asyncio.run(serve(parser.parse_args()))
    os._exit(0)  # temporalio/sdk-python#300


if __name__ == "__main__":
    main()
