"""Domain and provider errors as Temporal ApplicationErrors (``type`` = the error's code)."""

from __future__ import annotations

import datetime as dt

from temporalio.exceptions import ApplicationError

from activities.llm.provider import LlmError
from activities.payloads import FailedCallCost
from domain.errors import DomainError


def to_application_error(error: Exception) -> ApplicationError:
    if isinstance(error, LlmError):
        delay = dt.timedelta(seconds=error.retry_after) if error.retry_after else None
        # A failed call's cost travels with it, so the turn still counts and charges it.
        details = []
        if error.usage is not None:
            cost = FailedCallCost(**error.usage.model_dump(), model=error.model, price=error.price)
            details.append(cost.model_dump())
        return ApplicationError(
            str(error),
            *details,
            type=error.kind,
            non_retryable=not error.retryable,
            next_retry_delay=delay,
        )
    if isinstance(error, DomainError):
        return ApplicationError(str(error), type=error.code, non_retryable=True)
    raise TypeError(f"not a mapped error: {error!r}")
