"""``alfred chat``: a terminal client over the HTTP API.

It sends each line as a message, follows the turn's events as they come (plan, steps,
tool work, the reply's text as it is written), and at a pause shows the proposal or
question and asks the person to confirm, reject or answer. It talks only HTTP: the same
API any client uses. Input is read on the main thread, so Ctrl-C leaves at once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import httpx

Ask = Callable[[str], str]
Say = Callable[[str], None]
Write = Callable[[str], None]
"""Text without a line end: the reply as it streams."""


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
    write: Write | None = None
    """Where the reply streams as it is written (None: the reply is said whole)."""
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
        """The turn's events as they come, until its final one."""
        last, reply, streamed = 0, None, ""
        while True:
            async with self.http.stream(
                "GET",
                f"/v1/turns/{turn_id}/events",
                params={"stop_at_pause": "true"},
                headers={"Last-Event-ID": str(last)},
            ) as stream:
                stream.raise_for_status()
                async for seq, event, data in _events(stream):
                    last = seq
                    if event == "token":
                        if data.get("kind") != "generate":  # a forming recipe has no text
                            streamed = self._token(streamed, data)
                        continue
                    line = describe(event, data)
                    if line:
                        self.say(line)
                    if event == "done":
                        reply = data.get("response")
                        if streamed and self.write is not None:
                            self.write("\n")
                        else:
                            self.say(f"alfred> {reply}")
                        streamed = ""
                    if event == "awaiting_input":
                        await self._answer_pause(turn_id, data)
                    if event in FINAL:
                        return reply

    def _token(self, streamed: str, data: dict) -> str:
        """Show a piece of the reply; a new take (a retry) starts the line again."""
        if self.write is None:
            return streamed + data.get("text", "")
        if data.get("reset"):
            if streamed:
                self.write("\n(trying again)\n")
            self.write("alfred> ")
            return " "
        self.write(data.get("text", ""))
        return streamed + data.get("text", "")

    async def _answer_pause(self, turn_id: str, data: dict) -> None:
        self.say(f"alfred> {data.get('message')}")
        if data.get("kind") == "proposal":
            choice = self.ask("confirm? [y]es / [n]o / or type an answer: ").strip()
            if choice.lower() in ("y", "yes"):
                payload = {"action": "confirm"}
            elif choice.lower() in ("n", "no"):
                payload = {"action": "reject"}
            else:
                payload = {"action": "answer", "text": choice}
        else:
            text = self.ask("you> ").strip()
            payload = {"action": "answer", "text": text or "never mind"}
        answered = await self.http.post(f"/v1/turns/{turn_id}/input", json=payload)
        if answered.status_code >= 400:
            self.say(f"(answer refused: {answered.text})")


FINAL = ("context_updated", "error", "expired", "cancelled")


async def _events(response: httpx.Response) -> AsyncIterator[tuple[int, str, dict]]:
    """``(id, event, data)`` of a text/event-stream as it arrives."""
    block: list[str] = []
    async for line in response.aiter_lines():
        if line:
            block.append(line)
            continue
        for parsed in parse_events("\n".join(block) + "\n\n"):
            yield parsed
        block = []


def run_chat(
    url: str, token: str, *, conversation_id: str | None = None, mode: str | None = None
) -> int:
    """The interactive loop; Ctrl-D, Ctrl-C or "exit" ends it. Lines are read on the main
    thread outside the event loop (no reader thread, no loop signal handler), so Ctrl-C
    leaves at once, at the prompt or while a turn streams."""

    def write(text: str) -> None:
        print(text, end="", flush=True)

    loop = asyncio.new_event_loop()
    http = httpx.AsyncClient(
        base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=120
    )
    session = ChatSession(
        http, ask=input, say=print, mode=mode, conversation_id=conversation_id, write=write
    )
    try:
        print(f"conversation {loop.run_until_complete(session.start())} — type 'exit' to leave")
        while True:
            text = input("you> ").strip()
            if text in ("exit", "quit"):
                return 0
            if text:
                loop.run_until_complete(session.send(text))
    except (KeyboardInterrupt, EOFError):
        print()
        return 0
    except httpx.HTTPError as error:
        print(f"cannot reach Alfred at {url}: {error}")
        return 1
    finally:
        loop.run_until_complete(http.aclose())
        loop.close()
