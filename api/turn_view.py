"""A turn as clients see it: its row, plus the live progress while it is not finished."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable
from typing import Any

from api.deps import Services
from api.schemas import ChoicePublic, PendingPublic, TurnPublic, TurnUsage
from domain.db.models import Turn
from domain.ledger import LedgerLine, cost
from domain.plan_record import PlanRecord
from domain.turn_store import QUEUED, TERMINAL, turn_by_id

SETTLED = ("replied", "awaiting_input", *TERMINAL)
"""States ``?wait=true`` returns on: the user has something to read or answer."""


def shown_status(row: str, live: str) -> str:
    """The status a client sees: the workflow's, except that a turn its row still holds
    queued has not begun. ``begin_turn`` sets the row running before the workflow leaves its
    opening, and until the opening has returned the workflow reports its default, running."""
    return QUEUED if row == QUEUED and live == "running" else live


def costed(usage: dict[str, Any], ledger: Iterable[Any]) -> TurnUsage:
    """The turn's usage with its ledger as charged (``by_node``) and what it cost in all.
    A turn stored before calls were charged has lines without a price: unpriced."""
    lines = [LedgerLine.model_validate(x) for x in ledger]
    return TurnUsage.model_validate({**usage, "by_node": lines, **cost(lines).model_dump()})


def ui_url(svc: Services, turn: Turn) -> str:
    base = svc.settings.temporal_ui_base.rstrip("/")
    run = f"/{turn.run_id}" if turn.run_id else ""
    return f"{base}/namespaces/{svc.turns.namespace}/workflows/{turn.workflow_id}{run}"


async def view(svc: Services, turn: Turn) -> TurnPublic:
    record = PlanRecord.model_validate(turn.plan or {})
    public = TurnPublic(
        id=turn.id,
        conversation_id=turn.conversation_id,
        turn_number=turn.turn_number,
        status=turn.status,
        message=turn.user_message,
        response=turn.response,
        pending=None,
        goal=record.goal,
        plan=[s.model_dump() for s in record.plan] if record.plan else None,
        steps=[s.model_dump() for s in record.steps],
        usage=costed(turn.usage or {}, (turn.usage or {}).get("by_node", [])),
        llm_calls=record.llm_calls,
        breakers=record.breakers,
        fallbacks=record.fallbacks,
        workflow_id=turn.workflow_id,
        run_id=turn.run_id,
        temporal_ui_url=ui_url(svc, turn),
        created_at=turn.created_at,
        updated_at=turn.updated_at,
    )
    if turn.status in TERMINAL:
        return public
    live = await svc.turns.progress(turn.workflow_id, after_seq=10**9)  # no events needed
    if live is None:
        return public
    public.status = shown_status(turn.status, live.status)
    public.response = live.response
    public.goal = live.goal
    public.plan = [s.model_dump() for s in live.plan] if live.plan else None
    public.steps = [s.model_dump() for s in live.steps]
    public.usage = costed(live.usage.model_dump(), live.ledger)
    public.llm_calls = live.llm_calls
    public.breakers = list(live.breakers)
    public.fallbacks = list(live.fallbacks)
    if live.pending is not None:
        p = live.pending
        public.pending = PendingPublic(
            pause_id=p.pause_id,
            kind=p.kind,
            message=p.message,
            questions=p.questions,
            options=[ChoicePublic(ref=o.ref, label=o.label) for o in p.options],
            plan=[s.model_dump() for s in p.plan] if p.plan else None,
            expires_at=p.expires_at,
        )
    return public


async def wait_until_settled(svc: Services, user_id: str, turn_id: uuid.UUID) -> TurnPublic:
    """The turn once it replied, paused or ended — or as it is when the wait runs out."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + svc.settings.api_wait_seconds
    while True:
        current = await view(svc, await turn_by_id(svc.sessions, user_id, turn_id))
        if current.status in SETTLED or loop.time() >= deadline:
            return current
        await asyncio.sleep(0.1)
