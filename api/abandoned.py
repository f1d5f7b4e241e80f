"""Turns whose workflow is gone stop holding their conversation.

Reserving a turn (its row) and starting its workflow are two steps: an API that dies in
between leaves a busy row with no workflow, and an operator's terminate (or a timeout)
ends a workflow without the row hearing of it. The next message to the conversation finds
such a row, asks Temporal, and ends it honestly instead of answering 409 for ever.
"""

from __future__ import annotations

import datetime as dt

from api.deps import Services
from domain import turn_store
from domain.db.models import Turn

REASONS = {
    "missing": "its workflow was never started (the service stopped before it began)",
    "terminated": "its workflow was stopped by an operator",
    "timed_out": "its workflow ran out of time",
    "failed": "its workflow failed",
    "cancelled": "it was cancelled",
    "completed": "its workflow ended without saving its result",
}


async def free_if_abandoned(svc: Services, user_id: str, turn: Turn) -> bool:
    """End ``turn`` if no live workflow owns it; True when it was ended."""
    liveness = await svc.turns.liveness(turn.workflow_id)
    if liveness in ("running", "unknown"):
        return False
    if liveness == "missing":
        age = dt.datetime.now(dt.UTC) - turn.created_at
        if age.total_seconds() < svc.settings.turn_start_grace_seconds:
            return False  # another request may be starting it right now
    status = "cancelled" if liveness == "cancelled" else "failed"
    return await turn_store.end_abandoned_turn(
        svc.sessions, user_id, turn, status=status, reason=REASONS[liveness]
    )
