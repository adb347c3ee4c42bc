"""Where the floor's commands find the central store (commands/floor_dsn.py): `--dsn` without a
password (libpq's password file holds it), `--dsn-file`, $DEALER_ASSIST_FLOOR_DSN; a password
on the command line refused by `floor serve`, and a warning from a one-shot command."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from dealer_assist.cli import main
from dealer_assist.commands.floor_dsn import ENV_DSN, has_password


def split_password(dsn: str, passfile: Path) -> tuple[str, Path]:
    """`dsn` without its password, and a libpq password file (mode 0600) holding it."""
    given = conninfo_to_dict(dsn)
    password = given.pop("password")
    fields = [given["host"], given["port"], given["dbname"], given["user"], password]
    fd = os.open(passfile, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(":".join(str(f).replace("\\", "\\\\").replace(":", "\\:") for f in fields))
        out.write("\n")
    return make_conninfo(**given), passfile


@pytest.fixture(autouse=True)
def _no_dsn_in_the_environment(monkeypatch):
    for name in (ENV_DSN, "PGPASSWORD", "PGPASSFILE"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(("dsn", "holds"), [
    ("host=/run/postgresql dbname=floor user=pit password=s3cret", True),
    ("postgresql://pit:s3cret@db.casino/floor", True),
    ("host=/run/postgresql dbname=floor user=pit passfile=/etc/floor.pgpass", False),
    ("postgresql://pit@db.casino/floor", False),
    ("host=/run/postgresql dbname=floor user=pit password=''", False),
    ("not a dsn", False),
])
def test_a_password_is_found_in_either_form(dsn, holds):
    assert has_password(dsn) is holds


def test_serve_refuses_a_password_on_its_command_line(floor, capsys):
    assert main(["floor", "serve", "--port", "0", "--dsn", floor.dsn()]) == 2
    err = capsys.readouterr().err
    assert "holds a password" in err and "ps" in err and "--dsn-file" in err
    assert "Traceback" not in err


def test_a_one_shot_command_warns_of_a_password_on_its_command_line(floor, capsys):
    assert main(["floor", "migrate", "--dsn", floor.dsn()]) == 0
    said = capsys.readouterr()
    assert "up to date" in said.out
    assert said.err.startswith("warning: the DSN on the command line holds a password")


def test_the_password_comes_from_a_password_file(floor, capsys, monkeypatch, tmp_path):
    dsn, passfile = split_password(floor.dsn(), tmp_path / "pgpass")
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    assert main(["floor", "migrate", "--dsn", dsn]) == 0
    said = capsys.readouterr()
    assert "up to date" in said.out and said.err == ""
    monkeypatch.delenv("PGPASSFILE")  # nor from ~/.pgpass: the password is nowhere else
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert main(["floor", "migrate", "--dsn", dsn]) == 2
    assert "password" in capsys.readouterr().err


def test_a_dsn_file_readable_by_its_owner_only(floor, capsys, tmp_path):
    path = tmp_path / "floor.dsn"
    path.write_text(floor.dsn() + "\n")
    path.chmod(0o644)
    assert main(["floor", "migrate", "--dsn-file", str(path)]) == 2
    assert f"others may read it (mode -rw-r--r--): chmod 600 {path}" in capsys.readouterr().err
    path.chmod(0o600)
    assert main(["floor", "migrate", "--dsn-file", str(path)]) == 0
    said = capsys.readouterr()
    assert "up to date" in said.out and said.err == ""


def test_the_environment_names_the_store(floor, capsys, monkeypatch):
    monkeypatch.setenv(ENV_DSN, floor.dsn())
    assert main(["floor", "migrate"]) == 0
    said = capsys.readouterr()
    assert "up to date" in said.out and said.err == ""


@pytest.mark.parametrize(("argv", "says"), [
    (["--dsn-file", "/nonexistent/floor.dsn"], "cannot read the DSN file /nonexistent/floor.dsn"),
    (["--dsn-file", "EMPTY"], "is empty"),
    ([], "name the central store with --dsn, --dsn-file or $DEALER_ASSIST_FLOOR_DSN"),
    (["--dsn", "x=1", "--dsn-file", "EMPTY"], "not allowed with argument"),
])
def test_a_missing_or_unreadable_dsn_is_a_clear_error(capsys, tmp_path, argv, says):
    (tmp_path / "EMPTY").write_text("\n")
    argv = [str(tmp_path / a) if a == "EMPTY" else a for a in argv]
    try:
        status = main(["floor", "export", "--tables", "T1", "--from", "2026-11-29", "--to",
                       "2026-11-30", "--out", str(tmp_path / "x.zip"), *argv])
    except SystemExit as e:  # argparse's own refusal
        status = int(e.code or 0)
    assert status == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
    assert not (tmp_path / "x.zip").exists()
