"""The process's Temporal client (``connect``, the one way every entry point connects), and
the API's use of it: start a turn, answer its pause, read its progress, cancel it."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import Literal

from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from api.telemetry import client_interceptors, runtime_for
from domain.modes import BYPASS_MODES
from domain.settings import Settings
from domain.startup import CannotStart
from workflows.interface import InputReceipt, ProgressQuery, TurnInput, TurnProgress, UserInput
from workflows.search_attributes import CONVERSATION_ID, TURN_STATUS, USER_ID

log = logging.getLogger(__name__)


async def connect(settings: Settings, *, within: float = 60.0) -> Client:
    """The Temporal client of ``settings``: its namespace, the pydantic data converter, the
    runtime that serves metrics and the tracing interceptor when they are on (workers built
    on the client inherit all of it). Waits up to ``within`` seconds for a frontend that is
    still starting (a fresh dev server, or a compose service that came up after us)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        try:
            return await Client.connect(
                settings.temporal_target,
                namespace=settings.temporal_namespace,
                data_converter=pydantic_data_converter,
                runtime=runtime_for(settings),
                interceptors=client_interceptors(settings),
            )
        except RuntimeError as error:  # the SDK's "Failed client connect: ..."
            if loop.time() >= deadline:
                raise CannotStart(f"Temporal at {settings.temporal_target}: {error}") from error
            log.info("Temporal not ready yet (%s); retrying", error)
            await asyncio.sleep(0.5)


Liveness = Literal[
    "unknown", "running", "missing", "completed", "failed", "cancelled", "terminated", "timed_out"
]


class AnswerNotTaken(Exception):
    """No worker took the answer in time (none running, Temporal unreachable). It may still
    count once one does: send it again with the same ``input_id``, which counts once."""


class AnswerRefused(Exception):
    """The turn did not take the answer; ``code`` says why (the validator's error type)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class TurnClient:
    def __init__(
        self,
        client: Client,
        *,
        task_queue: str,
        namespace: str = "default",
        query_timeout: float = 3.0,
        answer_timeout: float = 10.0,
    ) -> None:
        self.client = client
        self.task_queue = task_queue
        self.namespace = namespace
        self.query_timeout = timedelta(seconds=query_timeout)
        self.answer_timeout = timedelta(seconds=answer_timeout)

    @classmethod
    def from_settings(cls, client: Client, settings: Settings) -> TurnClient:
        return cls(
            client,
            task_queue=settings.task_queue,
            namespace=settings.temporal_namespace,
            query_timeout=settings.progress_query_timeout_seconds,
            answer_timeout=settings.answer_timeout_seconds,
        )

    def handle(self, workflow_id: str) -> WorkflowHandle:
        return self.client.get_workflow_handle(workflow_id)

    async def start(self, workflow_id: str, turn: TurnInput, status: str = "running") -> str:
        """Start the turn's workflow (cook and brainstorm have their own); returns its run id.
        ``status`` is the turn's as reserved (``queued`` behind a turn still saving), the
        ``TurnStatus`` search attribute until the workflow sets its own."""
        kind = "BypassTurnWorkflow" if turn.mode in BYPASS_MODES else "TurnWorkflow"
        handle = await self.client.start_workflow(
            kind,
            turn,
            id=workflow_id,
            task_queue=self.task_queue,
            static_summary=turn.message[:200],
            search_attributes=TypedSearchAttributes(
                [
                    SearchAttributePair(CONVERSATION_ID, turn.conversation_id),
                    SearchAttributePair(USER_ID, turn.user_id),
                    SearchAttributePair(TURN_STATUS, status),
                ]
            ),
        )
        return handle.first_execution_run_id or handle.result_run_id or ""

    async def answer(self, workflow_id: str, user_input: UserInput) -> InputReceipt:
        """Answer the turn's open pause through its ``answer`` update: the receipt, or
        ``AnswerRefused`` (another pause, already answered, nothing open, turn ended).
        The input id is the update id, so a retried answer gets the first one's receipt."""
        try:
            return await self.handle(workflow_id).execute_update(
                "answer",
                user_input,
                id=f"answer-{user_input.input_id}",
                result_type=InputReceipt,
                rpc_timeout=self.answer_timeout,
            )
        except WorkflowUpdateRPCTimeoutOrCancelledError:
            raise AnswerNotTaken(
                "no worker took the answer in time; send it again with the same input_id"
            ) from None
        except WorkflowUpdateFailedError as error:
            cause = error.cause
            if isinstance(cause, ApplicationError):
                raise AnswerRefused(cause.type or "refused", cause.message) from None
            raise AnswerRefused("refused", str(cause or error)) from None
        except RPCError as error:
            if error.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.FAILED_PRECONDITION):
                raise AnswerRefused("not_awaiting_input", "the turn has ended") from None
            raise AnswerNotTaken(
                f"Temporal did not take the answer ({error.status.name})"
            ) from None

    async def progress(self, workflow_id: str, after_seq: int = 0) -> TurnProgress | None:
        """The live progress, or None when it cannot be had right now: no worker, a query
        that failed (a history the worker cannot replay), a timeout. Callers fall back to
        what the database knows; a read never fails because of it."""
        try:
            return await self.handle(workflow_id).query(
                "progress",
                ProgressQuery(after_seq=after_seq),
                result_type=TurnProgress,
                rpc_timeout=self.query_timeout,
            )
        except Exception as error:  # noqa: BLE001 - any failure here only loses the live view
            log.warning("progress query failed for %s: %s", workflow_id, error)
            return None

    async def liveness(self, workflow_id: str) -> Liveness:
        """Whether the turn's workflow is running, ended (and how), or was never started."""
        try:
            description = await self.handle(workflow_id).describe()
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND:
                return "missing"
            log.warning("could not describe %s: %s", workflow_id, error)
            return "unknown"  # Temporal unreachable: nothing is ended on a guess
        except RuntimeError as error:  # a lazy client that cannot connect at all
            log.warning("could not describe %s: %s", workflow_id, error)
            return "unknown"
        return _LIVENESS.get(description.status, "running")

    async def cancel(self, workflow_id: str) -> None:
        await self.handle(workflow_id).cancel()

    async def healthy(self) -> bool:
        try:
            return await self.client.service_client.check_health()
        except RPCError:
            return False


_LIVENESS: dict[WorkflowExecutionStatus | None, Liveness] = {
    WorkflowExecutionStatus.COMPLETED: "completed",
    WorkflowExecutionStatus.FAILED: "failed",
    WorkflowExecutionStatus.CANCELED: "cancelled",
    WorkflowExecutionStatus.TERMINATED: "terminated",
    WorkflowExecutionStatus.TIMED_OUT: "timed_out",
}
