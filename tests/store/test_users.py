"""Users: argon2 hashes, roles, lockout after five wrong passwords, disabled accounts."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from dealer_assist.store.sqlite_log import SqliteEventLog
from dealer_assist.store.users import LoginRefused, UserError, UserStore

#: Real argon2id, with costs low enough for tests.
CHEAP = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
PASSWORD = "green felt 7"


@pytest.fixture
def store(tmp_path: Path, clock):
    with UserStore(tmp_path / "users.db", clock=clock, hasher=CHEAP) as users:
        yield users


def test_a_user_is_stored_with_an_argon2_hash_not_the_password(store, tmp_path):
    user = store.add("S-104", "supervisor", PASSWORD)
    assert (user.name, user.role, user.disabled) == ("S-104", "supervisor", False)
    assert user.created_at == "2026-11-29T10:00:00.000Z"
    conn = sqlite3.connect(tmp_path / "users.db")
    [(digest,)] = conn.execute("SELECT password_hash FROM users").fetchall()
    conn.close()
    assert digest.startswith("$argon2id$") and PASSWORD not in digest
    assert store.verify("S-104", PASSWORD) == store.get("S-104")


@pytest.mark.parametrize(
    ("name", "role", "password", "says"),
    [
        ("S 104", "supervisor", PASSWORD, "user name"),
        ("", "dealer", PASSWORD, "user name"),
        ("-x", "dealer", PASSWORD, "user name"),
        ("S-104", "croupier", PASSWORD, "role 'croupier'"),
        ("S-104", "dealer", "short", "at least 8"),
        ("dealer-01", "dealer", "Dealer-01", "user's name"),
    ],
)
def test_bad_users_are_refused_and_nothing_is_stored(store, name, role, password, says):
    with pytest.raises(UserError, match=says):
        store.add(name, role, password)
    assert store.all() == []


def test_a_name_is_taken_once(store):
    store.add("D-7", "dealer", PASSWORD)
    with pytest.raises(UserError, match="exists already"):
        store.add("D-7", "supervisor", "another password")
    assert [(u.name, u.role) for u in store.all()] == [("D-7", "dealer")]


def test_wrong_passwords_and_unknown_names_are_refused(store):
    store.add("R-1", "regulator", PASSWORD)
    with pytest.raises(LoginRefused) as refused:
        store.verify("R-1", PASSWORD + "!")
    assert refused.value.reason == "wrong_password"
    with pytest.raises(LoginRefused) as refused:
        store.verify("nobody", PASSWORD)
    assert refused.value.reason == "unknown_user"
    assert store.get("R-1").failed_logins == 1
    store.verify("R-1", PASSWORD)
    assert store.get("R-1").failed_logins == 0


def test_five_wrong_passwords_lock_the_account_for_fifteen_minutes(store, clock):
    store.add("S-1", "supervisor", PASSWORD)
    for attempt in range(4):
        with pytest.raises(LoginRefused) as refused:
            store.verify("S-1", f"wrong {attempt}")
        assert refused.value.locked_until is None
    with pytest.raises(LoginRefused) as refused:
        store.verify("S-1", "wrong 5")
    assert refused.value.reason == "wrong_password"
    assert refused.value.locked_until == clock.now + timedelta(minutes=15)
    clock.advance(minutes=14, seconds=59)
    with pytest.raises(LoginRefused) as refused:
        store.verify("S-1", PASSWORD)  # the right password, still locked
    assert refused.value.reason == "locked"
    assert store.get("S-1").locked_until == "2026-11-29T10:15:00.000Z"
    clock.advance(seconds=1)
    assert store.verify("S-1", PASSWORD).name == "S-1"
    assert store.get("S-1").locked_until is None


def test_failures_must_come_in_a_row_to_lock(store):
    store.add("S-2", "supervisor", PASSWORD)
    for _ in range(3):
        for _ in range(4):
            with pytest.raises(LoginRefused):
                store.verify("S-2", "not it at all")
        store.verify("S-2", PASSWORD)
    assert store.get("S-2").locked_until is None


def test_unlock_and_a_new_password_lift_a_lock(store):
    store.add("S-3", "supervisor", PASSWORD)
    for _ in range(5):
        with pytest.raises(LoginRefused):
            store.verify("S-3", "not it at all")
    store.unlock("S-3")
    assert store.verify("S-3", PASSWORD).failed_logins == 0
    for _ in range(5):
        with pytest.raises(LoginRefused):
            store.verify("S-3", "not it at all")
    store.set_password("S-3", "a new one 8")
    assert store.verify("S-3", "a new one 8").name == "S-3"
    with pytest.raises(LoginRefused):
        store.verify("S-3", PASSWORD)


def test_a_disabled_user_cannot_log_in_until_enabled(store):
    store.add("D-9", "dealer", PASSWORD)
    assert store.disable("D-9").disabled
    with pytest.raises(LoginRefused) as refused:
        store.verify("D-9", PASSWORD)
    assert refused.value.reason == "disabled"
    store.enable("D-9")
    assert store.verify("D-9", PASSWORD).name == "D-9"
    with pytest.raises(UserError, match="no user 'D-10'"):
        store.disable("D-10")


def test_users_persist_and_other_files_are_refused(tmp_path, clock):
    with UserStore(tmp_path / "users.db", clock=clock, hasher=CHEAP) as users:
        users.add("S-1", "supervisor", PASSWORD)
    with UserStore(tmp_path / "users.db", clock=clock, hasher=CHEAP) as users:
        assert users.verify("S-1", PASSWORD).role == "supervisor"
    SqliteEventLog(tmp_path / "table.db").close()
    with pytest.raises(UserError, match="not a users file"):
        UserStore(tmp_path / "table.db")


def test_the_default_hasher_is_argon2id_with_its_recommended_costs(tmp_path):
    with UserStore(tmp_path / "users.db") as users:
        users.add("S-1", "supervisor", PASSWORD)
        assert users.verify("S-1", PASSWORD).name == "S-1"
    conn = sqlite3.connect(tmp_path / "users.db")
    [(digest,)] = conn.execute("SELECT password_hash FROM users").fetchall()
    conn.close()
    assert digest.startswith("$argon2id$v=19$m=65536,t=3,p=4$")


def test_a_hash_made_with_lower_costs_is_upgraded_at_login(tmp_path, clock):
    with UserStore(tmp_path / "users.db", clock=clock, hasher=CHEAP) as users:
        users.add("S-1", "supervisor", PASSWORD)
    with UserStore(tmp_path / "users.db", clock=clock) as users:
        users.verify("S-1", PASSWORD)
    conn = sqlite3.connect(tmp_path / "users.db")
    [(digest,)] = conn.execute("SELECT password_hash FROM users").fetchall()
    conn.close()
    assert "m=65536,t=3,p=4" in digest
