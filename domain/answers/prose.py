"""The answers whose payload is words: Reply, Summarize, Compress, and the bypass modes."""

from __future__ import annotations

from typing import Any, Literal

from domain.answers.base import Answer, Text
from domain.answers.table_rows import RecipeContent, content_answer, content_values
from domain.nodes import BypassOutput, CompressOutput, Handoff, ReplyOutput, SummarizeOutput


class _Same(Answer):
    """An answer with its contract's own fields (it subclasses the contract, which declares
    them once)."""

    def to_output(self) -> Any:
        contract: Any = type(self).contract  # every subclass names its contract
        return contract.model_validate(self.model_dump())

    @classmethod
    def from_output(cls, output: Any) -> dict[str, Any]:
        return output.model_dump(mode="json")


class ReplyAnswer(_Same, ReplyOutput):
    contract = ReplyOutput
    response: Text
    """Markdown for the user."""


class SummarizeAnswer(_Same, SummarizeOutput):
    contract = SummarizeOutput


class CompressAnswer(_Same, CompressOutput):
    contract = CompressOutput


class HandoffAnswer(Answer):
    summary: Text
    recipe: RecipeContent | None = None
    """save and update: the full recipe to keep; close: null."""
    action: Literal["save", "update", "close"]


class BypassAnswer(Answer):
    """cook / brainstorm. Read safely: an exit without a handoff closes the session with
    nothing to act on; a save or update without a recipe is a close."""

    contract = BypassOutput

    response: Text
    handoff: HandoffAnswer | None = None
    exit: bool = False

    def to_output(self) -> BypassOutput:
        handoff = None
        if self.exit:
            given = self.handoff
            if given is None:
                handoff = Handoff(summary="The session ended.", action="close")
            elif given.action != "close" and given.recipe is None:
                handoff = Handoff(summary=given.summary, action="close")
            else:
                recipe = content_values(given.recipe) if given.recipe is not None else None
                handoff = Handoff(summary=given.summary, action=given.action, recipe=recipe)
        return BypassOutput(response=self.response, exit=self.exit, handoff=handoff)

    @classmethod
    def from_output(cls, output: Any) -> dict[str, Any]:
        handoff = None
        if output.handoff is not None:
            recipe = output.handoff.recipe
            handoff = {
                "summary": output.handoff.summary,
                "recipe": content_answer(RecipeContent, recipe) if recipe else None,
                "action": output.handoff.action,
            }
        return {"response": output.response, "handoff": handoff, "exit": output.exit}
