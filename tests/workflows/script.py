"""Builders for scripted model outputs, so each test reads as the conversation it plays.

Each builder writes what a model would answer (``domain.answers``): Think's decision in
its ``outcome``, Act's in its ``decision``, a tool call with typed rows. A test names a
call in the contract's words (``tool("db_create", table=..., data=...)``) and the builder
writes the answer, which the gateway reads back into the contract over the wire.
"""

from __future__ import annotations

from typing import Any

from domain.answers.act import decision_answer
from domain.answers.prose import BypassAnswer
from domain.nodes import ActDecision, BypassOutput


def understand(**fields: Any) -> dict:
    return {"node": "understand", "output": fields}


def quick(intent: str, subdomain: str) -> dict:
    return understand(quick_mode=True, quick_intent=intent, quick_subdomain=subdomain)


def clarify_first(*questions: str) -> dict:
    return understand(needs_clarification=True, clarification_questions=list(questions))


def step(description: str, step_type: str, subdomain: str, group: int = 0) -> dict:
    return {
        "description": description,
        "step_type": step_type,
        "subdomain": subdomain,
        "group": group,
    }


def think(goal: str, **outcome: Any) -> dict:
    return {"node": "think", "output": {"goal": goal, "outcome": outcome}}


def plan(goal: str, *steps: dict) -> dict:
    return think(goal, decision="plan_direct", steps=list(steps))


def propose(goal: str, message: str, *steps: dict) -> dict:
    return think(goal, decision="propose", proposal_message=message, steps=list(steps))


def think_clarify(goal: str, *questions: str) -> dict:
    return think(goal, decision="clarify", clarification_questions=list(questions))


def act(decision: dict, at_step: int | None = None) -> dict:
    """An Act answer from a decision in the contract's words (``ActDecision``)."""
    answer = decision_answer(ActDecision.model_validate(decision))
    entry = {"node": "act", "output": {"decision": answer}}
    if at_step is not None:
        entry["step"] = at_step
    return entry


def tool(name: str, at_step: int | None = None, **params: Any) -> dict:
    return act({"action": "tool_call", "tool_call": {"tool": name, "params": params}}, at_step)


def complete(summary: str, at_step: int | None = None, **fields: Any) -> dict:
    return act({"action": "step_complete", "result_summary": summary, **fields}, at_step)


def ask(question: str, at_step: int | None = None) -> dict:
    return act({"action": "ask_user", "question": question}, at_step)


def reply(text: str) -> dict:
    return {"node": "reply", "output": {"response": text}}


def bypass(node: str, response: str, **handoff: Any) -> dict:
    """A cook / brainstorm answer; ``handoff`` fields end the session with that handoff."""
    output: dict[str, Any] = {"response": response}
    if handoff:
        output.update(exit=True, handoff=handoff)
    return {"node": node, "output": BypassAnswer.from_output(BypassOutput.model_validate(output))}
