"""Ports for the embedded stack: several picked at once are all different and all free."""

from __future__ import annotations

import socket

from api.devserver import free_ports


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
