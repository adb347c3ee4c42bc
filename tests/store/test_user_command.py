"""`dealer-assist user`: adding users from a script and at a real terminal (a pty)."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dealer_assist.accounts.users import LoginRefused
from dealer_assist.cli import main
from dealer_assist.commands.user import DB_ENV
from dealer_assist.store.users import UserStore

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "green felt 7"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "users.db"


def user(capsys, monkeypatch, *args: str, stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(["user", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_add_reads_the_password_from_stdin(db, capsys, monkeypatch):
    status, out, _ = user(capsys, monkeypatch, "add", "S-104", "--role", "supervisor",
                          "--db", str(db), "--password-stdin", stdin=PASSWORD + "\n")
    assert status == 0 and out.startswith("added S-104 (supervisor, active")
    with UserStore(db) as store:
        assert store.verify("S-104", PASSWORD).role == "supervisor"


def test_the_users_file_comes_from_the_environment_or_nowhere(db, capsys, monkeypatch):
    monkeypatch.delenv(DB_ENV, raising=False)
    status, _, err = user(capsys, monkeypatch, "list")
    assert status == 2 and "--db FILE" in err
    monkeypatch.setenv(DB_ENV, str(db))
    status, _, _ = user(capsys, monkeypatch, "add", "D-1", "--role", "dealer",
                        "--password-stdin", stdin=PASSWORD)
    assert status == 0
    status, out, _ = user(capsys, monkeypatch, "list", "--json")
    assert [(u["name"], u["role"]) for u in json.loads(out)] == [("D-1", "dealer")]


def test_bad_adds_say_why_and_store_nothing(db, capsys, monkeypatch):
    add = ["add", "S-1", "--role", "supervisor", "--db", str(db)]
    status, _, err = user(capsys, monkeypatch, *add, "--password-stdin", stdin="short\n")
    assert status == 2 and "at least 8" in err
    status, _, err = user(capsys, monkeypatch, *add, "--password-stdin", stdin="\n")
    assert status == 2 and "no password" in err
    status, _, err = user(capsys, monkeypatch, *add, stdin=PASSWORD + "\n")
    assert status == 2 and "--password-stdin" in err  # stdin is not a terminal
    with pytest.raises(SystemExit):
        user(capsys, monkeypatch, "add", "S-1", "--role", "boss", "--db", str(db))
    assert "invalid choice" in capsys.readouterr().err
    with UserStore(db) as store:
        assert store.all() == []


def test_list_disable_enable_and_passwd(db, capsys, monkeypatch):
    user(capsys, monkeypatch, "add", "D-2", "--role", "dealer", "--db", str(db),
         "--password-stdin", stdin=PASSWORD)
    status, out, _ = user(capsys, monkeypatch, "add", "D-2", "--role", "dealer",
                          "--db", str(db), "--password-stdin", stdin=PASSWORD)
    assert status == 2
    assert user(capsys, monkeypatch, "disable", "D-2", "--db", str(db))[1].startswith(
        "disabled D-2 (dealer, disabled")
    assert "D-2 (dealer, disabled" in user(capsys, monkeypatch, "list", "--db", str(db))[1]
    with UserStore(db) as store, pytest.raises(LoginRefused, match="disabled"):
        store.verify("D-2", PASSWORD)
    assert user(capsys, monkeypatch, "enable", "D-2", "--db", str(db))[0] == 0
    with UserStore(db) as store:
        for _ in range(5):
            with pytest.raises(LoginRefused):
                store.verify("D-2", "not the password")
    assert "5 wrong password(s) in a row" in user(capsys, monkeypatch, "list", "--db", str(db))[1]
    status, _, _ = user(capsys, monkeypatch, "passwd", "D-2", "--db", str(db),
                        "--password-stdin", stdin="brand new pass\r\n")
    assert status == 0
    with UserStore(db) as store:
        assert store.verify("D-2", "brand new pass").name == "D-2"
    status, _, err = user(capsys, monkeypatch, "enable", "D-3", "--db", str(db))
    assert status == 2 and "no user 'D-3'" in err


def test_an_empty_users_file_says_how_to_add_the_first_supervisor(db, capsys, monkeypatch):
    status, out, _ = user(capsys, monkeypatch, "list", "--db", str(db))
    assert status == 0 and "--role supervisor" in out


class Terminal:
    """`dealer-assist` run on the slave side of a real pseudo-terminal."""

    def __init__(self, *args: str) -> None:
        self.master, slave = os.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dealer_assist.cli", *args],
            stdin=slave, stdout=slave, stderr=slave, cwd=REPO, start_new_session=True)
        os.close(slave)
        self.seen = b""

    def expect(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text.encode() not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, f"no {text!r} on the terminal; it shows {self.seen!r}"
            if select.select([self.master], [], [], left)[0]:
                try:
                    self.seen += os.read(self.master, 4096)
                except OSError:  # the child closed the terminal
                    break
        assert text.encode() in self.seen, f"no {text!r}; the terminal shows {self.seen!r}"

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def close(self) -> int:
        status = self.proc.wait(timeout=30)
        os.close(self.master)
        return status


def test_add_asks_the_password_twice_without_echo_on_a_terminal(db):
    term = Terminal("user", "add", "S-7", "--role", "supervisor", "--db", str(db))
    term.expect("Password for S-7: ")
    term.type(PASSWORD)
    term.expect("Repeat the password: ")
    term.type(PASSWORD)
    term.expect("added S-7")
    assert term.close() == 0
    assert PASSWORD.encode() not in term.seen
    with UserStore(db) as store:
        assert store.verify("S-7", PASSWORD).name == "S-7"


def test_two_different_passwords_on_a_terminal_change_nothing(db):
    term = Terminal("user", "add", "S-8", "--role", "supervisor", "--db", str(db))
    term.expect("Password for S-8: ")
    term.type(PASSWORD)
    term.expect("Repeat the password: ")
    term.type(PASSWORD + "x")
    term.expect("differ")
    assert term.close() == 2
    with UserStore(db) as store:
        assert store.get("S-8") is None
