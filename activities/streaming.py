"""A node's answer, streamed to the turn's workflow stream as the model writes it.

The model writes JSON (``{"response": "Here's ..."}``); the user reads the text of one
field. ``TextStream`` parses the answer as it grows (``jiter``'s partial mode), and
publishes what the field's text gained on the workflow's ``tokens`` topic, batched by
``temporalio.contrib.workflow_streams``. Every take (an activity attempt, and within it
each repair) begins with a ``reset``: a client shows only the newest take's text, so a
retried reply is never shown twice nor glued to a half one. A generate step's content
streams likewise, as partial artifacts (``ContentStream``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import jiter
from temporalio import activity
from temporalio.contrib.workflow_streams import WorkflowStreamClient

TOKENS = "tokens"
"""The workflow stream topic of streamed text (``events`` carries the turn's events)."""
BATCH = timedelta(milliseconds=150)
"""How long published text waits to be sent with more (each send is one signal)."""


class TextStream:
    """Publishes the growing text of one field of a node's answer (``AnswerStream``)."""

    def __init__(self, publish: Any, *, kind: str, field: str = "response") -> None:
        self._publish = publish
        self.kind = kind
        """What is being written: ``reply``, ``cook``, ``brainstorm``."""
        self.field = field
        self._attempt = activity.info().attempt
        self._take = ""
        self._raw = ""
        self._sent = ""

    def begin(self, take: int) -> None:
        self._take = f"{self._attempt}.{take}"
        self._raw, self._sent = "", ""
        self._publish({"kind": self.kind, "take": self._take, "reset": True, "text": ""})

    def raw(self, delta: str) -> None:
        self._raw += delta
        text = self._text()
        if text is None or not text.startswith(self._sent) or text == self._sent:
            return
        self._publish({"kind": self.kind, "take": self._take, "text": text[len(self._sent) :]})
        self._sent = text
        activity.heartbeat()

    def _text(self) -> str | None:
        try:
            value = jiter.from_json(self._raw.encode(), partial_mode="trailing-strings")
        except ValueError:
            return None  # not JSON yet, or not an object the field can be read from
        text = value.get(self.field) if isinstance(value, dict) else None
        return text if isinstance(text, str) else None


class ContentStream:
    """Publishes the generated content of a generate step as it forms: the partial
    ``artifacts`` of the answer, each time they have grown by ``every`` characters (a
    client shows the recipe being written), with the same takes and resets as text."""

    def __init__(self, publish: Any, *, step: int, every: int = 300) -> None:
        self._publish = publish
        self.step = step
        self.every = every
        self._attempt = activity.info().attempt
        self._take = ""
        self._raw = ""
        self._sent = 0

    def begin(self, take: int) -> None:
        self._take = f"{self._attempt}.{take}"
        self._raw, self._sent = "", 0
        self._publish({"kind": "generate", "step": self.step, "take": self._take, "reset": True})

    def raw(self, delta: str) -> None:
        self._raw += delta
        if len(self._raw) - self._sent < self.every:
            return
        try:
            value = jiter.from_json(self._raw.encode(), partial_mode="trailing-strings")
        except ValueError:
            return
        decision = value.get("decision") if isinstance(value, dict) else None
        artifacts = decision.get("artifacts") if isinstance(decision, dict) else None
        if not artifacts:
            return
        self._sent = len(self._raw)
        self._publish(
            {"kind": "generate", "step": self.step, "take": self._take, "artifacts": artifacts}
        )
        activity.heartbeat()


@asynccontextmanager
async def text_stream(kind: str) -> AsyncIterator[TextStream | None]:
    """A ``TextStream`` to the calling activity's workflow, flushed on exit; None outside
    a workflow's activity (nothing to stream to)."""
    async with _topic() as publish:
        yield TextStream(publish, kind=kind) if publish is not None else None


@asynccontextmanager
async def content_stream(step: int) -> AsyncIterator[ContentStream | None]:
    """A ``ContentStream`` for a generate step (as ``text_stream``)."""
    async with _topic() as publish:
        yield ContentStream(publish, step=step) if publish is not None else None


@asynccontextmanager
async def _topic() -> AsyncIterator[Any]:
    try:
        client = WorkflowStreamClient.from_within_activity(batch_interval=BATCH)
    except RuntimeError:
        yield None
        return
    async with client:
        yield client.topic(TOKENS).publish
