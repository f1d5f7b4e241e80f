"""/v1/usage: what the caller's turns cost, per conversation and in all, by node and model,
priced from the price table (``ALFRED_EVAL_PRICES``)."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import CurrentUser, ServicesDep
from api.schemas import ConversationUsage, UsageReport
from domain import turn_store
from domain.ledger import LedgerLine, merged, priced, total_cost

router = APIRouter(prefix="/v1/usage", tags=["usage"])


@router.get("", response_model=UsageReport)
async def read_usage(user: CurrentUser, svc: ServicesDep) -> UsageReport:
    prices = svc.settings.eval_prices
    by_conversation: dict[str, list[LedgerLine]] = {}
    turns: dict[str, int] = {}
    for conversation_id, usage in await turn_store.turn_usage(svc.sessions, str(user)):
        key = str(conversation_id)
        turns[key] = turns.get(key, 0) + 1
        lines = [LedgerLine.model_validate(x) for x in (usage or {}).get("by_node", [])]
        by_conversation.setdefault(key, []).extend(lines)
    conversations = []
    for key, lines in by_conversation.items():
        costed = priced(merged(lines), prices)
        conversations.append(
            ConversationUsage(
                conversation_id=key,
                turns=turns[key],
                calls=sum(x.calls for x in costed),
                prompt_tokens=sum(x.prompt_tokens for x in costed),
                completion_tokens=sum(x.completion_tokens for x in costed),
                cost_usd=total_cost(costed),
            )
        )
    everything = priced(merged(x for lines in by_conversation.values() for x in lines), prices)
    return UsageReport(
        calls=sum(x.calls for x in everything),
        prompt_tokens=sum(x.prompt_tokens for x in everything),
        completion_tokens=sum(x.completion_tokens for x in everything),
        cost_usd=total_cost(everything),
        by_node=everything,
        conversations=conversations,
    )
