"""Understand's and Think's answers.

Understand's answer is read generously: an inconsistent answer has a safe reading (a
choice between candidates wins over a question, a question over quick mode; quick mode
without a subdomain is the planned path; a clarification without a question, or a choice
with fewer than two candidates, is none), so it is never refused. Think's
decision is a union, one shape per decision, so a plan without steps or a proposal
without its message cannot be written at all.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import Field, create_model, model_validator

from domain.answers.base import Answer, Text
from domain.nodes import (
    DisambiguationOption,
    EntityCuration,
    EntityMention,
    RetainDecision,
    ThinkOutput,
    ThinkStep,
    UnderstandOutput,
)

# --- Understand --------------------------------------------------------------------------------


class Retain(Answer, RetainDecision):
    reason: Text


class Curation(Answer, EntityCuration):
    retain_active: list[Retain] = Field(default_factory=list)


class Mention(Answer, EntityMention):
    text: Text


class Option(Answer, DisambiguationOption):
    label: Text


class UnderstandAnswer(Answer, UnderstandOutput):
    contract = UnderstandOutput

    entity_mentions: list[Mention] = Field(default_factory=list)
    disambiguation_options: list[Option] = Field(default_factory=list)
    entity_curation: Curation = Field(default_factory=Curation)

    @model_validator(mode="after")
    def _consistent(self) -> UnderstandAnswer:
        """Not the contract's rules: an inconsistent answer has a safe reading (below)."""
        return self

    def to_output(self) -> UnderstandOutput:
        questions = [q for q in self.clarification_questions if q.strip()]
        options = list({o.ref: o for o in self.disambiguation_options}.values())
        choosing = self.needs_disambiguation and len(options) >= 2
        asking = self.needs_clarification and bool(questions) and not choosing
        quick = (
            self.quick_mode
            and not asking
            and not choosing
            and self.quick_subdomain is not None
            and bool((self.quick_intent or "").strip())
        )
        read = {
            "needs_disambiguation": choosing,
            "disambiguation_options": [o.model_dump() for o in options] if choosing else [],
            "quick_mode": quick,
            "quick_intent": self.quick_intent if quick else None,
            "quick_subdomain": self.quick_subdomain if quick else None,
            "needs_clarification": asking,
            "clarification_questions": questions if asking or choosing else [],
            "constraint_snapshot": [c for c in self.constraint_snapshot if c.strip()],
        }
        return UnderstandOutput.model_validate({**self.model_dump(), **read})

    @classmethod
    def from_output(cls, output: Any) -> dict[str, Any]:
        return output.model_dump(mode="json")


# --- Think -------------------------------------------------------------------------------------


class Step(Answer, ThinkStep):
    description: Text


class _Outcome(Answer):
    def output(self, goal: str) -> ThinkOutput:
        steps = [ThinkStep(**s.model_dump(exclude={"read"})) for s in getattr(self, "steps", [])]
        return ThinkOutput(
            goal=goal,
            decision=self.decision,  # type: ignore[attr-defined]
            steps=steps,
            proposal_message=getattr(self, "proposal_message", None),
            clarification_questions=list(getattr(self, "clarification_questions", [])),
        )


class _PlanDirect(_Outcome):
    steps: list[Step]
    decision: Literal["plan_direct"] = "plan_direct"


class _Propose(_Outcome):
    steps: list[Step]
    """What confirming the proposal runs."""
    decision: Literal["propose"] = "propose"
    proposal_message: Text


class Clarify(_Outcome):
    clarification_questions: list[Text] = Field(min_length=1, max_length=3)
    decision: Literal["clarify"] = "clarify"


class ThinkAnswerBase(Answer):
    contract = ThinkOutput

    def to_output(self) -> ThinkOutput:
        return self.outcome.output(self.goal)  # type: ignore[attr-defined]

    @classmethod
    def from_output(cls, output: Any) -> dict[str, Any]:
        outcome: dict[str, Any] = {}  # in the schema's order: the decision after its grounds
        if output.decision == "clarify":
            outcome["clarification_questions"] = list(output.clarification_questions)
        else:
            outcome["steps"] = [s.model_dump(mode="json") for s in output.steps]
        outcome["decision"] = output.decision
        if output.decision == "propose":
            outcome["proposal_message"] = output.proposal_message
        return {"goal": output.goal, "outcome": outcome}


@cache
def think_answer(max_steps: int) -> type[Answer]:
    """Think's answer when a plan may have at most ``max_steps`` steps (the mode's)."""
    steps = (list[Step], Field(min_length=1, max_length=max_steps))
    plan = create_model(f"PlanDirect{max_steps}", __base__=_PlanDirect, steps=steps)
    propose = create_model(
        f"Propose{max_steps}",
        __base__=_Propose,
        steps=(list[Step], Field(max_length=max_steps)),
    )
    outcome = Annotated[plan | propose | Clarify, Field(discriminator="decision")]  # type: ignore[valid-type]
    return create_model(
        f"ThinkAnswer{max_steps}",
        __base__=ThinkAnswerBase,
        goal=(Text, ...),
        outcome=(outcome, ...),
    )
