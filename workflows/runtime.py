"""A turn's in-workflow state and its activity calls, with the accounting every call needs.

``TurnRuntime`` holds what the turn knows (registry, conversation state, step results,
progress for the query) and calls activities by name with the policies of
``workflows.policies``: usage and LLM calls are counted, the LLM-call cap is enforced, and
every progress event records the attempt of the activity that produced it.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel
from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.contracts import (
        CrudCallRequest,
        CrudCallResult,
        MarkTurnRequest,
        MarkTurnResult,
        NodeCall,
        SchemaRequest,
        SchemaResult,
    )
    from domain.conversation import ConversationState, StepResult
    from domain.nodes import ToolCall
    from domain.registry import SessionIdRegistry
    from domain.turn_context import TurnContext
    from workflows import policies
    from workflows.contracts import TurnEvent, TurnInput, TurnProgress
    from workflows.search_attributes import TURN_STATUS

R = TypeVar("R", bound=BaseModel)


class LlmCapReached(Exception):
    """The turn used its LLM-call budget: the caller ends the step or the turn honestly."""


class TurnRuntime:
    def __init__(self, turn: TurnInput) -> None:
        self.turn = turn
        self.progress = TurnProgress(turn_number=turn.turn_number)
        self.registry = SessionIdRegistry()
        self.state = ConversationState()
        self.version = 0
        self.step_results: dict[int, StepResult] = {}
        self.timings: dict[str, str] = {}
        self.context = TurnContext()
        """Profile, dashboard and fresh rows (empty for turns recorded before it existed)."""

    @property
    def workflow_id(self) -> str:
        return workflow.info().workflow_id

    # --- progress ------------------------------------------------------------------------

    def emit(self, type_: str, data: dict[str, Any] | None = None, *, attempt: int = 1) -> None:
        seq = len(self.progress.events) + 1
        self.progress.events.append(
            TurnEvent(seq=seq, type=type_, attempt=attempt, data=data or {})
        )

    def set_status(self, status: str) -> None:
        """The turn's status, for the progress query and the TurnStatus search attribute."""
        self.progress.status = status  # type: ignore[assignment]
        if workflow.patched("turn-status-search-attribute"):
            workflow.upsert_search_attributes([TURN_STATUS.value_set(status)])

    def trip(self, kind: str, detail: str) -> None:
        """Record a tripped circuit breaker (kept in progress, the summary and the reply)."""
        self.progress.breakers.append(f"{kind}: {detail}")
        workflow.logger.info("breaker %s tripped: %s", kind, detail)

    def mark(self, time_name: str) -> None:
        self.timings[time_name] = workflow.now().isoformat()

    # --- calls ---------------------------------------------------------------------------

    @property
    def llm_budget_left(self) -> int:
        return self.turn.limits.max_llm_calls - self.progress.llm_calls

    async def llm(self, name: str, request: BaseModel, result_type: type[R], summary: str) -> R:
        """Call an LLM node activity, if the per-turn budget allows another call."""
        if self.llm_budget_left <= 0:
            raise LlmCapReached(name)
        self.progress.llm_calls += 1
        result = await workflow.execute_activity(
            name, request, result_type=result_type, summary=summary, **policies.LLM
        )
        if isinstance(result, NodeCall):
            self.progress.usage = self.progress.usage + result.usage
            self.progress.llm_calls += result.llm_attempts - 1
        return result

    async def local(self, name: str, request: BaseModel, result_type: type[R], summary: str) -> R:
        """A short, idempotent database activity, run as a local activity."""
        return await workflow.execute_local_activity(
            name, request, result_type=result_type, summary=summary, **policies.DB
        )

    async def crud(
        self, call: ToolCall, registry: SessionIdRegistry, *, key: str, step: int | None
    ) -> tuple[CrudCallResult, SessionIdRegistry]:
        target = call.params.get("table", "?")
        result = await self.local(
            "crud",
            CrudCallRequest(
                user_id=self.turn.user_id,
                call=call,
                registry=registry.to_dict(),
                idempotency_key=key,
                step=step,
            ),
            CrudCallResult,
            summary=f"{call.tool} {target}",
        )
        return result, SessionIdRegistry.from_dict(result.registry)

    async def schema(self, subdomain: str) -> SchemaResult:
        return await self.local(
            "fetch_schema",
            SchemaRequest(subdomain=subdomain),
            SchemaResult,
            summary=f"schema {subdomain}",
        )

    async def mark_turn(self, status: str, response: str | None = None) -> None:
        plan = self.plan_record()
        await self.local(
            "mark_turn",
            MarkTurnRequest(
                conversation_id=self.turn.conversation_id,
                user_id=self.turn.user_id,
                turn_number=self.turn.turn_number,
                status=status,
                response=response,
                plan=plan,
                usage=self.progress.usage,
            ),
            MarkTurnResult,
            summary=f"turn {status}",
        )

    def plan_record(self) -> dict[str, Any] | None:
        if self.progress.plan is None:
            return None
        return {
            "goal": self.progress.goal,
            "steps": [s.model_dump() for s in self.progress.steps],
            "breakers": list(self.progress.breakers),
        }
