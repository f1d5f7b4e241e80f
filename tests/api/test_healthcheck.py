"""``python -m api.healthcheck URL``, the containers' healthcheck: 0 for a 2xx, 1 otherwise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from api.devserver import free_port
from api.healthcheck import healthy

ROOT = Path(__file__).resolve().parents[2]


def test_nothing_listening_is_unhealthy():
    assert not healthy(f"http://127.0.0.1:{free_port()}/readyz", timeout=1)


def test_the_command_exits_1_when_unhealthy_and_on_bad_use():
    url = f"http://127.0.0.1:{free_port()}/readyz"
    for args in ([url], []):
        done = subprocess.run([sys.executable, "-m", "api.healthcheck", *args], cwd=ROOT)
        assert done.returncode == 1
