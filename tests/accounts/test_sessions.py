"""Signed sessions on the table (accounts/session.py): a login outlives a restart of the service, and
still ends at logout, after its time-out, and when the account's password changes.

Real parts: the users file and the ended-sessions file on disk, the key file made 0600 as
bootstrap makes it; each "restart" builds a new app from the files alone (new stores, a new
key read from its file: nothing shared in memory). One test restarts a real `dealer-assist
run` process (tests/web/test_run.py's config).
"""

from __future__ import annotations

import base64
import json
import signal
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest
from fastapi.testclient import TestClient

from dealer_assist.accounts.auth import SESSION_COOKIE
from dealer_assist.accounts.login import Accounts
from dealer_assist.accounts.session import SessionKeyProblem, SignedSessions, key_file
from dealer_assist.services.live_table import LiveTable
from dealer_assist.signing_keys import ENV_SIGNING_KEY, generate_keys
from dealer_assist.store.sessions import SessionEnds
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from tests.web.conftest import CHEAP, PASSWORD, ROLES, csrf_of, login

TTL = 600.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """A state folder with the users file (sup, dea, reg), as a table keeps it."""
    with UserStore(tmp_path / "users.db", hasher=CHEAP) as users:
        for name, role in ROLES.items():
            users.add(name, role, PASSWORD)
    return tmp_path


@contextmanager
def service(state: Path, table: LiveTable, clock: Clock | None = None,
            key: Path | None = None) -> Iterator[TestClient]:
    """One run of the table's web service, built from the state folder's files alone."""
    users = UserStore(state / "users.db", hasher=CHEAP)
    ends = SessionEnds(state / "T1.sessions.db")
    accounts = Accounts(TableUsers(users, ends))
    sessions = SignedSessions(key_file(key or state / "T1.session.key"), accounts, TTL,
                              clock=clock)
    try:
        with TestClient(create_app(table, accounts, sessions=sessions),
                        follow_redirects=False) as client:
            yield client
    finally:
        ends.close()
        users.close()


def cookie_of(client: TestClient) -> str:
    token = client.cookies.get(SESSION_COOKIE)
    assert token
    return token


def with_cookie(client: TestClient, token: str) -> TestClient:
    client.cookies.clear()
    client.cookies.set(SESSION_COOKIE, token, domain="testserver.local")
    return client


def test_a_login_outlives_a_restart_and_its_form_tokens_still_hold(state: Path,
                                                                   table: LiveTable) -> None:
    with service(state, table) as first:
        assert login(first, "sup").status_code == 303
        token = cookie_of(first)
        page = first.get("/supervisor")
        assert page.status_code == 200
        csrf = csrf_of(page.text)
    with service(state, table) as second:
        again = with_cookie(second, token).get("/supervisor")
        assert again.status_code == 200 and "sup" in again.text
        assert csrf_of(again.text) == csrf  # the same session's CSRF token after the restart
        kept = second.post("/account/language", data={"csrf": csrf, "lang": "th",
                                                       "next": "/supervisor"})
        assert kept.status_code == 303  # a form from before the restart is taken
        assert 'lang="th"' in second.get("/supervisor").text  # the language, at once


def test_a_logout_ends_the_session_for_good_even_after_a_restart(state: Path,
                                                                 table: LiveTable) -> None:
    with service(state, table) as first:
        login(first, "sup")
        token = cookie_of(first)
        csrf = csrf_of(first.get("/supervisor").text)
    with service(state, table) as second:
        out = with_cookie(second, token).post("/logout", data={"csrf": csrf})
        assert out.status_code == 303 and out.headers["location"] == "/login"
        assert with_cookie(second, token).get("/supervisor").status_code == 303
    with service(state, table) as third:
        page = with_cookie(third, token).get("/supervisor")
        assert page.status_code == 303 and page.headers["location"].startswith("/login")
        assert with_cookie(third, token).get("/api/review-queue").status_code == 401
        login(third, "sup")  # a new login is a new session
        assert third.get("/supervisor").status_code == 200


def test_a_session_ends_after_its_time_out_and_each_request_moves_it_on(
        state: Path, table: LiveTable) -> None:
    clock = Clock()
    with service(state, table, clock) as client:
        login(client, "sup")
        clock.now += TTL - 5
        page = client.get("/supervisor")  # in time: its cookie is renewed
        assert page.status_code == 200
        assert SESSION_COOKIE in page.headers["set-cookie"]
        clock.now += TTL - 5  # idle less than the time-out since the last request
        assert client.get("/supervisor").status_code == 200
        stale = cookie_of(client)
        clock.now += TTL + 1
        assert with_cookie(client, stale).get("/supervisor").status_code == 303
    with service(state, table, clock) as restarted:  # nor after a restart
        assert with_cookie(restarted, stale).get("/supervisor").status_code == 303


def _forged(token: str, **change: object) -> str:
    """`token` with its payload's fields changed and its MAC kept."""
    version, payload, mac = token.split(".")
    fields = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    fields.update(change)
    data = base64.urlsafe_b64encode(json.dumps(fields).encode()).rstrip(b"=").decode()
    return f"{version}.{data}.{mac}"


def test_a_cookie_with_another_role_user_or_mac_is_no_session(state: Path,
                                                               table: LiveTable) -> None:
    with service(state, table) as client:
        login(client, "dea")
        token = cookie_of(client)
        assert client.get("/dealer").status_code == 200
        version, payload, mac = token.split(".")
        bad_mac = mac[:-2] + ("AA" if mac[-2:] != "AA" else "BB")
        for forged in (_forged(token, r="supervisor"), _forged(token, u="sup"),
                       f"{version}.{payload}.{bad_mac}", f"v2.{payload}.{mac}", "v1..",
                       "v1.!!!.???", token + ".x", "x" * 5000, "v1.e30." + mac):
            refused = with_cookie(client, forged).get("/supervisor")
            assert refused.status_code == 303, forged
            assert refused.headers["location"].startswith("/login")
    with service(state, table, key=state / "other.key") as other:  # another service's key
        assert with_cookie(other, token).get("/dealer").status_code == 303


def test_a_new_password_or_a_disabled_account_ends_the_sessions(state: Path,
                                                                 table: LiveTable) -> None:
    with service(state, table) as client:
        login(client, "sup")
        sup = cookie_of(client)
        client.cookies.clear()
        login(client, "dea")
        dea = cookie_of(client)
        assert with_cookie(client, sup).get("/supervisor").status_code == 200
        assert with_cookie(client, dea).get("/dealer").status_code == 200
        with UserStore(state / "users.db", hasher=CHEAP) as users:  # `dealer-assist user ...`
            users.set_password("sup", "a brand new password")
            users.disable("dea")
        assert with_cookie(client, sup).get("/supervisor").status_code == 303
        assert with_cookie(client, dea).get("/dealer").status_code == 303


def test_the_key_file_is_made_private_and_a_readable_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "T1.session.key"
    key = key_file(path)
    assert len(key) == 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert key_file(path) == key  # read again at the next start
    path.chmod(0o640)
    with pytest.raises(SessionKeyProblem, match="may be read by others"):
        key_file(path)
    short = tmp_path / "short.key"
    short.write_bytes(b"too short")
    short.chmod(0o600)
    with pytest.raises(SessionKeyProblem, match="holds 9 bytes"):
        key_file(short)


def test_with_a_signing_key_the_session_key_is_derived_and_kept_in_no_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dealer_assist.bootstrap import signed_sessions
    from dealer_assist.config import load_table_config
    from tests.web.test_run import write_config

    config = load_table_config(write_config(tmp_path))
    config.database.parent.mkdir(parents=True)
    keys = generate_keys(tmp_path / "keys")
    monkeypatch.setenv(ENV_SIGNING_KEY, str(keys.private))
    with UserStore(config.users, hasher=CHEAP) as users:
        users.add("sup", "supervisor", PASSWORD)
        closers: list = []
        _, first = signed_sessions(config, users, closers)
        from dealer_assist.accounts.users import Account
        token = first.create(Account("sup", "supervisor")).token
        _, again = signed_sessions(config, users, closers)  # the next start, the same key
        assert again.get(token) is not None
        for close in closers:
            close()
    assert not config.database.with_suffix(".session.key").exists()


@pytest.mark.slow
def test_a_real_restart_of_dealer_assist_run_keeps_the_login_until_logout(
        tmp_path: Path) -> None:
    from tests.web.test_run import start, write_config

    config = write_config(tmp_path)
    (tmp_path / "var").mkdir()
    with UserStore(tmp_path / "var" / "users.db") as users:
        users.add("boss", "supervisor", PASSWORD)

    @contextmanager
    def running() -> Iterator[httpx2.Client]:
        process = start(config, "--host", "127.0.0.1")
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            assert line.startswith("table display:"), line
            with httpx2.Client(base_url=line.split()[-1], timeout=30,
                               follow_redirects=False) as client:
                yield client
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(20)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()

    with running() as first:
        form = first.get("/login")
        assert first.post("/login", data={"name": "boss", "password": PASSWORD,
                                          "csrf": csrf_of(form.text)}).status_code == 303
        token = first.cookies.get(SESSION_COOKIE)
        assert token and first.get("/supervisor").status_code == 200
    assert stat.S_IMODE((tmp_path / "var" / "T5.events.session.key").stat().st_mode) == 0o600
    with running() as second:
        second.cookies.set(SESSION_COOKIE, token)
        page = second.get("/supervisor")
        assert page.status_code == 200 and "boss" in page.text
        assert second.post("/logout", data={"csrf": csrf_of(page.text)}).status_code == 303
        second.cookies.set(SESSION_COOKIE, token)
        assert second.get("/supervisor").status_code == 303
    with running() as third:
        third.cookies.set(SESSION_COOKIE, token)
        assert third.get("/supervisor").status_code == 303
