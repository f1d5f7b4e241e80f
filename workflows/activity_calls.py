"""The turn's activity calls, each with the accounting it needs.

``Calls.llm`` runs a model activity by reference (``NodeActivities.understand``) with the
policies of ``workflows.policies``: the turn's LLM-call budget is checked and counted, and
every call's usage and cost go on the turn's ledger (``TurnProgress.usage``, ``ledger``),
failed calls' too. ``Calls.local`` runs a short database activity as a local activity;
``Calls.crud`` runs a CRUD call in the turn's registry and applies what it changed, so the
workflow never replaces the registry. What a call brings of saved refs (``known``) is
adopted here too. The ``failure_*`` functions read why a call failed for good.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel
from temporalio import workflow
from temporalio.exceptions import (
    ActivityError,
    ApplicationError,
    TimeoutError,
    is_cancelled_exception,
)

from workflows import policies
from workflows.progress import ProgressLog
from workflows.state import TurnState

with workflow.unsafe.imports_passed_through():
    from activities.crud import CrudActivities
    from activities.llm.provider import Usage
    from activities.payloads import (
        ActResult,
        CrudCallRequest,
        CrudCallResult,
        FailedCallCost,
        NodeCall,
        SchemaRequest,
        SchemaResult,
        SummarizeResult,
        UnderstandResult,
    )
    from domain.formatters import model_problem
    from domain.ledger import Price, add_call
    from domain.nodes import ToolCall

R = TypeVar("R", bound=BaseModel)
Req = TypeVar("Req", bound=BaseModel)

MODEL_ACTIVITIES = frozenset(
    {"understand", "think", "act", "act_quick", "reply", "summarize", "bypass"}
)


class LlmCapReached(Exception):
    """The turn used its LLM-call budget: the caller ends the step or the turn honestly."""


def failure_kind(error: BaseException) -> str | None:
    """Why an activity failed for good (``invalid_output``, ``http_503``, ``timeout``...);
    None for a cancellation, which is never degraded."""
    if is_cancelled_exception(error) or not isinstance(error, ActivityError):
        return None
    cause = error.cause
    if isinstance(cause, ApplicationError):
        # A 429 reaches the turn once its retries are over: its Retry-After went past the
        # call's schedule-to-close timeout (the server does not wait), or its attempts ran out.
        return "rate_limited" if cause.type == "http_429" else cause.type or "error"
    if isinstance(cause, TimeoutError):
        return "timeout"
    return "error"


def failure_wait(error: BaseException) -> float | None:
    """Seconds the model asked to be left alone (its Retry-After) in the failure that ended
    the call; None when it did not say."""
    cause = error.cause if isinstance(error, ActivityError) else None
    if isinstance(cause, ApplicationError) and cause.next_retry_delay:
        return cause.next_retry_delay.total_seconds()
    return None


def failure_problem(error: BaseException) -> str:
    """Why the turn stopped, in words a user can read (never the exception's text)."""
    kind = failure_kind(error)
    if kind is not None and getattr(error, "activity_type", None) in MODEL_ACTIVITIES:
        return model_problem(kind, failure_wait(error))
    return "something went wrong on my side"


def degraded(error: BaseException) -> str:
    """The failure kind of a model call the turn goes on without; re-raises ``error``
    when it must end the turn instead (a cancellation)."""
    kind = failure_kind(error)
    if kind is None:
        raise error
    return kind


class Calls:
    def __init__(self, state: TurnState, log: ProgressLog) -> None:
        self.state = state
        self.progress = state.progress
        self.log = log
        self.registry_turns = asyncio.Lock()
        """Held by a CRUD call from the registry it reads to its delta applied: concurrent
        steps' calls take turns, so no two of them number a ref from the same counters."""

    @property
    def llm_budget_left(self) -> int:
        return self.state.turn.limits.max_llm_calls - self.progress.llm_calls

    async def llm(
        self,
        activity: Callable[[Any, Req], Awaitable[R]],
        request: Req,
        summary: str,
        *,
        budgeted: bool = True,
    ) -> R:
        """Call a model activity by reference: the SDK takes its name and result type from
        the method. ``budgeted`` calls count one model call up front and are refused once
        the turn's budget is spent; every call adds its usage and the calls it reports
        (repairs, Summarize's own calls)."""
        if budgeted:
            if self.llm_budget_left <= 0:
                raise LlmCapReached(activity.__name__)
            self.progress.llm_calls += 1
        try:
            result = await workflow.execute_activity_method(
                activity,
                request,
                summary=summary,
                **policies.llm(self.state.turn.limits.llm_timeout_seconds),
            )
        except ActivityError as error:
            self._count_failed(activity.__name__, error)
            raise
        if isinstance(result, UnderstandResult | ActResult) and result.known is not None:
            # Saved refs it names, older than the copy; a ref the copy holds keeps its
            # entry (a sibling step may have changed it while this decision was made).
            self.state.registry.adopt(result.known)
        if isinstance(result, NodeCall):
            self.progress.usage = self.progress.usage + result.usage
            self.progress.llm_calls += result.llm_attempts - 1
            self._ledger(
                activity.__name__, result.model, result.price, result.llm_attempts, result.usage
            )
            if result.llm_attempts > 1:
                self.log.show_details()
        elif isinstance(result, SummarizeResult):
            self.progress.usage = self.progress.usage + result.usage
            self.progress.llm_calls += result.llm_calls
            for call in result.calls:
                self._ledger("summarize", call.model, call.price, call.llm_attempts, call.usage)
        return result

    def _ledger(
        self,
        node: str,
        model: str,
        price: Price | None,
        calls: int,
        usage: Usage,
        *,
        failed: bool = False,
    ) -> None:
        """Put a call on the ledger at the price the activity charged it (``price``)."""
        add_call(
            self.progress.ledger,
            node,
            model or "unknown",
            price=price,
            calls=calls,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            repairs=usage.repairs,
            failed=failed,
        )

    def _count_failed(self, node: str, error: ActivityError) -> None:
        """A model call that failed still cost its outputs and repairs: count them, and put
        them on the ledger as failed calls at the price they were charged."""
        cause = error.cause
        if not isinstance(cause, ApplicationError) or not cause.details:
            return
        try:
            cost = FailedCallCost.model_validate(cause.details[0])
        except ValueError:
            return
        self.progress.usage = self.progress.usage + cost
        self.progress.llm_calls += cost.repairs
        self._ledger(node, cost.model, cost.price, cost.repairs + 1, cost, failed=True)

    async def local(
        self, activity: Callable[[Any, Req], Awaitable[R]], request: Req, summary: str
    ) -> R:
        """A short, idempotent database activity, by reference, run as a local activity."""
        return await workflow.execute_local_activity_method(
            activity, request, summary=summary, **policies.DB
        )

    async def crud(self, call: ToolCall, *, key: str, step: int | None) -> CrudCallResult:
        """A CRUD call in the turn's registry, its changes applied as it returns. Concurrent
        steps' calls take turns (held from the registry a call reads to its delta applied):
        refs are numbered in call order."""
        async with self.registry_turns:  # taken at once when no other step holds it
            result = await self.local(
                CrudActivities.crud,
                CrudCallRequest(
                    user_id=self.state.turn.user_id,
                    call=call,
                    state_ref=self.state.state_ref(),
                    idempotency_key=key,
                    step=step,
                ),
                summary=f"{call.tool} {call.params.get('table', '?')}",
            )
            self.state.registry.apply_delta(result.registry_delta)  # only the changes crossed
        return result

    async def schema(self, subdomain: str) -> SchemaResult:
        return await self.local(
            CrudActivities.fetch_schema,
            SchemaRequest(subdomain=subdomain),
            summary=f"schema {subdomain}",
        )
