"""``alfred eval``: run the suite against a model, record it, replay it, compare two runs.

alfred eval --base-url http://127.0.0.1:9100/v1 --model local --mini-model local
alfred eval --record --label "gpt-4.1 / gpt-4.1-mini"     # keep the answers as cassettes
alfred eval --replay reference                             # no model: a recording
alfred eval compare evals/results/a.json evals/results/b.json
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from pydantic import SecretStr

from activities.llm.openai_provider import OpenAIProvider
from activities.llm.provider import LlmProvider
from api.devserver import dev_server
from domain.db.server import prepare_database
from domain.settings import Settings
from evals.cassette import CASSETTES_DIR, Cassette, Replay
from evals.nodes import NodeResult
from evals.report import RESULTS_DIR, Run, compare, markdown
from evals.runner import ScenarioResult
from evals.scenario import PROBES_DIR, SCENARIOS_DIR, Scenario, load_all

DOCS = Path(__file__).resolve().parent.parent / "docs" / "EVALS.md"


def slug(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-") or "run"


def cmd_eval(settings: Settings, args: argparse.Namespace) -> int:
    if args.what:
        if args.what[0] != "compare" or len(args.what) != 3:
            print("alfred eval: use `alfred eval compare A.json B.json`", file=sys.stderr)
            return 2
        print(compare(Run.load(Path(args.what[1])), Run.load(Path(args.what[2]))), end="")
        return 0
    if args.probes and args.docs:
        print("alfred eval: the probes have no report in docs/EVALS.md", file=sys.stderr)
        return 2
    settings = _model_settings(settings, args)
    scenarios = load_all(PROBES_DIR if args.probes else SCENARIOS_DIR, only=args.only)
    provider = None
    if args.replay:
        label, endpoint = args.label or args.replay, f"cassettes {args.replay}"
    else:
        if settings.openai_api_key is None and settings.openai_base_url is None:
            print(
                "alfred eval: give --base-url (and --api-key), or set OPENAI_API_KEY",
                file=sys.stderr,
            )
            return 2
        if settings.openai_api_key is None:
            settings = settings.model_copy(update={"openai_api_key": SecretStr("unused")})
        provider = OpenAIProvider.from_settings(settings)
        label = args.label or f"{settings.openai_model} / {settings.openai_mini_model}"
        endpoint = settings.openai_base_url or "https://api.openai.com/v1"
    record_dir = CASSETTES_DIR / slug(label) if args.record else None
    if args.node:
        if args.record:
            print("alfred eval: --node runs are not recorded", file=sys.stderr)
            return 2
        return _node_run(settings, args, scenarios, label, provider)

    def progress(result: ScenarioResult) -> None:
        verdict = "pass" if result.passed else ("ERROR" if result.error else "FAIL")
        print(f"  {result.id}: {verdict} ({result.seconds:.0f} s)", flush=True)

    print(f"alfred eval: {len(scenarios)} scenarios, {label}", flush=True)
    with _stack(settings) as (settings, app_url):
        from evals.live import run_suite

        run = asyncio.run(
            run_suite(
                settings,
                app_url,
                scenarios,
                label=label,
                endpoint=endpoint,
                provider=provider,
                replay_dir=CASSETTES_DIR / slug(args.replay) if args.replay else None,
                record_dir=record_dir,
                turn_timeout=args.turn_timeout,
                prices=settings.eval_prices,
                progress=progress,
            )
        )
    out = args.out or RESULTS_DIR / f"{slug(label)}{'-probes' if args.probes else ''}.json"
    run.save(out)
    report = markdown(run)
    print()
    print(report, end="")
    print(
        f"\nalfred eval: results in {out}" + (f", cassettes in {record_dir}" if record_dir else "")
    )
    if args.docs:
        write_docs(DOCS, run, report)
        print(f"alfred eval: {DOCS} updated")
    return 0 if run.passed == len(run.scenarios) else 1


@contextmanager
def _stack(settings: Settings) -> Iterator[tuple[Settings, str]]:
    """The eval's PostgreSQL and Temporal: the settings that reach them, and the app's
    database URL."""
    with ExitStack() as parts:
        eval_settings = settings.model_copy(
            update={"data_dir": settings.data_dir / "eval", "database_name": "alfred_eval"}
        )
        database = prepare_database(eval_settings)
        parts.callback(database.close)
        if settings.temporal_address is None:
            address = parts.enter_context(dev_server(host=settings.temporal_host))
            settings = settings.model_copy(update={"temporal_address": address})
        yield settings, database.app_url


def _node_run(
    settings: Settings,
    args: argparse.Namespace,
    scenarios: list[Scenario],
    label: str,
    provider: OpenAIProvider | None,
) -> int:
    """``--node``: one node against the model (or a recording), on the first turns."""
    from evals.live import run_node_suite

    def model_for(scenario: Scenario) -> LlmProvider | None:
        if provider is not None:
            return provider
        try:
            return Replay(Cassette.load(CASSETTES_DIR / slug(args.replay), scenario.id))
        except FileNotFoundError:
            print(f"  {scenario.id}: not recorded", flush=True)
            return None

    def progress(result: NodeResult) -> None:
        print(f"  {result.id}: {result.verdict} ({result.seconds:.0f} s)", flush=True)

    print(f"alfred eval: {args.node} alone, {label}", flush=True)
    with _stack(settings) as (settings, app_url):
        run = asyncio.run(
            run_node_suite(
                settings,
                app_url,
                scenarios,
                node=args.node,
                model_for=model_for,
                label=label,
                turn_timeout=args.turn_timeout,
                progress=progress,
            )
        )
    out = args.out or RESULTS_DIR / f"{slug(label)}-{args.node}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(run.model_dump_json(indent=1))
    print()
    print(run.markdown(), end="")
    print(f"\nalfred eval: results in {out}")
    return 0


def _model_settings(settings: Settings, args: argparse.Namespace) -> Settings:
    update: dict = {}
    for flag, field in (
        ("base_url", "openai_base_url"),
        ("api_key", "openai_api_key"),
        ("model", "openai_model"),
        ("mini_model", "openai_mini_model"),
        ("response_format", "openai_response_format"),
        ("timeout", "llm_timeout_seconds"),
        ("temperature", "llm_temperature"),
        ("context_tokens", "llm_context_tokens"),
    ):
        value = getattr(args, flag)
        if value is not None:
            update[field] = value
    if args.node_model:
        nodes = dict(settings.openai_node_models)
        for pair in args.node_model:
            node, _, model = pair.partition("=")
            if not model:
                raise SystemExit(f"alfred eval: --node-model takes NODE=MODEL, got {pair!r}")
            nodes[node] = model
        update["openai_node_models"] = nodes
    if "openai_api_key" in update:
        update["openai_api_key"] = SecretStr(update["openai_api_key"])
    return settings.model_copy(update=update)


START = "<!-- eval:{slug} -->"
END = "<!-- /eval:{slug} -->"


def write_docs(path: Path, run: Run, report: str) -> None:
    """Put ``report`` in ``path`` between the run's markers (replacing an older report of
    the same label), under "Latest results"."""
    text = path.read_text() if path.exists() else "# Evaluations\n\n## Latest results\n"
    start, end = START.format(slug=slug(run.label)), END.format(slug=slug(run.label))
    block = f"{start}\n{report.rstrip()}\n{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text)
