"""Offline token estimates and budgeted prompt assembly.

tiktoken downloads its encodings at run time, which this deployment cannot rely on, so
token counts are estimated: every punctuation mark is a token and a word costs one token
per four characters (rounded up), which tracks BPE tokenizers on English prose and JSON
closely enough for budgeting (seed 000 thresholds: 8K for Think, 25K for Act). On the
workflow suite's 289 distinct requests, Qwen2.5's tokenizer counted 0.76-0.90 of this
estimate (median 0.81): it errs on the long side, so a window it fills is not overrun.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_TOKENS = re.compile(r"\w{1,4}|[^\w\s]")
"""A word's four-character chunks and each punctuation mark: one match per token, so the
regex engine counts them (a word of n characters is ceil(n / 4) chunks)."""


@lru_cache(maxsize=512)
def estimate_tokens(text: str) -> int:
    """Kept for the last 512 texts: a turn's model calls share most prompt sections (the
    plan, the registry table, the conversation), and hashing a text is cheaper than
    scanning it."""
    return len(_TOKENS.findall(text))


MIN_CONTEXT = 1_000
"""The least context a call is given however small the window: below it a node has
nothing to reason from, and the server's refusal says more than a cut prompt would."""
CHAT_OVERHEAD = 50
"""What a chat template adds around a system and a user message (role markers)."""
MIN_ANSWER = 128
"""The least answer room worth a call (the local models' Think answers ran 95 tokens at
the median): with less, the call is not made and the turn says the window is too small."""


def within_window(budget: int, window: int | None, system: str, answer: int) -> int:
    """A call's context budget: ``budget``, lowered when a model's context ``window`` (in
    tokens; None: unknown, the budget stands) cannot hold the ``system`` prompt, the
    context and half of ``answer``, the answer's token cap. Answers run far below their
    caps (in the local models' recordings, Act's p95 was 1,256 tokens of up to 3,000,
    Think's 306 of 1,500), so half keeps room for an answer without starving the context;
    the call then asks for what the window leaves (``answer_room``)."""
    if window is None:
        return budget
    room = window - estimate_tokens(system) - answer // 2 - CHAT_OVERHEAD
    return max(MIN_CONTEXT, min(budget, room))


def answer_room(cap: int, window: int | None, system: str, user: str) -> int:
    """A call's ``max_tokens``: its cap, or what the window leaves after the prompt when
    that is less, so the prompt and the answer fit together (OpenAI and vLLM refuse a
    request whose prompt and ``max_tokens`` overrun the window; llama.cpp refuses the
    prompt and cuts the answer)."""
    if window is None:
        return cap
    left = window - estimate_tokens(system) - estimate_tokens(user) - CHAT_OVERHEAD
    return max(0, min(cap, left))


@dataclass(frozen=True)
class Section:
    """One titled part of a prompt. Lower ``keep`` is dropped first when over budget."""

    title: str
    body: str
    keep: int = 0
    partial: bool = False
    """Its first words stand for it (rows of a read): over budget it may be cut to the room
    left rather than dropped. A section whose latest part matters most (a conversation,
    steps in order) is not."""

    def render(self) -> str:
        return f"## {self.title}\n{self.body.strip()}\n" if self.body.strip() else ""


@dataclass(frozen=True)
class Fitted:
    text: str
    tokens: int
    dropped: tuple[str, ...]
    """Titles of the sections left out to stay within the budget, in the order dropped."""
    cut: str | None = None
    """The title of the section kept only in part (a ``partial`` one that had to go last,
    cut to the room the others leave)."""


MIN_PART = 100
"""The least room worth keeping part of a section in (a few rows of a read)."""


def fit(sections: list[Section], budget: int) -> Fitted:
    """The sections, in their order, within ``budget`` estimated tokens.

    Whole sections go, least important first (``keep`` ascending, later sections before
    earlier ones on a tie). A ``partial`` section whose going would make the rest fit
    keeps its first words in the room the rest leave instead, marked as cut, when that
    room is at least ``MIN_PART`` (a read too large for Act's window shows its first rows
    rather than nothing). If the most important one alone is still too long, its text is
    cut at the budget and marked, rather than sent over budget.

    Each section is rendered and counted once: the estimate of the joined text is the sum
    of the sections' (a piece never spans the newline between two sections).
    """
    rendered = [(s, text) for s in sections if (text := s.render())]
    costs = [estimate_tokens(text) for _, text in rendered]
    dropped: list[str] = []
    by_importance = sorted(range(len(rendered)), key=lambda i: (rendered[i][0].keep, -i))
    kept = [True] * len(rendered)
    total = sum(costs)
    cut = None
    for index in by_importance:
        if total <= budget or sum(kept) == 1:
            break
        rest = total - costs[index]
        section, text = rendered[index]
        if section.partial and rest <= budget and budget - rest >= MIN_PART:
            rendered[index] = (section, _cut(text, budget - rest))
            total = rest + estimate_tokens(rendered[index][1])
            cut = section.title
            break
        kept[index] = False
        total = rest
        dropped.append(section.title)
    text = "\n".join(t for (_, t), keep in zip(rendered, kept, strict=True) if keep)
    if total > budget:
        text = _cut(text, budget)
        total = estimate_tokens(text)
    return Fitted(text, total, tuple(dropped), cut)


def clip(text: str, budget: int) -> str:
    """``text`` within ``budget`` estimated tokens: whole, or its first words, marked."""
    return text if estimate_tokens(text) <= budget else _cut(text, budget)


def _cut(text: str, budget: int) -> str:
    marker = "\n…(cut to fit the context budget)"
    words = text.split(" ")
    low, high = 0, len(words)
    while low < high:  # the longest prefix of words within the budget
        middle = (low + high + 1) // 2
        if estimate_tokens(" ".join(words[:middle]) + marker) <= budget:
            low = middle
        else:
            high = middle - 1
    return " ".join(words[:low]) + marker
