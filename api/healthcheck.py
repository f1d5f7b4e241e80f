"""A container healthcheck without curl: ``python -m api.healthcheck URL`` exits 0 when the URL
answers 2xx within five seconds, 1 otherwise (compose checks the API's ``/readyz`` and the
worker's ``/metrics``)."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request


def healthy(url: str, timeout: float = 5.0) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - a local URL
            return 200 <= response.status < 300
    except (urllib.error.URLError, OSError):
        return False


if __name__ == "__main__":
    sys.exit(0 if len(sys.argv) == 2 and healthy(sys.argv[1]) else 1)
