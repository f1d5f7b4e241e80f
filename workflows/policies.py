"""Timeouts and retry policies of every activity the turn workflow calls."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio.common import RetryPolicy

# Errors no retry can fix: the activity raises them non-retryable anyway; listing them here
# keeps the policy readable in the Temporal UI.
_LLM_FATAL = [
    "invalid_output",
    "refusal",
    "script_exhausted",
    "http_400",
    "http_401",
    "http_403",
    "http_404",
    "http_422",
    "state_moved",
]
_DB_FATAL = [
    "conversation_not_found",
    "conversation_conflict",
    "missing_idempotency_key",
    "state_moved",
]

LLM_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=2),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=60),
    maximum_attempts=6,
    non_retryable_error_types=_LLM_FATAL,
)
LLM_HEARTBEAT = timedelta(seconds=10)
"""A model activity heartbeats every 2 s while it waits for the model
(``activities.heartbeat``); 10 s without one means its worker is gone, and the call is
retried on another worker at once. The start-to-close timeout alone would take minutes to
notice: it is sized for the slowest answer a configured model may take."""
LLM_MARGIN_SECONDS = 30.0
"""On top of the provider's own HTTP timeout: a repair attempt plus the activity's work."""


def llm(timeout_seconds: float) -> dict[str, Any]:
    """Options of a model call whose provider gives up on one HTTP request after
    ``timeout_seconds`` (``ALFRED_LLM_TIMEOUT_SECONDS``, carried in ``TurnLimits``).

    One attempt may make up to three requests (the output and two repairs); the timeout
    covers them, so a slow model is waited for as long as it was configured to be, and
    never cut at a fixed limit it can never beat. The act activity asks the model again
    (an answer sent back) only while the attempt has time left for it
    (``activities.model_nodes.time_for_another``). The provider's retry-after overrides
    the retry interval (``next_retry_delay``).
    """
    start_to_close = timedelta(seconds=3 * timeout_seconds + LLM_MARGIN_SECONDS)
    return {
        "start_to_close_timeout": start_to_close,
        "schedule_to_close_timeout": max(3 * start_to_close, timedelta(minutes=10)),
        "heartbeat_timeout": LLM_HEARTBEAT,
        "retry_policy": LLM_RETRY,
    }


DB: dict[str, Any] = {
    "start_to_close_timeout": timedelta(seconds=30),
    "schedule_to_close_timeout": timedelta(minutes=5),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=1),
        backoff_coefficient=2.0,
        maximum_interval=timedelta(seconds=30),
        maximum_attempts=8,
        non_retryable_error_types=_DB_FATAL,
    ),
}
"""The short database activities run as local activities: on a local dev server a plain
activity round trip measured ~54 ms against ~8 ms for a local one (docs/BENCHMARKS.md).
They are idempotent, so the re-execution a local activity may see after a worker crash
is harmless."""
