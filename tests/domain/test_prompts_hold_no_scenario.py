"""No evaluation scenario's message, nor a close paraphrase of one, is in anything a model
is shown as instructions: the prompt files, the modes' texts, Think's plan patterns and
library. An example that is a scenario's request measures copying, not planning.

A scenario message is every turn's ``say`` and every pause answer's text, with its tokens
read as words (``{next monday}`` is a day, ``@{recipes:Red Lentil Dal}`` the name). A text
is cut into units: each quoted phrase, and each sentence or list item (code blocks and
``<placeholders>`` left out). Words are lower-cased, numbers read as one word ``<n>`` and
days (weekdays, today, tomorrow, dates) as ``<day>``; content words are the words left
without function words, reduced to a crude stem (``domain.plan_examples.content_stems``).
A unit is a *close paraphrase* of a message when:

1. the message has one content word and the unit's content words are just that word
   ("what am I allergic to?" and "what are my allergies?");
2. the message has two or more, and the unit shares at least two of them, covering at
   least half of the message's content words and half of the unit's ("what's planned for
   dinner next Monday?" and "what's planned for Tuesday?");
3. they share a run of four words, one of them a content word ("... to my shopping list");
4. or the unit holds the message's whole wording (three words or more).
"""

from __future__ import annotations

import json
import re

import pytest

from domain.modes import MODES
from domain.plan_examples import content_stems, parse_library, stem, words
from domain.prompts import PROMPTS_DIR, load, template_names
from evals.scenario import PROBES_DIR, SCENARIOS_DIR, load_all

_TOKEN = re.compile(r"\{(today|tomorrow|today[+-]\d+|(?:next|this) ([a-z]+))\}")
_MENTION = re.compile(r"[@#]\{[a-z_]+:([^}]+)\}")


def scenario_messages() -> list[tuple[str, str]]:
    """(scenario id, message) for every turn's message and every answer's text, of the
    scenarios and the probes (an example that is a probe measures copying too)."""
    found = []
    for scenario in load_all(SCENARIOS_DIR) + load_all(PROBES_DIR):
        for turn in scenario.turns:
            texts = [turn.say] + [a.text for a in turn.answers if a.text]
            for text in texts:
                text = _TOKEN.sub(lambda m: m[2] or "today", text)
                found.append((scenario.id, _MENTION.sub(r"\1", text)))
    return found


_BLOCK = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*]|\d+\.|#+)\s)")
"""Paragraphs, list items and headings: each may wrap over several lines."""
_SENTENCE = re.compile(r"(?<=[.?!;])\s+|\s+—\s+|\s+→\s+")


def units(text: str) -> list[str]:
    """Quoted phrases, then sentences of each paragraph, list item or heading. A
    ``<placeholder>`` stands for some content: it reads as the word ``placeholder``."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"<[^<>\n]*>", "placeholder", text)
    text = re.sub(r"^(#+ .*)$", "\\1\n", text, flags=re.M)  # a heading ends its block
    found = re.findall(r'"([^"\n]+)"', text)
    for block in _BLOCK.split(text):
        flat = re.sub(r"^(?:[-*]|\d+\.|#+)\s+", "", " ".join(block.split()))
        found += [s for s in _SENTENCE.split(flat) if s.strip()]
    return found


def _runs(text: str, n: int = 4) -> set[tuple[str, ...]]:
    ws = words(text)
    return {tuple(ws[i : i + n]) for i in range(len(ws) - n + 1)}


def close_paraphrase(message: str, unit: str) -> bool:
    said, shown = set(content_stems(message)), set(content_stems(unit))
    shared = said & shown
    if len(said) == 1 and said == shown:
        return True
    if len(said) >= 2 and len(shared) >= 2:
        if len(shared) >= len(said) / 2 and len(shared) >= len(shown) / 2:
            return True
    for run in _runs(message) & _runs(unit):
        if any(stem(w) in said for w in run if w not in ("<n>", "<day>")):
            return True
    m, u = words(message), words(unit)
    return len(m) >= 3 and any(u[i : i + len(m)] == m for i in range(len(u)))


def instructions() -> dict[str, str]:
    """Everything a model is shown as instructions, by where it comes from."""
    shown = {}
    for name in template_names():
        if name == "think_library":
            for i, entry in enumerate(parse_library(load(name).text)):
                outcome = json.loads(entry.plan)  # its words: descriptions, the proposal
                said = [s["description"] for s in outcome["steps"]]
                said += [outcome.get("proposal_message") or ""]
                shown[f"think_library entry {i}"] = "\n\n".join([f'"{entry.request}"', *said])
        else:
            shown[f"prompts/{name}"] = load(name).text
    for mode, config in MODES.items():
        shown[f"MODES[{mode!r}]"] = "\n".join(
            [config.guidance, config.examples, config.understand_hint]
        )
    return shown


# --- the definition, on the phrases that had to go -------------------------------------------


@pytest.mark.parametrize(
    ("message", "unit"),
    [
        ("what am I allergic to?", "what are my allergies?"),  # understand v4's quick examples
        ("what's planned for dinner next Monday?", "what's planned for Tuesday?"),
        ("what's on my shopping list?", "show my shopping list"),
        ("forget that recipe, I don't want it", "forget that recipe"),
        ("delete that one", "delete it"),
        ("add feta to it", "add feta"),  # act/generate v3
        ("add olive oil and two lemons to my shopping list", "add 3 limes to my shopping list"),
        ("save it", "save that one"),  # brainstorm v2
        ("make me a meal plan", "they asked: make me a meal plan, please"),
    ],
)
def test_a_close_paraphrase_is_caught(message: str, unit: str):
    assert close_paraphrase(message, unit)


@pytest.mark.parametrize(
    ("message", "unit"),
    [
        ("I used up the rice", "I used up"),  # a kind of request, not the request
        ("what's in my fridge?", "what's in the freezer"),
        ("make me a meal plan", "a shopping list for the dinners already on this week's calendar"),
        ("save it", "Save the generated recipe with its ingredients"),
        ("what am I allergic to?", "use the profile (servings, allergies, skill, time budget)"),
    ],
)
def test_words_in_common_are_not_a_paraphrase(message: str, unit: str):
    assert not close_paraphrase(message, unit)


def test_units_are_quotes_sentences_and_list_items_without_code_or_placeholders():
    text = '# Head\nSay "hi there". Then go.\n- one item\n  wrapped\n```json\n{"a": 1}\n```\n\n'
    text += "1. Use <a ref> here — or not"
    assert units(text) == [
        "hi there",
        "Head",
        'Say "hi there".',
        "Then go.",
        "one item wrapped",
        "Use placeholder here",
        "or not",
    ]


# --- the prompts --------------------------------------------------------------------------------


def test_there_are_scenarios_and_instructions_to_compare():
    messages = scenario_messages()
    assert len(messages) >= 40 and ("quick_allergies", "what am I allergic to?") in messages
    assert ("dal_next_monday", "put the Red Lentil Dal on next Monday's dinner") in messages
    shown = instructions()
    assert "prompts/think" in shown and "prompts/understand" in shown
    assert sum(k.startswith("think_library entry") for k in shown) >= 30
    files = {p.relative_to(PROMPTS_DIR).as_posix().split(".")[0] for p in PROMPTS_DIR.rglob("*.md")}
    assert {f"prompts/{f}" for f in files - {"README", "think_library"}} <= set(shown)


def test_no_instruction_holds_a_scenario_message_or_a_close_paraphrase():
    messages = scenario_messages()
    found = [
        f"{where}: {unit!r} ~ {scenario}: {message!r}"
        for where, text in instructions().items()
        for unit in units(text)
        for scenario, message in messages
        if close_paraphrase(message, unit)
    ]
    assert found == []
