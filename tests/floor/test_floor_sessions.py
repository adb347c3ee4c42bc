"""Signed sessions on the floor service (accounts/session.py): a login outlives a restart, and
still ends at logout (kept in `floor_sessions_ended`, migration 13), after its time-out, and
when the account changes.

Real parts: a real PostgreSQL (tests/floor/conftest.py), the floor users in it, the session
key in a 0600 file; each "restart" is a new app with its own pool and nothing else shared,
and one test restarts a real `dealer-assist floor serve` process.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import psycopg
import pytest
from fastapi.testclient import TestClient

from dealer_assist.accounts.auth import SESSION_COOKIE
from dealer_assist.accounts.session import SignedSessions, key_file
from dealer_assist.commands.floor import ENV_SESSION_KEY
from dealer_assist.commands.floor_dsn import ENV_DSN
from dealer_assist.floor.web.app import create_floor_app
from tests.floor.conftest import FLOOR_PASSWORD
from tests.floor.pit_client import csrf_of, login
from tests.floor.test_floor_dsn import split_password


@contextmanager
def floor_service(service: str, key: Path) -> Iterator[TestClient]:
    """One run of the floor service, its key read from the file."""
    app = create_floor_app(service, session_key=key_file(key), fold_wait=5)
    with TestClient(app, follow_redirects=False) as client:
        yield client


def signed_in(client: TestClient, name: str) -> str:
    client.cookies.clear()
    assert login(client, name, FLOOR_PASSWORD).status_code == 303
    token = client.cookies.get(SESSION_COOKIE)
    assert token
    return token


def visit(client: TestClient, token: str, path: str = "/pit") -> httpx2.Response:
    client.cookies.clear()
    client.cookies.set(SESSION_COOKIE, token, domain="testserver.local")
    return client.get(path)


def test_a_floor_login_outlives_a_restart_and_ends_at_logout_for_good(service: str,
                                                                      tmp_path: Path) -> None:
    key = tmp_path / "floor.session.key"
    with floor_service(service, key) as first:
        token = signed_in(first, "sup")
        page = visit(first, token)
        assert page.status_code == 200
        csrf = csrf_of(page.text)
    with floor_service(service, key) as second:
        page = visit(second, token)
        assert page.status_code == 200 and csrf_of(page.text) == csrf
        out = second.post("/logout", data={"csrf": csrf})
        assert out.status_code == 303 and out.headers["location"] == "/login"
        assert visit(second, token).status_code == 303
    with floor_service(service, key) as third:
        refused = visit(third, token)
        assert refused.status_code == 303 and refused.headers["location"] == "/login?next=/pit"
        assert visit(third, signed_in(third, "sup")).status_code == 200  # a new one works


def test_a_floor_cookie_changed_or_from_another_key_is_no_session(service: str,
                                                                  tmp_path: Path) -> None:
    with floor_service(service, tmp_path / "one.key") as client:
        token = signed_in(client, "sur")
        assert visit(client, token).status_code == 200
        version, payload, mac = token.split(".")
        for forged in (f"{version}.{payload}.{mac[::-1]}", f"{version}.{payload[:-4]}.{mac}",
                       "v1.." + mac, "nonsense", "v1." + "A" * 3000 + "." + mac):
            assert visit(client, forged).status_code == 303, forged
    with floor_service(service, tmp_path / "two.key") as other:
        assert visit(other, token).status_code == 303


def test_a_floor_session_ends_after_its_time_out_and_when_the_account_changes(
        floor, service: str, tmp_path: Path) -> None:
    now = [1_800_000_000.0]
    app = create_floor_app(service, session_key=key_file(tmp_path / "k"), fold_wait=5)
    app.state.sessions = SignedSessions(key_file(tmp_path / "k"), app.state.accounts, 600.0,
                                        clock=lambda: now[0])
    with TestClient(app, follow_redirects=False) as client:
        sup = signed_in(client, "sup")
        now[0] += 590
        assert visit(client, sup).status_code == 200  # in time, and moved on
        renewed = client.cookies.get(SESSION_COOKIE)
        assert renewed and renewed != sup
        now[0] += 590
        assert visit(client, sup).status_code == 303  # the first cookie: timed out
        assert visit(client, renewed).status_code == 200
        now[0] += 601
        assert visit(client, client.cookies.get(SESSION_COOKIE) or "").status_code == 303
        fresh, reg = signed_in(client, "sup"), signed_in(client, "reg")
        assert visit(client, fresh).status_code == 200
        assert visit(client, reg, "/regulator").status_code == 200
        with floor.owner.transaction():
            floor.owner.execute("UPDATE floor_users SET role = 'surveillance' WHERE name = 'sup'")
            floor.owner.execute("UPDATE floor_users SET disabled = true WHERE name = 'reg'")
        assert visit(client, fresh).status_code == 303  # a new role: log in again
        assert visit(client, reg, "/regulator").status_code == 303


def test_the_floor_service_may_keep_and_end_sessions_and_nothing_more(floor,
                                                                      service: str) -> None:
    with psycopg.connect(service) as conn:
        rights = conn.execute(
            "SELECT has_table_privilege('floor_sessions_ended', 'SELECT, INSERT, DELETE'), "
            "has_table_privilege('floor_sessions_ended', 'UPDATE'), "
            "has_table_privilege('floor_sessions_ended', 'TRUNCATE')").fetchone()
    assert rights == (True, False, False)
    reader = floor.add_reader("floor_reader")
    with psycopg.connect(reader) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("SELECT * FROM floor_sessions_ended")


@pytest.mark.slow
def test_a_real_restart_of_floor_serve_keeps_the_login(service: str, tmp_path: Path) -> None:
    dsn, passfile = split_password(service, tmp_path / "service.pgpass")
    key = tmp_path / "floor-session.key"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PGPASSFILE": str(passfile),
           ENV_SESSION_KEY: str(key)}
    for name in ("PGPASSWORD", ENV_DSN, "NOTIFY_SOCKET"):
        env.pop(name, None)

    @contextmanager
    def serving() -> Iterator[httpx2.Client]:
        proc = subprocess.Popen([sys.executable, "-m", "dealer_assist.cli", "floor", "serve",
                                 "--port", "0", "--dsn", dsn], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.startswith("floor service: http://127.0.0.1:"), line
            base = line.split(": ", 1)[1].strip().removesuffix("pit")
            with httpx2.Client(base_url=base, timeout=30, follow_redirects=False) as client:
                yield client
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=20)
            assert "Traceback" not in err

    with serving() as first:
        assert login(first, "sup", FLOOR_PASSWORD).status_code == 303
        token = first.cookies.get(SESSION_COOKIE)
        assert token and first.get("/pit").status_code == 200
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    time.sleep(0.1)
    with serving() as second:
        second.cookies.set(SESSION_COOKIE, token)
        assert second.get("/pit").status_code == 200
    key.chmod(0o644)
    proc = subprocess.run([sys.executable, "-m", "dealer_assist.cli", "floor", "serve",
                           "--port", "0", "--dsn", dsn], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 2 and "may be read by others" in proc.stderr
    assert "Traceback" not in proc.stderr
