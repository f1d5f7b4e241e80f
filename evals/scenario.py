"""A scenario as data: the kitchen to start from, the turns, and what each turn must do.

Scenarios are TOML files in ``evals/scenarios/`` (the probes, in ``evals/probes/``). Text
anywhere in a turn may use tokens the runner expands when it runs (so a scenario holds on
any day):

- ``{today}``, ``{tomorrow}``, ``{today+3}``, ``{today-1}``: ISO dates in the user's
  timezone (UTC unless the kitchen's preferences say otherwise);
- ``{next monday}`` ... ``{next sunday}``: that day of next week (Monday to Sunday);
- ``{this friday}``: that day of this week;
- ``{coming friday}``: the first Friday from today on (today's when today is one), as a
  weekday said alone means;
- ``@{recipes:Red Lentil Dal}``: an @-mention of a seeded row,
  ``@[Red Lentil Dal](recipe:<uuid>)``, as a chat client sends it;
- ``#{recipes:Red Lentil Dal}``: a seeded row's id (a foreign key a check expects).
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from domain.clock import DAY_NAMES, DAY_TOKEN
from domain.clock import named_day as day
from domain.nodes import NODE_OUTPUTS

SCENARIOS_DIR = Path(__file__).parent / "scenarios"
PROBES_DIR = Path(__file__).parent / "probes"
"""One-line requests as people type them, one kitchen for all (``alfred eval --probes``):
stand-ins for the scenarios no session sees, kept so that each session runs the same."""

PATHS: tuple[str, ...] = (
    "quick",
    "plan_direct",
    "propose_confirmed",
    "propose_rejected",
    "clarify_understand",
    "clarify_think",
    "ask_user",
    "read",
    "write",
    "analyze",
    "generate",
    "parallel_group",
    "generate_then_save",
    "revise_generated",
    "mention",
    "ui_edit",
    "relative_date",
    "cook",
    "brainstorm",
    "handoff",
    "forget",
)
"""The paths of a turn a scenario can cover (``covers``), and that a run can reach."""
NODES: tuple[str, ...] = tuple(NODE_OUTPUTS)
"""The nodes a scenario can exercise."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RowCheck(_Strict):
    """Rows of ``table`` that match ``where`` (every key equal; text ignores case)."""

    table: str
    where: dict[str, Any] = Field(default_factory=dict)
    like: dict[str, str | list[str]] = Field(default_factory=dict)
    """Text columns that must contain the given words, ignoring case (``{name = "chicken"}``
    matches "chicken thighs"; a list, any one of them: ``{title = ["mum", "mother"]}``): how
    a scenario names what any good model would write."""
    fields: dict[str, Any] = Field(default_factory=dict)
    """What every matched row must hold (numbers within 1 %, text ignoring case)."""
    count: int | None = None
    """Exactly this many rows match; unset: at least one."""
    absent: bool = False
    """No row matches."""


class ReplyCheck(_Strict):
    mentions: list[str | list[str]] = Field(default_factory=list)
    """Each entry must appear in the reply (a list: any one of its words), ignoring case."""
    not_mentions: list[str] = Field(default_factory=list)
    """Claims the reply must not make (``saved`` when nothing was saved), ignoring case."""
    matches: list[str] = Field(default_factory=list)
    """Regular expressions each found in the reply, ignoring case: a fact stated in a way
    no other text satisfies (``\\b3\\s*l\\b`` is "3 l", never "3 tool calls")."""
    not_matches: list[str] = Field(default_factory=list)
    """Regular expressions never found in the reply, ignoring case (a wrong claim)."""

    @field_validator("matches", "not_matches")
    @classmethod
    def _compiles(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"reply pattern {pattern!r}: {error}") from None
        return patterns


class GeneratedCheck(_Strict):
    """The generated, unsaved items of ``type`` after the turn: there is one at least, and
    every one holds all of this."""

    type: Literal["recipe", "meal", "task"] = "recipe"
    mentions: list[str | list[str]] = Field(default_factory=list)
    """Words its content holds, anywhere (a list: any one of them), ignoring case."""
    not_mentions: list[str] = Field(default_factory=list)
    """Words its content must not hold (what the profile or the request rules out)."""
    fields: dict[str, Any] = Field(default_factory=dict)
    """Content fields it must hold (numbers within 1 %, text ignoring case)."""
    filled: list[str] = Field(default_factory=list)
    """Content fields that must not be empty (a recipe's ``ingredients``)."""
    shown: bool = False
    """The reply shows it: names it (its name, or a task's title) and, for a recipe, lists
    every ingredient by name."""


PauseKind = Literal["proposal", "clarification", "question"]


class Expect(_Strict):
    status: Literal["completed", "failed", "awaiting_input", "cancelled", "expired"] = "completed"
    pauses: list[PauseKind | list[PauseKind]] = Field(default_factory=list)
    """The pauses the turn makes, in order (each answered from ``answers``); an entry that
    is a list accepts any of its kinds (a missing value asked by Think or by Act)."""
    may_propose: bool = False
    """After the expected pauses, the turn may propose its plan once more (plan mode
    proposes a plan that saves what it chose, which the user has not seen: a plan that
    generates the dinners, where another picks them in its write); that proposal is
    confirmed and not counted against ``pauses``."""
    rows: list[RowCheck] = Field(default_factory=list)
    reply: ReplyCheck = Field(default_factory=ReplyCheck)
    unsaved: int | None = None
    """How many generated, unsaved items the session holds after the turn."""
    generated: list[GeneratedCheck] = Field(default_factory=list)
    """What the unsaved items say (a recipe that fits the request and the profile)."""
    saved: int | None = None
    """How many of the items unsaved before the turn it saved: each is now a row of its
    table under the generated name (a recipe with every generated ingredient), and no
    longer unsaved."""
    no_writes: bool = False
    """The turn changed nothing in the kitchen (every table's rows as before it, after the
    turn's UI edits)."""
    session: Literal["open", "ended"] | None = None
    """A cook or brainstorm session is still going after the turn (``open``), or none is
    (``ended``)."""


class Answer(_Strict):
    action: Literal["confirm", "reject", "answer"] = "answer"
    text: str | None = None


class Edit(_Strict):
    """A kitchen edit made in the UI before the turn (through the kitchen API, so the turn
    sees it as a UI change)."""

    op: Literal["create", "update", "delete"]
    table: str
    where: dict[str, Any] = Field(default_factory=dict)
    """update / delete: the row (by column values)."""
    data: dict[str, Any] = Field(default_factory=dict)


class Turn(_Strict):
    say: str
    mode: Literal["quick", "plan", "create", "cook", "brainstorm"] | None = None
    answers: list[Answer] = Field(default_factory=list)
    edits: list[Edit] = Field(default_factory=list)
    expect: Expect = Field(default_factory=Expect)


class Scenario(_Strict):
    id: str
    title: str
    covers: list[str]
    """Paths of the turn this scenario is written to exercise (``PATHS``)."""
    nodes: list[str] = Field(default_factory=list)
    """Nodes it exercises (``NODES``)."""
    kitchen: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    """Rows per table before the first turn."""
    preferences: dict[str, Any] = Field(default_factory=dict)
    turns: list[Turn] = Field(min_length=1)

    def model_post_init(self, _: Any) -> None:
        unknown = sorted(set(self.covers) - set(PATHS)) + sorted(set(self.nodes) - set(NODES))
        if unknown:
            raise ValueError(f"{self.id}: unknown paths or nodes {unknown}")


def load(path: Path) -> Scenario:
    try:
        return Scenario.model_validate(tomllib.loads(path.read_text()))
    except (tomllib.TOMLDecodeError, ValueError) as error:
        raise ValueError(f"{path.name}: {error}") from error


def load_all(directory: Path = SCENARIOS_DIR, only: list[str] | None = None) -> list[Scenario]:
    scenarios = [load(p) for p in sorted(directory.glob("*.toml"))]
    ids = [s.id for s in scenarios]
    if len(set(ids)) != len(ids):
        raise ValueError(f"scenario ids repeat: {sorted(i for i in ids if ids.count(i) > 1)}")
    if only:
        missing = sorted(set(only) - set(ids))
        if missing:
            raise ValueError(f"no such scenario: {', '.join(missing)}")
        scenarios = [s for s in scenarios if s.id in only]
    return scenarios


# --- tokens ------------------------------------------------------------------------------------

_MENTION = re.compile(r"([@#])\{([a-z_]+):([^}]+)\}")


def tokens(scenario: Scenario, today: dt.date) -> dict[str, str]:
    """ISO date -> the token a recorded answer writes it as, so the recording means the
    same on any later day: the scenario's own tokens first ("{tomorrow}" stays tomorrow;
    of its own, one whose day the turns' words say, then a weekday's over a count of days,
    ``OFFSET``), then this and next week by weekday, then days from today. Recorded on a
    Sunday, "put the dal down for lunch tomorrow" wrote the dal's Monday as the kitchen's
    ``{next monday}``, and replayed on a Wednesday it was planned five days late."""
    found: dict[str, str] = {}
    for offset in range(-60, 61):
        sign = "+" if offset >= 0 else "-"
        date = today + dt.timedelta(days=offset)
        found[date.isoformat()] = "{today}" if offset == 0 else f"{{today{sign}{abs(offset)}}}"
    for which in ("this", "next"):
        for name in (d.lower() for d in DAY_NAMES):
            found[day(f"{which} {name}", today).isoformat()] = f"{{{which} {name}}}"
    text = scenario.model_dump_json()
    own = dict.fromkeys(DAY_TOKEN.findall(text))
    said = " ".join(turn.say for turn in scenario.turns).lower()
    for token in sorted(own, key=lambda t: (_said(t, said), not OFFSET.match(t))):  # last wins
        found[day(token, today).isoformat()] = f"{{{token}}}"
    return found


def _said(token: str, words: str) -> bool:
    """Whether the turns' words say the day ``token`` names: "tomorrow" for
    ``{tomorrow}``, "monday" for ``{next monday}`` (``{today+2}`` is no word)."""
    word = token.split()[-1]
    return not word.startswith("today") and re.search(rf"\b{word}\b", words) is not None


OFFSET = re.compile(r"^(?:today(?:[+-]\d+)?|tomorrow|yesterday)$")
"""A token that counts days from today: where it falls on the day a weekday's token names
(a probe's milk expires on ``{today+2}``, its dal is planned on ``{next monday}``, both
2026-11-30 on a Saturday; its oven is due ``{tomorrow}``, Monday on a Sunday), the
weekday's is the one a recorded date is written as. The
words say weekdays ("take the dal off monday"), and a recording made on a Saturday
replayed on a Sunday otherwise read its Monday as Tuesday."""


_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def tokenize(value: Any, dates: dict[str, str]) -> Any:
    """``value`` with the dates in ``dates`` written as their tokens (``expand`` undoes it)."""
    if isinstance(value, str):
        return _ISO_DATE.sub(lambda m: dates.get(m.group(0), m.group(0)), value)
    if isinstance(value, list):
        return [tokenize(v, dates) for v in value]
    if isinstance(value, dict):
        return {k: tokenize(v, dates) for k, v in value.items()}
    return value


def expand(value: Any, today: dt.date, row: Any = None) -> Any:
    """``value`` with its date tokens expanded, and, given ``row`` (``(marker, table,
    label) -> text``), its row tokens."""
    if isinstance(value, str):
        text = DAY_TOKEN.sub(lambda m: day(m.group(1), today).isoformat(), value)
        if row is not None:
            text = _MENTION.sub(lambda m: row(m.group(1), m.group(2), m.group(3)), text)
        return text
    if isinstance(value, list):
        return [expand(v, today, row) for v in value]
    if isinstance(value, dict):
        return {k: expand(v, today, row) for k, v in value.items()}
    return value
