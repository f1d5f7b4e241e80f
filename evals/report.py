"""A run's report: pass rate, calls, tokens, latency, repairs and cost per scenario; the
paths and nodes no scenario reached; and two runs compared scenario by scenario."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field

from domain.ledger import price_of
from evals.runner import ScenarioResult
from evals.scenario import NODES, PATHS

RESULTS_DIR = Path(__file__).parent / "results"


class Run(BaseModel):
    label: str
    """Names the model(s): ``gpt-4.1 / gpt-4.1-mini``, ``qwen2.5-coder-1.5b (local)``."""
    endpoint: str = ""
    started_at: str = ""
    replayed: bool = False
    prices: dict[str, tuple[float, float]] = Field(default_factory=dict)
    """Model -> USD per million (prompt, completion) tokens."""
    scenarios: list[ScenarioResult] = Field(default_factory=list)

    # --- figures ---------------------------------------------------------------------------

    @property
    def passed(self) -> int:
        return sum(1 for s in self.scenarios if s.passed)

    def cost(self, scenario: ScenarioResult) -> float | None:
        """USD at the run's price table (a dated model name at its model's price, as the
        turn ledger charges it); None when a model used has no price."""
        total = 0.0
        for call in scenario.calls:
            if not call.prompt_tokens and not call.completion_tokens:
                continue
            price = price_of(call.model, self.prices)
            if price is None:
                return None
            total += price.cost(call.prompt_tokens, call.completion_tokens)
        return total

    def unreached(self) -> tuple[list[str], list[str]]:
        """(paths, nodes) of the turn that no scenario of this run reached."""
        paths = set().union(*(s.reached for s in self.scenarios)) if self.scenarios else set()
        nodes = set().union(*(s.nodes for s in self.scenarios)) if self.scenarios else set()
        return [p for p in PATHS if p not in paths], [n for n in NODES if n not in nodes]

    # --- files -----------------------------------------------------------------------------

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.model_dump(mode="json"), indent=1, ensure_ascii=False))
        return path

    @classmethod
    def load(cls, path: Path) -> Run:
        return cls.model_validate_json(path.read_text())


def markdown(run: Run) -> str:
    """The report as Markdown: a summary, a table of scenarios, what failed and why."""
    total = len(run.scenarios)
    calls = [c for s in run.scenarios for c in s.calls]
    repairs = sum(1 for c in calls if c.repair)
    prompt = sum(c.prompt_tokens for c in calls)
    completion = sum(c.completion_tokens for c in calls)
    costs = [run.cost(s) for s in run.scenarios]
    cost = "n/a" if any(c is None for c in costs) else f"${sum(c or 0 for c in costs):.4f}"
    seconds = sum(s.seconds for s in run.scenarios)
    lines = [
        f"### {run.label}" + (" (replayed)" if run.replayed else ""),
        "",
        f"Endpoint: {run.endpoint or '-'}; started {run.started_at or '-'}.",
        "",
        f"**{run.passed} of {total} scenarios passed** ({_percent(run.passed, total)}); "
        f"{len(calls)} model calls ({repairs} repairs), {prompt:,} prompt and {completion:,} "
        f"completion tokens, {seconds:,.0f} s, cost {cost}.",
        "",
        "| scenario | result | calls | repairs | tokens in / out | seconds | cost |",
        "|---|---|---|---|---|---|---|",
    ]
    for scenario, price in zip(run.scenarios, costs, strict=True):
        verdict = "pass" if scenario.passed else ("error" if scenario.error else "fail")
        lines.append(
            f"| {scenario.id} | {verdict} | {len(scenario.calls)} "
            f"| {sum(1 for c in scenario.calls if c.repair)} "
            f"| {sum(c.prompt_tokens for c in scenario.calls):,} / "
            f"{sum(c.completion_tokens for c in scenario.calls):,} "
            f"| {scenario.seconds:,.1f} | {'n/a' if price is None else f'${price:.4f}'} |"
        )
    failing = [s for s in run.scenarios if not s.passed]
    if failing:
        lines += ["", "Why scenarios failed:", ""]
        for scenario in failing:
            lines.append(f"- **{scenario.id}**: {_why(scenario)}")
    paths, nodes = run.unreached()
    lines += [
        "",
        f"Paths no scenario reached: {', '.join(paths) or 'none'}.",
        f"Nodes no scenario reached: {', '.join(nodes) or 'none'}.",
    ]
    return "\n".join(lines) + "\n"


def _why(scenario: ScenarioResult) -> str:
    if scenario.error:
        return scenario.error
    reasons = []
    for n, turn in enumerate(scenario.turns, 1):
        for check in turn.checks:
            if not check.passed:
                reasons.append(f"turn {n}: {check.name} ({check.detail})")
    return "; ".join(reasons[:4]) + (f"; and {len(reasons) - 4} more" if len(reasons) > 4 else "")


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "-"


def compare(before: Run, after: Run) -> str:
    """Two runs scenario by scenario: what the change fixed, what it broke."""
    old = {s.id: s for s in before.scenarios}
    new = {s.id: s for s in after.scenarios}
    fixed = sorted(i for i in new if i in old and new[i].passed and not old[i].passed)
    broke = sorted(i for i in new if i in old and old[i].passed and not new[i].passed)
    lines = [
        f"{before.label}: {before.passed}/{len(before.scenarios)} passed; "
        f"{after.label}: {after.passed}/{len(after.scenarios)} passed.",
        "",
        "| scenario | before | after |",
        "|---|---|---|",
    ]
    for key in sorted(set(old) | set(new)):
        lines.append(f"| {key} | {_verdict(old.get(key))} | {_verdict(new.get(key))} |")
    lines += ["", f"Fixed: {', '.join(fixed) or 'none'}.", f"Broke: {', '.join(broke) or 'none'}."]
    return "\n".join(lines) + "\n"


def _verdict(scenario: ScenarioResult | None) -> str:
    if scenario is None:
        return "-"
    return "pass" if scenario.passed else ("error" if scenario.error else "fail")
