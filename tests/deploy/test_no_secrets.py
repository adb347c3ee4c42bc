"""No secret on a command line: not in a unit's ExecStart or Environment (both readable by
every local user: `ps`, `systemctl show`), nor in a command the docs tell an operator to type
(it would be in `ps` while it runs, and in the shell's history). The floor service's password
reaches it as a credential, named by PGPASSFILE."""

from __future__ import annotations

import re

import pytest

from tests.deploy.test_deploy_files import DEPLOY, unit
from tests.web.test_run import REPO

#: A password in a libpq key=value DSN, a URI's user:password@, or libpq's environment.
SECRET = re.compile(r"password\s*=\s*[^\s'\"]|postgres(?:ql)?://[^/\s:@]+:[^@\s]+@|PGPASSWORD",
                    re.IGNORECASE)
DOCS = ["README.md", "docs/floor.md", "deploy/README.md"]


def test_the_pattern_finds_a_password_in_each_form():
    for text in ('floor serve --dsn "host=db user=pit password=s3cret"',
                 "psql postgresql://pit:s3cret@db/floor", "PGPASSWORD=s3cret psql",
                 "user=pit password = s3cret"):
        assert SECRET.search(text), text
    for text in ("floor serve --dsn 'host=db user=pit passfile=/etc/floor.pgpass'",
                 "postgresql://pit@db/floor", "--password-stdin", "password in floor.pgpass"):
        assert not SECRET.search(text), text


@pytest.mark.parametrize("name", sorted(p.name for p in (DEPLOY / "systemd").iterdir()))
def test_no_unit_holds_a_secret(name: str) -> None:
    settings = unit(name)
    for key in ("ExecStart", "ExecStartPre", "ExecStartPost", "Environment"):
        for value in settings.get(key, []):
            assert not SECRET.search(value), f"{name}: {key}={value}"
            assert "--dsn " not in value or "passfile=" in value, f"{name}: {key}={value}"


def test_the_floor_service_reads_its_password_and_session_key_from_credentials() -> None:
    settings = unit("dealer-assist-floor.service")
    assert settings["LoadCredential"] == ["floor.pgpass:/etc/dealer-assist/floor.pgpass",
                                          "floor-session.key:/etc/dealer-assist/floor-session.key"]
    assert "PGPASSFILE=%d/floor.pgpass" in settings["Environment"]
    assert ("DEALER_ASSIST_FLOOR_SESSION_KEY_FILE=%d/floor-session.key"
            in settings["Environment"])
    assert settings["EnvironmentFile"] == ["/etc/dealer-assist/floor.env"]
    assert settings["DynamicUser"] == ["yes"]


@pytest.mark.parametrize("doc", DOCS)
def test_no_example_in_the_docs_puts_a_password_on_a_command_line(doc: str) -> None:
    """The docs' commands (indented blocks and `code`) and their prose hold no password."""
    found = [f"{doc}:{n}: {line.strip()}"
             for n, line in enumerate((REPO / doc).read_text(encoding="utf-8").splitlines(), 1)
             if SECRET.search(line)]
    assert found == []


def test_the_docs_say_where_the_floor_services_password_lives() -> None:
    text = (REPO / "deploy/README.md").read_text(encoding="utf-8")
    assert "floor.pgpass" in text and "LoadCredential" in text
    floor = (REPO / "docs/floor.md").read_text(encoding="utf-8")
    assert "PGPASSFILE" in floor and "--dsn-file" in floor

