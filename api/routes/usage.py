"""/v1/usage: what the caller's turns cost, per conversation and in all, by node and model:
the sum of what each call was charged when it was made (``domain.ledger``)."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import CurrentUser, ServicesDep
from api.schemas import ConversationUsage, UsageReport
from domain import turn_store
from domain.ledger import LedgerLine, cost, merged

router = APIRouter(prefix="/v1/usage", tags=["usage"])


def _sums(lines: list[LedgerLine]) -> dict[str, int | float | list[str] | None]:
    """Calls, failed calls and tokens of ``lines``, and what they cost."""
    return {
        "calls": sum(x.calls for x in lines),
        "failed_calls": sum(x.failed_calls for x in lines),
        "prompt_tokens": sum(x.prompt_tokens for x in lines),
        "completion_tokens": sum(x.completion_tokens for x in lines),
        **cost(lines).model_dump(),
    }


@router.get("", response_model=UsageReport)
async def read_usage(user: CurrentUser, svc: ServicesDep) -> UsageReport:
    by_conversation: dict[str, list[LedgerLine]] = {}
    turns: dict[str, int] = {}
    for conversation_id, usage in await turn_store.turn_usage(svc.sessions, str(user)):
        key = str(conversation_id)
        turns[key] = turns.get(key, 0) + 1
        lines = [LedgerLine.model_validate(x) for x in (usage or {}).get("by_node", [])]
        by_conversation.setdefault(key, []).extend(lines)
    conversations = [
        ConversationUsage.model_validate(
            {"conversation_id": key, "turns": turns[key], **_sums(merged(lines))}
        )
        for key, lines in by_conversation.items()
    ]
    everything = merged(x for lines in by_conversation.values() for x in lines)
    return UsageReport.model_validate(
        {**_sums(everything), "by_node": everything, "conversations": conversations}
    )
