"""Whether a reply shows the content the turn generated and says what it wrote, and what
it owes.

Generated content is not saved: the user can only save, change or cook what they have
seen. Reply is told to show it in full (prompts/reply), and a model may still only name
it. Whether a recipe was shown needs no judgment (its name, and each ingredient by name),
so the turn's ending adds the recipe the reply left out (``workflows.endings``), whatever
the model wrote. Likewise a write the reply does not speak of (``unsaid_writes``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from domain.formatters import format_generated_recipe
from domain.kitchen.entities import compute_label
from domain.registry import SessionIdRegistry, UnknownRefError, is_ref


def left_out(reply: str, kind: str, content: Mapping[str, Any]) -> list[str]:
    """What a reply showing this generated item leaves out: its name, and a recipe's
    ingredients by name (case-insensitive); empty when it shows the item."""
    text = reply.lower()
    label = compute_label(kind, content).strip()
    missing = [] if label.lower() in text else [f"the reply does not name {label!r}"]
    if kind == "recipe":
        names = [str(i.get("name") or "").strip() for i in content.get("ingredients") or []]
        left = [n for n in names if n and n.lower() not in text]
        missing += [f"the reply leaves out {', '.join(left)}"] if left else []
    return missing


def owed_recipes(reply: str, registry: SessionIdRegistry, generated: Sequence[str]) -> str:
    """The recipes among ``generated`` (this turn's ``gen_`` refs) that are still unsaved
    and that ``reply`` does not show, each in full; "" when it owes none."""
    pending = registry.get_truly_pending_artifacts()
    cards = [
        format_generated_recipe(content)
        for ref in dict.fromkeys(generated)  # in order, once each
        if (content := pending.get(ref)) is not None
        and registry.type_of(ref) == "recipe"
        and left_out(reply, "recipe", content)
    ]
    if not cards:
        return ""
    head = "Here is the recipe in full:" if len(cards) == 1 else "Here are the recipes in full:"
    return "\n\n".join([head, *cards])


SAID = {
    "Added": (
        r"add(?:ed|ing|s)?\b|put\b|sav|creat|plann|schedul|now (?:on|in)\b|"
        r"(?:is|are) (?:now )?(?:on|in) (?:your|the)\b"
    ),
    "Saved": r"sav|add(?:ed|ing|s)?\b|creat|stored\b",
    "Removed": r"remov|delet|gone\b|took\b|taken\b|clear|empt|dropp|no longer\b|crossed\b",
    "Cleared": r"clear|empt|remov|delet|reset\b",
    "Updated": (
        r"updat|chang|set\b|mark|now\b|edit|tick|mov(?:ed|e|ing)\b|renam|adjust|increas|"
        r"decreas|reduc"
    ),
    "Logged": r"logg|log\b|record|noted\b",
}
"""For each verb a write's confirmation starts with (``format_write_confirmation``), the
word stems by which a reply says it did that."""


NOTHING_CHANGED = re.compile(r"(?<!\S)nothing was changed\.(?!\S)\s*", re.IGNORECASE)
"""The sentence the turn's ending says when it wrote nothing (``formatters.format_done``),
which Reply's prompt quotes."""


def without_false_nothing(reply: str, written: Sequence[str]) -> str:
    """The reply without the sentence "Nothing was changed." when the turn wrote
    (``written``): the sentence is the system's own, quoted in Reply's prompt, and false
    then. For "delete the plumber task" the 1.5B local model replied "I removed the
    plumber task from the tasks list. The plumber was called. Nothing was changed." after
    the task was deleted. The writes it leaves unsaid are then added (``unsaid_writes``)."""
    if not written:
        return reply
    return NOTHING_CHANGED.sub("", reply).strip()


def unsaid_writes(reply: str, written: Sequence[str]) -> list[str]:
    """The turn's write confirmations (``TurnState.written``) whose kind of change the
    reply never speaks of: Reply answered as if nothing was written ("You have two recipes:
    …" after the chili was deleted)."""
    text = reply.lower()
    unsaid = []
    for sentence in written:
        verb = sentence.split(maxsplit=1)[0] if sentence.strip() else ""
        stems = SAID.get(verb)
        if stems is not None and not re.search(rf"\b(?:{stems})", text):
            unsaid.append(sentence)
    return unsaid


REPLY_SECTIONS = (
    "user request",
    "today",
    "goal",
    "warnings",
    "plan overview",
    "batch progress",
    "primary output",
    "execution summary",
    "saved vs generated",
    "problems",
    "suggested next step",
    "conversation phase",
    "conversation",
)
"""The titles of the sections of Reply's prompt (``domain.context.reply_context``)."""
_HEADING = re.compile(r"^\s*#{1,4}\s*(.+?)\s*:?\s*$", re.MULTILINE)


PROSE_SECTIONS = (
    "plan overview",
    "batch progress",
    "primary output",
    "execution summary",
    "saved vs generated",
    "suggested next step",
    "conversation phase",
)
"""The section titles no answer to a user says in passing (not "goal", "today" or
"problems")."""


def repeats_the_prompt(reply: str) -> bool:
    """Whether a reply gives back its prompt instead of an answer: two or more of the
    prompt's section headings ("## User request", "## Execution summary") as lines of it,
    or two or more of its titles no answer says (``PROSE_SECTIONS``) in its sentences:
    asked "what goes in the chili", the 1.5B local model answered "The primary output is
    the saved Chili recipe with its ingredients. The execution summary shows … The
    suggested next step is …", naming no ingredient."""
    titles = {m.group(1).lower() for m in _HEADING.finditer(reply)}
    if len(titles & set(REPLY_SECTIONS)) >= 2:
        return True
    said = " ".join(reply.lower().split())
    return sum(title in said for title in PROSE_SECTIONS) >= 2


REFUSES = re.compile(
    r"^\W*(?:(?:i'm|i am) (?:sorry|afraid),?\s+(?:but\s+)?)?i\s*(?:can't|cannot|can not|"
    r"am unable to|'m unable to|am not able to|won't be able to)\s+(?:assist|help)\s+"
    r"(?:you\s+)?with\s+(?:that|this|your)\b",
    re.IGNORECASE,
)


def refuses(reply: str) -> bool:
    """Whether a reply opens by turning the request down ("I'm sorry, but I can't assist
    with that request"): a small model's stock refusal, no answer to a turn that did what
    it planned."""
    return REFUSES.search(reply.replace("\u2019", "'")) is not None


_NAMED_REF = re.compile(r"\s*\(\s*`?\b((?:gen_)?[a-z]+_\d+)\b`?\s*\)|`?\b((?:gen_)?[a-z]+_\d+)\b`?")


def without_refs(reply: str, registry: SessionIdRegistry) -> str:
    """The reply with no ref the registry knows (``recipe_1``, ``gen_recipe_2``): one in
    brackets after a name is dropped ("Weeknight Chili (recipe_1)"), one on its own is its
    label ("added recipe_1" is "added Red Lentil Dal"). Refs are how models name rows,
    never shown to the user (prompts/reply), and the 1.5B local model listed saved recipes
    as "Weeknight Chili (recipe_1)". A ref-shaped word the registry does not know stays."""

    def named(match: re.Match[str]) -> str:
        ref = match.group(1) or match.group(2)
        if not is_ref(ref):
            return match.group(0)
        try:
            label = registry.label(ref)
        except UnknownRefError:
            return match.group(0)
        return "" if match.group(1) else label or match.group(0)

    return _NAMED_REF.sub(named, reply)
