"""Node activities render within their context budget and report what they left out."""

from __future__ import annotations

from temporalio.testing import ActivityEnvironment

from activities.contracts import UnderstandRequest
from activities.llm.gateway import LlmGateway
from activities.llm.script_provider import ScriptProvider
from activities.nodes import NodeActivities
from domain.conversation import ConversationState, TurnRecord
from domain.tokens import estimate_tokens


def request(history_words: int) -> UnderstandRequest:
    state = ConversationState(
        recent_turns=[TurnRecord(turn=1, user_message="plan dinners " * history_words)]
    )
    return UnderstandRequest(message="add milk", mode="plan", state=state, registry={})


async def test_understand_fits_its_budget_and_records_the_dropped_sections():
    script = ScriptProvider.from_responses([{"node": "understand", "output": {}}])
    nodes = NodeActivities(LlmGateway(script), context_budget=60)
    result = await ActivityEnvironment().run(nodes.understand, request(history_words=500))
    assert result.context_dropped == ["Recent conversation"]
    assert result.context_tokens == estimate_tokens(script.calls[0].user) <= 60
    assert script.calls[0].user.startswith("## Current message\nadd milk")
    assert result.template == "understand" and result.version == "v1"


async def test_within_budget_nothing_is_dropped():
    script = ScriptProvider.from_responses([{"node": "understand", "output": {}}])
    nodes = NodeActivities(LlmGateway(script))
    result = await ActivityEnvironment().run(nodes.understand, request(history_words=5))
    assert result.context_dropped == []
    assert "plan dinners" in script.calls[0].user
