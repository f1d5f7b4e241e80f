"""The API's Temporal client: start a turn, answer its pause, read its progress, cancel it."""

from __future__ import annotations

import logging
from datetime import timedelta

from temporalio.client import Client, WorkflowHandle
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.service import RPCError

from domain.modes import BYPASS_MODES
from workflows.contracts import ProgressQuery, TurnInput, TurnProgress, UserInput
from workflows.search_attributes import CONVERSATION_ID, TURN_STATUS, USER_ID

log = logging.getLogger(__name__)


class TurnClient:
    def __init__(
        self,
        client: Client,
        *,
        task_queue: str,
        namespace: str = "default",
        query_timeout: float = 3.0,
    ) -> None:
        self.client = client
        self.task_queue = task_queue
        self.namespace = namespace
        self.query_timeout = timedelta(seconds=query_timeout)

    def handle(self, workflow_id: str) -> WorkflowHandle:
        return self.client.get_workflow_handle(workflow_id)

    async def start(self, workflow_id: str, turn: TurnInput) -> str:
        """Start the turn's workflow (cook and brainstorm have their own); returns its run id."""
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
                    SearchAttributePair(TURN_STATUS, "running"),
                ]
            ),
        )
        return handle.first_execution_run_id or handle.result_run_id or ""

    async def answer(self, workflow_id: str, user_input: UserInput) -> None:
        await self.handle(workflow_id).signal("submit_input", user_input)

    async def progress(self, workflow_id: str, after_seq: int = 0) -> TurnProgress | None:
        """The live progress, or None when no worker can answer right now."""
        try:
            return await self.handle(workflow_id).query(
                "progress",
                ProgressQuery(after_seq=after_seq),
                result_type=TurnProgress,
                rpc_timeout=self.query_timeout,
            )
        except RPCError as error:
            log.warning("progress query failed for %s: %s", workflow_id, error)
            return None

    async def cancel(self, workflow_id: str) -> None:
        await self.handle(workflow_id).cancel()

    async def healthy(self) -> bool:
        try:
            return await self.client.service_client.check_health()
        except RPCError:
            return False
