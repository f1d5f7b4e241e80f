"""The base of every answer model, and the small types answers share."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, WithJsonSchema


def _says_something(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty")
    return text


Text = Annotated[
    str,
    AfterValidator(_says_something),
    WithJsonSchema({"type": "string", "pattern": r"\S"}),
]
"""Text that must say something: the schema's ``pattern`` states it, so a strict model
never sends the empty string the validator refuses."""


class Answer(BaseModel):
    """A model's answer for one node call.

    Fields have defaults so that a partial answer from a lenient server still parses; the
    schema sent to the model (``activities.llm.schema``) requires every field. Keys the
    schema does not name are refused, with their name, so a repair can drop them.
    """

    model_config = ConfigDict(extra="forbid")

    contract: ClassVar[type[BaseModel] | None] = None
    """The node contract ``to_output`` returns."""

    def to_output(self) -> BaseModel:
        """The node contract this answer means (normalised where it has a safe reading)."""
        raise NotImplementedError

    @classmethod
    def from_output(cls, output: BaseModel) -> dict[str, Any]:
        """The answer a model would write for ``output``: what the offline demo model
        and the test scripts send, so they speak the same protocol as a real model."""
        raise NotImplementedError
