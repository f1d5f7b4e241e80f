"""Prompt templates as versioned files, and the renderer that fills their placeholders.

Each LLM node's system prompt lives in ``prompts/<name>.v<N>.md`` (``think.v1.md``,
``act/read.v1.md``). ``load`` picks the highest version of a name; ``render`` fills its
``string.Template`` placeholders (``$mode``; a literal dollar is written ``$$``). The
template name and version travel with the rendered text so every LLM call can record
which prompt it used (STYLE habit 8).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"

_VERSIONED = re.compile(r"^(?P<name>.+)\.v(?P<number>\d+)\.md$")

NODE_TEMPLATES: dict[str, str] = {
    "understand": "understand",
    "think": "think",
    "act": "act/base",
    "act_quick": "act_quick",
    "reply": "reply",
    "summarize": "summarize",
    "compress": "compress",
    "cook": "cook",
    "brainstorm": "brainstorm",
}
"""Node name (as in ``domain.nodes.NODE_OUTPUTS``) -> its system prompt template.

Act's prompt is ``act/base`` followed by ``act/<step_type>``: see ``act_templates``.
"""

PERSONAS: dict[str, str] = {
    "recipes": "Chef",
    "inventory": "Ops Manager",
    "shopping": "Ops Manager",
    "meal_plans": "Planner",
    "tasks": "Planner",
    "preferences": "Personal Assistant",
}
"""The ``$persona`` of ``act/base`` for each subdomain (seed 004 §5)."""


class PromptNotFoundError(KeyError):
    """No file exists for a template name."""

    def __init__(self, name: str, directory: Path) -> None:
        super().__init__(name)
        self.name = name
        self.directory = directory

    def __str__(self) -> str:
        return f"no prompt template {self.name!r} (expected {self.directory}/{self.name}.v<N>.md)"


class PromptVariableError(KeyError):
    """A template uses a placeholder that was not given a value."""

    def __init__(self, template: str, variable: str) -> None:
        super().__init__(variable)
        self.template = template
        self.variable = variable

    def __str__(self) -> str:
        return f"prompt template {self.template!r} needs variable {self.variable!r}"


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    """``think``, ``act/read``: the path under ``prompts/`` without version and suffix."""
    version: str
    """``v1``, ``v2``, ..."""
    text: str


@dataclass(frozen=True)
class RenderedPrompt:
    template: str
    """The template name, or several joined with ``+`` (``act/base+act/read``)."""
    version: str
    """The version, or several joined with ``+`` (``v1+v2``)."""
    text: str


def _versions(directory: Path) -> dict[str, dict[int, Path]]:
    """Every template name under ``directory`` -> {version number: file}."""
    found: dict[str, dict[int, Path]] = {}
    for path in directory.rglob("*.md"):
        match = _VERSIONED.match(path.relative_to(directory).as_posix())
        if match:
            found.setdefault(match["name"], {})[int(match["number"])] = path
    return found


def _load_from(directory: Path, name: str) -> PromptTemplate:
    """The highest version of ``name`` in ``directory`` (v10 beats v9)."""
    versions = _versions(directory).get(name)
    if not versions:
        raise PromptNotFoundError(name, directory)
    number = max(versions)
    return PromptTemplate(name, f"v{number}", versions[number].read_text(encoding="utf-8"))


@cache
def load(name: str) -> PromptTemplate:
    """The highest version of template ``name`` in ``PROMPTS_DIR`` (cached).

    Raises:
        PromptNotFoundError: no ``prompts/<name>.v<N>.md`` exists (a ``KeyError``).
    """
    return _load_from(PROMPTS_DIR, name)


def template_names() -> list[str]:
    """Every available template name, sorted (``act/base``, ..., ``understand``)."""
    return sorted(_versions(PROMPTS_DIR))


def _substitute(template: PromptTemplate, variables: dict[str, object]) -> str:
    try:
        return Template(template.text).substitute(variables)
    except KeyError as missing:
        raise PromptVariableError(template.name, str(missing.args[0])) from None
    except ValueError as bad:  # a lone "$" not followed by a name: a template bug
        raise ValueError(f"prompt template {template.name!r}: {bad}") from None


def render(name: str, /, **variables: object) -> RenderedPrompt:
    """Template ``name`` with its placeholders filled; extra variables are ignored.

    Raises:
        PromptNotFoundError: the template does not exist.
        PromptVariableError: the template uses a variable that was not given.
    """
    template = load(name)
    return RenderedPrompt(name, template.version, _substitute(template, variables))


def act_templates(step_type: str) -> list[str]:
    """The templates of an Act step: the common base, then the step type's additions."""
    return ["act/base", f"act/{step_type}"]


def render_many(names: list[str], /, **variables: object) -> RenderedPrompt:
    """Several templates rendered with the same variables, joined by a blank line.

    Used for Act: ``render_many(["act/base", "act/read"], step_type="read", ...)``.
    """
    if not names:
        raise ValueError("render_many needs at least one template name")
    parts = [render(name, **variables) for name in names]
    return RenderedPrompt(
        template="+".join(p.template for p in parts),
        version="+".join(p.version for p in parts),
        text="\n\n".join(p.text.strip("\n") for p in parts) + "\n",
    )
