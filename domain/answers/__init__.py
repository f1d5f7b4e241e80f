"""What a model must answer at each node: the schemas sent to it, and their reading.

A node's *contract* (``domain.nodes``) is what the workflow works with and what its
histories hold. A node's *answer* (this package) is what the model is asked to write:
every schema here fits OpenAI's strict structured-output subset (every property
required, null where a value may be absent, no free-form objects), states every rule its
validator checks (a union per decision, ``minItems``, a closed set of tables per step),
and is read into the contract by ``Answer.to_output``. Where an answer is inconsistent but
has an obvious safe reading (quick mode and a clarification at once), the reading
normalises it instead of refusing it. An answer with its contract's fields subclasses the
contract, so each field is declared once; it redeclares only what it asks more strictly
(``Text``: something said) or in its own parts' answers.

``answer_model(node, ...)`` gives the answer model of one call: Act's depends on the
step's type and subdomain (a shopping write step can only write ``shopping_list``) and
on the steps already run (only those can be retrieved), Act
Quick's on its subdomain, Think's on the mode's step limit.
"""

from __future__ import annotations

from domain.answers.act import act_answer, act_quick_answer
from domain.answers.base import Answer
from domain.answers.plan import UnderstandAnswer, think_answer
from domain.answers.prose import (
    BypassAnswer,
    CompressAnswer,
    ReplyAnswer,
    SummarizeAnswer,
)

__all__ = ["Answer", "answer_model"]


def answer_model(
    node: str,
    *,
    step_type: str | None = None,
    subdomain: str | None = None,
    max_steps: int | None = None,
    finished: tuple[int, ...] | None = None,
    saving: tuple[str, ...] | None = None,
) -> type[Answer]:
    """The answer model of one node call (``KeyError`` for an unknown node); ``finished``:
    the steps an Act step may retrieve, ``saving``: the unsaved ``gen_`` refs it may save."""
    if node == "act":
        if step_type is None or subdomain is None:
            raise ValueError("act's answer depends on the step: give step_type and subdomain")
        return act_answer(step_type, subdomain, finished, saving)
    if node == "act_quick":
        if subdomain is None:
            raise ValueError("act_quick's answer depends on the subdomain")
        return act_quick_answer(subdomain)
    if node == "think":
        return think_answer(max_steps or 8)
    return {
        "understand": UnderstandAnswer,
        "reply": ReplyAnswer,
        "summarize": SummarizeAnswer,
        "compress": CompressAnswer,
        "cook": BypassAnswer,
        "brainstorm": BypassAnswer,
    }[node]
