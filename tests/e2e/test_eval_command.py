"""`alfred eval` as a person runs it: one command, the suite on its own stack, a report."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.e2e.live_stack import ROOT


def alfred_eval(tmp_path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """``alfred eval`` with ``args``, as a person runs it, its data under ``tmp_path``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ALFRED_", "OPENAI_"))}
    env.update(PYTHONPATH=str(ROOT), ALFRED_DATA_DIR=str(tmp_path / "data"))
    return subprocess.run(
        [sys.executable, "-m", "api.cli", "eval", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_alfred_eval_replays_recordings_and_writes_its_report(tmp_path):
    out = tmp_path / "run.json"
    only = ["--only", "quick_fridge", "bought_items"]
    done = alfred_eval(tmp_path, "--replay", "reference", *only, "--out", str(out), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "**2 of 2 scenarios passed** (100 %)" in done.stdout
    run = json.loads(out.read_text())
    assert run["label"] == "reference" and run["replayed"] is True
    assert [s["id"] for s in run["scenarios"]] == ["bought_items", "quick_fridge"]
    assert all(s["passed"] for s in run["scenarios"])


def test_alfred_eval_without_a_model_says_what_to_give(tmp_path):
    done = alfred_eval(tmp_path)
    assert done.returncode == 2
    assert "give --base-url (and --api-key), or set OPENAI_API_KEY" in done.stderr


def test_alfred_eval_keeps_the_probes_out_of_the_docs_report(tmp_path):
    done = alfred_eval(tmp_path, "--probes", "--docs", "--replay", "reference")
    assert done.returncode == 2
    assert "the probes have no report in docs/EVALS.md" in done.stderr


def test_alfred_eval_replays_a_probe_from_its_recording(tmp_path):
    """The probes run like the scenarios: this one's live run (the 1.5B local model) took
    the milk out of the inventory, and its recording does the same."""
    out = tmp_path / "probe.json"
    label = "qwen2-5-coder-1-5b-instruct-local-cpu-t-0"
    done = alfred_eval(
        tmp_path,
        "--probes",
        "--replay",
        label,
        "--only",
        "p_milk_done",
        "--out",
        str(out),
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    run = json.loads(out.read_text())
    assert [(s["id"], s["passed"]) for s in run["scenarios"]] == [("p_milk_done", True)]


def test_a_scenario_never_recorded_is_reported_not_a_traceback(tmp_path):
    """A label's recordings may not cover every scenario (the reference recorded no
    probe): each one missing is reported as not recorded, and the run goes on to the
    next. It had stopped at the first, with a traceback and no report."""
    out = tmp_path / "probes.json"
    only = ["--only", "p_milk_done", "p_candles"]
    done = alfred_eval(
        tmp_path, "--probes", "--replay", "reference", *only, "--out", str(out), timeout=300
    )
    assert "Traceback" not in done.stderr, done.stderr
    run = json.loads(out.read_text())
    assert [(s["id"], s["passed"]) for s in run["scenarios"]] == [
        ("p_candles", False),
        ("p_milk_done", False),
    ]
    assert all(s["error"].startswith("not recorded: no cassette") for s in run["scenarios"])
    assert "**p_candles**: not recorded: no cassette for scenario 'p_candles'" in done.stdout
