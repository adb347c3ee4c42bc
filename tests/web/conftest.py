"""Fixtures of the web tests: a live table on an in-memory log, real users (a cheap argon2),
the app, and a client that logs in like a browser (cookies, CSRF tokens from the forms)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from dealer_assist.accounts.login import Accounts
from dealer_assist.config import load_paytables
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.log import MemoryEventLog
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from tests.tracebuild import BURN3, Trace

PASSWORD = "correct horse"
ROLES = {"sup": "supervisor", "dea": "dealer", "reg": "regulator"}
CHEAP = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def flagged_trace() -> Trace:
    """Game 1 clean and open; game 2 complete, open, then a card drawn after it."""
    return (Trace().new_shoe().burn(*BURN3).game("9H", "TS", "KD", "2C").ev("dealer", "reveal")
            .game("2H", "3D", "4C", "KS", "7S").ev("dealer", "reveal").cards("5D"))


@pytest.fixture
def users(tmp_path: Path) -> Iterator[UserStore]:
    store = UserStore(tmp_path / "users.db", hasher=CHEAP)
    for name, role in ROLES.items():
        store.add(name, role, PASSWORD)
    yield store
    store.close()


@pytest.fixture
def log() -> MemoryEventLog:
    return MemoryEventLog()


@pytest.fixture
def table(log: MemoryEventLog) -> LiveTable:
    live = LiveTable(log, table_id="T1", house=HouseRules(), paytables=load_paytables())
    for event in flagged_trace().events:
        live.observe(event)
    return live


@pytest.fixture
def client(table: LiveTable, users: UserStore) -> Iterator[TestClient]:
    app = create_app(table, Accounts(TableUsers(users)))
    with TestClient(app, base_url="http://testserver", follow_redirects=False) as c:
        yield c


def csrf_of(html: str) -> str:
    match = CSRF.search(html)
    assert match, "the page has a form with a CSRF token"
    return match.group(1)


def login(client: TestClient, name: str, password: str = PASSWORD,
          next_path: str = "") -> httpx2.Response:
    form = client.get("/login", params={"next": next_path} if next_path else None)
    return client.post("/login", data={"name": name, "password": password,
                                       "csrf": csrf_of(form.text), "next": next_path})
