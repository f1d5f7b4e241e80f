"""Builders for scripted model outputs, so each test reads as the conversation it plays."""

from __future__ import annotations

from typing import Any


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


def plan(goal: str, *steps: dict) -> dict:
    return {
        "node": "think",
        "output": {"goal": goal, "decision": "plan_direct", "steps": list(steps)},
    }


def propose(goal: str, message: str, *steps: dict) -> dict:
    return {
        "node": "think",
        "output": {
            "goal": goal,
            "decision": "propose",
            "proposal_message": message,
            "steps": list(steps),
        },
    }


def think_clarify(goal: str, *questions: str) -> dict:
    return {
        "node": "think",
        "output": {"goal": goal, "decision": "clarify", "clarification_questions": list(questions)},
    }


def act(output: dict, at_step: int | None = None) -> dict:
    entry = {"node": "act", "output": output}
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
    return {"node": node, "output": output}
