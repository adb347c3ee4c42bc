"""Readiness and the watchdog: `dealer-assist run` talks to a real notify socket as systemd's."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer_assist.systemd_notify import Notifier, table_problem
from tests.web.test_run import REPO, write_config


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[socket.socket]:
    """A datagram socket in the role of systemd's NOTIFY_SOCKET."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(1)
    yield sock
    sock.close()


def messages_until(sock: socket.socket, wanted: str,
                   service: subprocess.Popen[str] | None = None, limit: float = 60) -> list[str]:
    """The notifications received up to and including the first that holds `wanted`."""
    got: list[str] = []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            got.append(sock.recv(4096).decode())
        except TimeoutError:
            if service is not None and service.poll() is not None and service.stderr:
                raise AssertionError(service.stderr.read()) from None
            continue
        if wanted in got[-1].splitlines():
            return got
    raise AssertionError(f"no {wanted} in {got}")


@pytest.mark.slow
def test_the_service_says_ready_feeds_the_watchdog_while_well_and_says_stopping(
        tmp_path: Path, notify_socket: socket.socket) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NOTIFY_SOCKET": str(tmp_path / "notify"),
           "WATCHDOG_USEC": "400000"}  # a feed every 0.2 s
    service = subprocess.Popen([sys.executable, "-m", "dealer_assist.cli", "run", "--config",
                                str(write_config(tmp_path)), "--port", "0"], cwd=REPO, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = messages_until(notify_socket, "READY=1", service)
        assert len(first) == 1 and "STATUS=table T5 at http://127.0.0.1:" in first[0]
        assert service.stdout is not None
        assert service.stdout.readline().startswith("table display:")  # it listens
        for _ in range(3):  # one every 0.2 s, nothing else between
            assert messages_until(notify_socket, "WATCHDOG=1", service) == ["WATCHDOG=1"]
        (tmp_path / "var" / "T5.events.db").unlink()  # the log lost: the service is not well
        time.sleep(0.5)  # a feed already under way may still arrive
        deadline = time.monotonic() + 5
        while True:
            try:
                notify_socket.recv(4096)
            except TimeoutError:  # a whole second with no feed
                break
            assert time.monotonic() < deadline, "the watchdog is still fed without a log"
        service.send_signal(signal.SIGTERM)  # systemctl stop
        assert messages_until(notify_socket, "STOPPING=1", service) == ["STOPPING=1"]
        assert service.wait(15) == 0
    finally:
        if service.poll() is None:
            service.kill()
            service.wait()
    err = service.stderr.read() if service.stderr else ""
    assert "stopped; the event log holds" in err and "Traceback" not in err
    notify_socket.settimeout(0.5)
    with pytest.raises(TimeoutError):  # nothing after STOPPING=1
        notify_socket.recv(4096)


def test_the_watchdog_is_fed_only_while_the_service_is_healthy(
        tmp_path: Path, notify_socket: socket.socket) -> None:
    problems: list[str | None] = [None, None, "the web server does not answer"]
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "100000"})
    notifier.keep_alive(lambda: problems.pop(0) if problems else "still down")
    assert [notify_socket.recv(64).decode() for _ in range(2)] == ["WATCHDOG=1"] * 2
    time.sleep(0.3)  # unhealthy: no feed
    notifier.stopping()
    assert notify_socket.recv(64).decode() == "STOPPING=1"


def test_an_abstract_socket_name_is_used_as_such(tmp_path: Path) -> None:
    name = f"dealer-assist-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(5)
        assert Notifier({"NOTIFY_SOCKET": "@" + name}).send("READY=1")
        assert sock.recv(64) == b"READY=1"


def test_without_systemd_nothing_is_sent_and_no_thread_starts() -> None:
    notifier = Notifier({"WATCHDOG_USEC": "100000"})
    assert not notifier.send("READY=1")
    notifier.keep_alive(lambda: None)
    assert notifier._thread is None
    notifier.stopping()  # no error


@pytest.mark.parametrize("environ", [
    {"WATCHDOG_USEC": "0"}, {"WATCHDOG_USEC": "soon"}, {"WATCHDOG_USEC": "100000",
                                                       "WATCHDOG_PID": "1"}])
def test_a_watchdog_for_no_one_or_another_process_is_not_fed(environ: dict[str, str]) -> None:
    assert Notifier({"NOTIFY_SOCKET": "/run/none", **environ}).watchdog_every is None


def test_the_health_check_names_a_server_that_does_not_answer_and_a_lost_log(
        tmp_path: Path) -> None:
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    problem = table_problem(f"http://127.0.0.1:{port}/", tmp_path / "T1.events.db", timeout=1)()
    assert problem is not None and "does not answer" in problem
