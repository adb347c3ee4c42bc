"""Fixtures of the front door's tests: the table's app (tests/web/conftest.py: a live table on
an in-memory log, real users with a cheap argon2, a client that logs in like a browser), the
front door's tests drive through it; the floor's side is tested in tests/floor."""

from tests.web.conftest import client, log, table, users

__all__ = ["client", "log", "table", "users"]
