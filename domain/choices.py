"""Disambiguation as a choice (seed 000 `needs_disambiguation`): the candidates Understand
named, checked against the registry, asked as a numbered list, and the user's answer
resolved back to one ref.

The model's options are untrusted: a ref the registry does not know is dropped and the
label shown is the registry's, so the user only ever chooses between real entities.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from domain.intent import DELETE_VERBS, requested_change
from domain.nodes import DisambiguationOption
from domain.registry import SessionIdRegistry
from domain.turn_context import FreshEntity

ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "last": -1,
}


def checked_options(
    registry: SessionIdRegistry, options: Sequence[DisambiguationOption]
) -> list[DisambiguationOption]:
    """The options whose ref the registry knows, once each, labelled as the registry has it."""
    known = set(registry.known_refs())
    seen: set[str] = set()
    checked: list[DisambiguationOption] = []
    for option in options:
        if option.ref not in known or option.ref in seen:
            continue
        seen.add(option.ref)
        checked.append(
            DisambiguationOption(ref=option.ref, label=registry.label(option.ref) or option.label)
        )
    return checked


NUMBER_ONLY = re.compile(
    r"(?:the\s+)?(?:(?:number|option|no\.?|#)\s*)?(\d+)(?:st|nd|rd|th)?(?:\s+(?:one|please))*"
)
"""An answer that is only a number ("2", "number 2", "#2", "the 2nd")."""
WHICH_DELETE_QUESTION = "Which one should I delete?"

WHERE = {"inventory": "in your inventory", "shopping_list": "on your shopping list"}


def which_to_delete(
    candidates: Sequence[FreshEntity], familiar: Sequence[str]
) -> list[DisambiguationOption]:
    """The choice for a delete that could mean rows of several tables ("delete the eggs":
    the fridge's or the list's), each labelled with where it is. No choice when the
    conversation already points at one of them (``familiar``: refs it had seen before)."""
    if len({c.table for c in candidates}) < 2:
        return []
    seen = [c for c in candidates if c.ref in familiar]
    if len(seen) == 1:
        return []
    options = []
    for candidate in candidates:
        data = candidate.data or {}
        where = WHERE.get(candidate.table, candidate.table)
        if data.get("location"):
            where += f", {data['location']}"
        options.append(
            DisambiguationOption(ref=candidate.ref, label=f"{data.get('name')} ({where})")
        )
    return options


POINTING = re.compile(r"\b(?:that|this|the) (?:one|recipe|item|dish|meal|task)\b", re.IGNORECASE)
"""Words that pick one of several things shown instead of naming it ("that one"); "it"
names the one thing the conversation was about, which the model resolves."""
POINTABLE = frozenset({"recipe", "inv", "shop", "meal", "task"})
"""The rows a user sees listed and deletes (not a recipe's ingredient lines, the catalog)."""
MAX_POINTED = 8
"""More rows than this last shown, and a numbered choice is no help: the model decides."""


def which_was_pointed_at(message: str, registry: SessionIdRegistry) -> list[DisambiguationOption]:
    """The choice for a delete that points instead of naming ("delete that one", "remove
    this recipe") right after a turn that showed several rows: the rows the last turn referenced.
    No choice when it showed one, or the message names one of them: a delete is never a
    guess between rows the user saw side by side."""
    if requested_change(message) not in DELETE_VERBS or not POINTING.search(message):
        return []
    shown = [
        DisambiguationOption(ref=ref, label=entry.label)
        for ref, entry in registry.entries.items()
        if entry.uuid is not None
        and entry.type in POINTABLE
        and entry.last_ref >= registry.turn - 1
        and not entry.action.startswith("deleted")
        and entry.label
    ]
    if not 2 <= len(shown) <= MAX_POINTED:
        return []
    words = set(re.findall(r"[a-z0-9]+", message.lower())) - _FILLER - DELETE_VERBS
    if any(words & set(re.findall(r"[a-z0-9]+", o.label.lower())) for o in shown):
        return []
    return shown


def format_choice(question: str | None, options: Sequence[DisambiguationOption]) -> str:
    """The question (or "Which one do you mean?") and the candidates, numbered."""
    lead = (question or "").strip() or "Which one do you mean?"
    numbered = [f"{n}. {option.label}" for n, option in enumerate(options, start=1)]
    return "\n".join([lead, "", *numbered])


def resolve_choice(
    answer: str, options: Sequence[DisambiguationOption]
) -> DisambiguationOption | None:
    """The option the user's answer picks: its number alone ("2", "number 2"), a label as
    written, its ref, words of only one label ("the chicken one"), or an ordinal ("the
    second one", "last"). None when it picks none or several, or says "not"."""
    text = answer.strip().lower().rstrip(".!")
    if not text or not options:
        return None
    number = NUMBER_ONLY.fullmatch(text)
    if number:
        index = int(number.group(1))
        return options[index - 1] if 1 <= index <= len(options) else None
    words = set(re.findall(r"[a-z0-9_]+", text))
    if "not" in words:
        return None  # "not the first one": Understand reads that, not a rule
    if text in (o.label.lower() for o in options):
        return next(o for o in options if o.label.lower() == text)
    by_ref = [o for o in options if o.ref.lower() in words]
    if len(by_ref) == 1:
        return by_ref[0]
    meaningful = words - _FILLER - set(ORDINALS)
    matching = [o for o in options if meaningful & set(re.findall(r"[a-z0-9]+", o.label.lower()))]
    if len(matching) == 1:
        return matching[0]
    if matching:
        return None  # words of several labels
    for word, index in ORDINALS.items():
        if word in words:
            return options[index] if index < 0 else _nth(options, index)
    return None


def _nth(options: Sequence[DisambiguationOption], index: int) -> DisambiguationOption | None:
    return options[index - 1] if index <= len(options) else None


_FILLER = frozenset(
    "the a an one ones that this it i mean meant want please yes no of with and my your in on"
    " from to for".split()
)
