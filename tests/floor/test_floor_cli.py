"""`dealer-assist floor add-user` and `floor serve`: the commands the floor demo runs. `serve`
is started as a unit starts it: the DSN without its password, which is in a password file
(PGPASSFILE)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import psycopg
import pytest

from dealer_assist.cli import main
from dealer_assist.commands.floor_dsn import ENV_DSN
from tests.floor.conftest import FLOOR_PASSWORD
from tests.floor.pit_client import login as log_in
from tests.floor.test_floor_dsn import split_password


def test_add_user_reads_the_password_from_stdin_and_refuses_a_second(floor, capsys,
                                                                     monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("a long password\n"))
    assert main(["floor", "add-user", "ana", "--role", "surveillance", "--password-stdin",
                 "--dsn", floor.dsn()]) == 0
    assert "floor user ana (surveillance) added" in capsys.readouterr().out
    row = floor.owner.execute("SELECT role, password_hash FROM floor_users WHERE name = 'ana'")
    role, digest = row.fetchone()
    assert role == "surveillance" and digest.startswith("$argon2") and "long" not in digest
    monkeypatch.setattr(sys, "stdin", io.StringIO("a long password\n"))
    assert main(["floor", "add-user", "ana", "--role", "supervisor", "--password-stdin",
                 "--dsn", floor.dsn()]) == 2
    assert "exists already" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "stdin", "says"), [
    (["--role", "supervisor"], "short\n", "at least 8"),
    (["--role", "dealer"], "a long password\n", "invalid choice"),
    (["--role", "supervisor"], "", "no password on standard input"),
])
def test_add_user_says_what_is_wrong(floor, capsys, monkeypatch, argv, stdin, says):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        status = main(["floor", "add-user", "bo", *argv, "--password-stdin", "--dsn",
                       floor.dsn()])
    except SystemExit as e:  # argparse's own refusal
        status = int(e.code or 0)
    assert status == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_serve_refuses_a_store_without_the_schema(cluster, capsys, monkeypatch):
    dbname = "floor_unmigrated"
    with psycopg.connect(cluster.dsn(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {dbname}")
        conn.execute(f"CREATE DATABASE {dbname}")
    monkeypatch.setenv(ENV_DSN, cluster.dsn(dbname=dbname))
    assert main(["floor", "serve", "--port", "0"]) == 2
    assert "floor migrate" in capsys.readouterr().err


@pytest.mark.parametrize(("login", "says"), [
    ("owner", "the login postgres is a superuser and may create roles and bypasses row-level "
              "security and may write the events: the floor service must not"),
    ("table", "may write the events: the floor service must not"),
])
def test_serve_refuses_a_login_with_more_rights_than_it_needs(floor, capsys, monkeypatch,
                                                              login, says):
    """The floor service faces the web: not as the owner, a superuser, or a table's role."""
    monkeypatch.setenv(ENV_DSN, floor.dsn() if login == "owner" else floor.add_table()[1])
    assert main(["floor", "serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert says in err and "floor add-reader NAME --role service" in err
    assert "Traceback" not in err


def test_serve_starts_answers_and_stops_on_sigterm(floor, service, tmp_path):
    """Under systemd's notify protocol (a real socket): READY=1, WATCHDOG=1 while the server
    answers, STOPPING=1 on SIGTERM, exit 0. Its log lines (dealer_assist/logs.py) carry the
    time, the level and the logger, logins (info) included."""
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    notify.settimeout(15)
    dsn, passfile = split_password(service, tmp_path / "service.pgpass")
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NOTIFY_SOCKET": str(tmp_path / "notify"),
           "WATCHDOG_USEC": "400000", "PGPASSFILE": str(passfile)}
    for name in ("WATCHDOG_PID", "PGPASSWORD", ENV_DSN):
        env.pop(name, None)
    proc = subprocess.Popen([sys.executable, "-m", "dealer_assist.cli", "floor", "serve",
                             "--port", "0", "--dsn", dsn], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("floor service: http://127.0.0.1:"), line
        base = line.split(": ", 1)[1].strip().removesuffix("pit")
        deadline = time.monotonic() + 15
        while not httpx2.get(base + "healthz").json()["listening"]:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        login = httpx2.get(base + "pit", follow_redirects=False)
        assert login.status_code == 303 and login.headers["location"] == "/login?next=/pit"
        with httpx2.Client(base_url=base) as client:
            assert log_in(client, "sup", "not the password").status_code == 401
            assert log_in(client, "sup", FLOOR_PASSWORD).status_code == 303
        said = [notify.recv(4096).decode() for _ in range(3)]
        assert said[0].startswith("READY=1") and said[1:] == ["WATCHDOG=1", "WATCHDOG=1"]
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "floor service stopped" in err and "Traceback" not in err
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00"
    assert re.search(rf"^{stamp} WARNING dealer_assist\.login: floor login failed: name='sup'",
                     err, re.M), err
    assert re.search(rf"^{stamp} INFO dealer_assist\.login: floor login: name='sup' "
                     "role=supervisor", err, re.M), err
    rest = []
    notify.settimeout(0.5)
    with contextlib.suppress(TimeoutError):
        while True:
            rest.append(notify.recv(4096).decode())
    assert rest[-1] == "STOPPING=1"
    notify.close()


def test_the_floor_unit_is_notify_hardened_and_scored():
    unit = (Path(__file__).resolve().parents[2] / "deploy/systemd/dealer-assist-floor.service")
    text = unit.read_text(encoding="utf-8")
    for line in ("Type=notify", "WatchdogSec=30s", "DynamicUser=yes", "ProtectSystem=strict",
                 "NoNewPrivileges=yes", "CapabilityBoundingSet=",
                 "ExecStart=/opt/dealer-assist/.venv/bin/dealer-assist floor serve"):
        assert line in text
    done = subprocess.run(["bash", str(unit.parents[1] / "check.sh"), "security"],
                          capture_output=True, text=True, timeout=120)
    if "SKIPPED" in done.stdout:
        pytest.skip(done.stdout.strip())
    assert done.returncode == 0, done.stdout + done.stderr
    score = re.search(r"exposure dealer-assist-floor.service: ([0-9.]+)", done.stdout)
    assert score and float(score.group(1)) <= 2.0
