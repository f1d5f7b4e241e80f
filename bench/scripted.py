"""Scripted model answers for the benchmarks, written as a model writes them
(``domain.answers``): Think's decision in its ``outcome``, Act's in its ``decision``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from temporalio.client import Client, WorkflowHandle

from domain.answers.act import decision_answer
from domain.nodes import ActDecision
from domain.turn_store import create_conversation
from domain.users import create_user
from workflows.interface import TurnInput, TurnLimits
from workflows.turn import TurnWorkflow


def plan_answer(goal: str, *steps: dict[str, Any]) -> dict[str, Any]:
    """Think plans ``steps`` directly."""
    return {
        "node": "think",
        "output": {"goal": goal, "outcome": {"decision": "plan_direct", "steps": list(steps)}},
    }


def act_answer(step: int, **decision: Any) -> dict[str, Any]:
    """Act's decision on ``step``, in the contract's words (``ActDecision``)."""
    answer = decision_answer(ActDecision.model_validate(decision))
    return {"node": "act", "step": step, "output": {"decision": answer}}


@dataclass
class BenchConversation:
    """One user's conversation on a bench's database, whose turns a bench starts."""

    client: Client
    sessions: Any
    user_id: str
    conversation: str

    @classmethod
    async def create(cls, client: Client, sessions: Any) -> BenchConversation:
        user_id, _ = await create_user(sessions, "bench")
        conversation = await create_conversation(sessions, user_id, "bench")
        return cls(client, sessions, str(user_id), str(conversation))

    async def start(self, n: int, queue: str) -> WorkflowHandle:
        """Start turn ``n`` ("add item n") on ``queue``."""
        turn = TurnInput(
            conversation_id=self.conversation,
            user_id=self.user_id,
            turn_number=n,
            message=f"add item {n}",
            limits=TurnLimits(),
        )
        return await self.client.start_workflow(
            TurnWorkflow.run, turn, id=f"bench-{self.conversation}-{n}", task_queue=queue
        )
