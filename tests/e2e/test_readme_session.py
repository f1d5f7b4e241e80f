"""The README's curl session is a test: its lines, as written, sent back to back to `make
run`'s stack with the offline demo model, twenty times in a row."""

from __future__ import annotations

import json
import re
import subprocess

from tests.e2e.live_stack import ROOT, Stack

RUNS = 20


def readme_session() -> list[str]:
    """The five lines of the README's curl session, as written."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"over HTTP — five lines:\n\n```sh\n(.*?)```", text, re.DOTALL)
    assert block is not None, "the README's curl session is gone"
    lines = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(lines) == 5
    return lines


def run(script: str, stack: Stack) -> str:
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=stack.workdir,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_readme_curl_session_works_as_written_twenty_times_back_to_back(tmp_path):
    stack = Stack(tmp_path)  # the default model: the offline demo, as `make run` without a key
    stack.start()
    try:
        lines = [
            line.replace("localhost:8000", f"127.0.0.1:{stack.ports['api']}")
            for line in readme_session()
        ]
        # Line 5 is typed in the same shell, after copying the proposal's id from line 4.
        first, confirm = "\n".join(lines[:4]), "\n".join([lines[0], lines[4]])
        for attempt in range(RUNS):
            # Lines 1 to 4 in one shell, back to back; each curl prints one JSON body.
            added, planned = _bodies(run(first + "\n", stack))
            assert added.get("status") in ("replied", "completed"), (attempt, added)
            assert "milk" in added["response"].lower()
            assert planned.get("status") == "awaiting_input", (attempt, planned)
            assert planned["pending"]["kind"] == "proposal"
            confirmed = json.loads(run(confirm.replace("<turn id>", planned["id"]), stack))
            assert confirmed.get("accepted_input", {}).get("action") == "confirm", (
                attempt,
                confirmed,
            )
    finally:
        assert stack.stop() == 0


def _bodies(out: str) -> tuple[dict, dict]:
    """The two turn bodies lines 3 and 4 print (one JSON object each, no newline between)."""
    decoder = json.JSONDecoder()
    found, at = [], 0
    while at < len(out):
        body, end = decoder.raw_decode(out, at)
        found.append(body)
        at = end
        while at < len(out) and out[at].isspace():
            at += 1
    assert len(found) == 2, out
    return found[0], found[1]
