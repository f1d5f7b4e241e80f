"""``alfred chat``: a terminal client over the HTTP API.

It sends each line as a message, follows the turn's events as they come (plan, steps,
tool work), and at a pause shows the proposal or question and asks the person to
confirm, reject or answer. It talks only HTTP: the same API any client uses.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

Ask = Callable[[str], str]
Say = Callable[[str], None]


def parse_events(payload: str) -> list[tuple[int, str, dict]]:
    """``(id, event, data)`` from a text/event-stream body."""
    out = []
    for block in payload.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            name, _, value = line.partition(": ")
            if name in ("id", "event", "data"):
                fields[name] = value
        if "event" in fields and "id" in fields:
            out.append((int(fields["id"]), fields["event"], json.loads(fields.get("data", "{}"))))
    return out


def describe(event: str, data: dict) -> str | None:
    """One line of progress for a person; None for events that need no line."""
    if event == "thinking":
        return "… thinking"
    if event == "plan":
        steps = "; ".join(s["description"] for s in data.get("steps", []))
        return f"… plan: {data.get('goal')} ({steps})"
    if event == "step":
        return f"… step {data['step'] + 1}/{data['total']}: {data['description']}"
    if event == "step_complete":
        return f"… done: {data.get('summary') or 'step finished'}"
    if event == "error":
        return f"! {data.get('message')}"
    if event in ("expired", "cancelled"):
        return f"! the turn was {event}"
    return None


@dataclass
class ChatSession:
    http: httpx.AsyncClient
    ask: Ask
    say: Say
    mode: str | None = None
    conversation_id: str | None = None
    transcript: list[str] = field(default_factory=list)

    async def start(self) -> str:
        if self.conversation_id is None:
            created = await self.http.post("/v1/conversations", json={"title": "chat"})
            created.raise_for_status()
            self.conversation_id = created.json()["id"]
        return self.conversation_id

    async def send(self, text: str) -> str | None:
        """One message through to the end of its turn; returns Alfred's reply."""
        body = {"text": text, **({"mode": self.mode} if self.mode else {})}
        posted = await self.http.post(
            f"/v1/conversations/{self.conversation_id}/messages", json=body
        )
        if posted.status_code == 409:
            self.say("(Alfred is still working on the previous message; try again shortly)")
            return None
        if posted.status_code >= 400:
            self.say(f"(refused: {posted.json().get('error', posted.json())})")
            return None
        return await self.follow(posted.json()["id"])

    async def follow(self, turn_id: str) -> str | None:
        last, reply = 0, None
        while True:
            stream = await self.http.get(
                f"/v1/turns/{turn_id}/events",
                params={"stop_at_pause": "true"},
                headers={"Last-Event-ID": str(last)},
            )
            stream.raise_for_status()
            events = parse_events(stream.text)
            for seq, event, data in events:
                last = seq
                line = describe(event, data)
                if line:
                    self.say(line)
                if event == "done":
                    reply = data.get("response")
                    self.say(f"alfred> {reply}")
                if event == "awaiting_input":
                    await self._answer_pause(turn_id, data)
                if event in ("context_updated", "error", "expired", "cancelled"):
                    return reply
            if not events:
                await asyncio.sleep(0.2)

    async def _answer_pause(self, turn_id: str, data: dict) -> None:
        self.say(f"alfred> {data.get('message')}")
        if data.get("kind") == "proposal":
            choice = (
                await asyncio.to_thread(self.ask, "confirm? [y]es / [n]o / or type an answer: ")
            ).strip()
            if choice.lower() in ("y", "yes"):
                payload = {"action": "confirm"}
            elif choice.lower() in ("n", "no"):
                payload = {"action": "reject"}
            else:
                payload = {"action": "answer", "text": choice}
        else:
            text = (await asyncio.to_thread(self.ask, "you> ")).strip()
            payload = {"action": "answer", "text": text or "never mind"}
        answered = await self.http.post(f"/v1/turns/{turn_id}/input", json=payload)
        if answered.status_code >= 400:
            self.say(f"(answer refused: {answered.text})")


def run_chat(
    url: str, token: str, *, conversation_id: str | None = None, mode: str | None = None
) -> int:
    """The interactive loop; Ctrl-D or "exit" ends it."""

    async def loop() -> None:
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=120) as http:
            session = ChatSession(
                http, ask=input, say=print, mode=mode, conversation_id=conversation_id
            )
            print(f"conversation {await session.start()} — type 'exit' to leave")
            while True:
                try:
                    text = (await asyncio.to_thread(input, "you> ")).strip()
                except EOFError:
                    return
                if text in ("exit", "quit"):
                    return
                if text:
                    await session.send(text)

    try:
        asyncio.run(loop())
    except KeyboardInterrupt:
        pass
    except httpx.HTTPError as error:
        print(f"cannot reach Alfred at {url}: {error}")
        return 1
    return 0
