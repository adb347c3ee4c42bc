"""Users: argon2 hashes, roles, no lockout, disabled accounts, the file's upgrade."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from dealer_assist.accounts.users import LoginRefused, UserError
from dealer_assist.store.sqlite_log import SqliteEventLog
from dealer_assist.store.users import UserStore

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


def test_wrong_passwords_never_lock_the_account(store, clock):
    """No lockout: whoever types wrong passwords cannot keep the owner out (the service's
    login throttle slows guessing down instead, by client and by account)."""
    store.add("S-1", "supervisor", PASSWORD)
    for attempt in range(50):
        with pytest.raises(LoginRefused) as refused:
            store.verify("S-1", f"wrong {attempt}")
        assert refused.value.reason == "wrong_password"
    assert store.get("S-1").failed_logins == 50
    assert store.verify("S-1", PASSWORD).name == "S-1"
    assert store.get("S-1").failed_logins == 0


def test_a_new_password_clears_the_count_of_wrong_ones(store):
    store.add("S-3", "supervisor", PASSWORD)
    for _ in range(5):
        with pytest.raises(LoginRefused):
            store.verify("S-3", "not it at all")
    assert store.set_password("S-3", "a new one 8").failed_logins == 0
    assert store.verify("S-3", "a new one 8").name == "S-3"
    with pytest.raises(LoginRefused):
        store.verify("S-3", PASSWORD)


def test_a_version_1_file_loses_its_lock_column_and_keeps_its_users(tmp_path):
    path = tmp_path / "users.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (name TEXT PRIMARY KEY NOT NULL, role TEXT NOT NULL, "
                     "password_hash TEXT NOT NULL, disabled INTEGER NOT NULL DEFAULT 0, "
                     "failed_logins INTEGER NOT NULL DEFAULT 0, locked_until TEXT, "
                     "created_at TEXT NOT NULL)")
        conn.execute("INSERT INTO users VALUES ('S-7', 'supervisor', ?, 0, 5, "
                     "'2999-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
                     (CHEAP.hash(PASSWORD),))
        conn.execute("PRAGMA user_version = 1")
    conn.close()
    with UserStore(path, hasher=CHEAP) as users:
        assert users.verify("S-7", PASSWORD).role == "supervisor"  # the old lock is gone
    with sqlite3.connect(path) as conn:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(users)")]
        assert "locked_until" not in columns
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    conn.close()


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
