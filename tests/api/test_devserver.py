"""The embedded stack's dev server: ports picked at once are all different and all free;
without the embedded extra it says what to install."""

from __future__ import annotations

import socket
import sys

import pytest

from api.devserver import dev_server, free_ports


def test_ports_picked_together_are_distinct_and_bindable():
    for _ in range(50):
        ports = free_ports(3)
        assert len(set(ports)) == 3
        held = [socket.socket() for _ in ports]
        try:
            for s, port in zip(held, ports, strict=True):
                s.bind(("127.0.0.1", port))  # still free: nothing else was handed them
        finally:
            for s in held:
                s.close()


def test_without_the_embedded_extra_the_dev_server_says_what_to_install(monkeypatch, tmp_path):
    """The image installs no Temporal CLI; asking it for the embedded stack is a clear error."""
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bin" / "python"))
    with pytest.raises(RuntimeError, match=r"'embedded' extra .*ALFRED_TEMPORAL_ADDRESS"):
        with dev_server():
            pass
