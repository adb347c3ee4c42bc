"""The console shows the log's UTC times on the site's clock, with the zone; the log keeps UTC."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dealer_assist.accounts.login import Accounts
from dealer_assist.accounts.settings import WebSettings
from dealer_assist.config import load_table_config
from dealer_assist.config.gaming_day import GamingDay, site_zone
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from tests.web.conftest import csrf_of, login

NEW_YORK = GamingDay(site_zone("America/New_York"), 6)


@pytest.fixture
def new_york(table: LiveTable, users: UserStore) -> Iterator[TestClient]:
    app = create_app(table, Accounts(TableUsers(users)), WebSettings(gaming_day=NEW_YORK))
    with TestClient(app, base_url="http://testserver", follow_redirects=False) as c:
        yield c


def decide(client: TestClient) -> None:
    login(client, "sup")
    csrf = csrf_of(client.get("/supervisor").text)
    done = client.post("/supervisor/decide", data={"csrf": csrf, "shoe": "S1", "game": "2",
                                                   "action": "void", "reason": "dealer erred"})
    assert done.status_code == 303


def test_the_history_shows_a_decisions_time_in_the_sites_zone(new_york: TestClient,
                                                              log: Any) -> None:
    decide(new_york)
    _, event = list(log.read())[-1]
    assert event["ts"].endswith("Z")  # the log keeps UTC
    shown = NEW_YORK.show(event["ts"])
    assert shown[-3:] in ("EST", "EDT") and shown != GamingDay().show(event["ts"])
    history = new_york.get("/supervisor/history").text
    assert f"<td>{shown}</td>" in history and event["ts"] not in history


def test_without_a_site_zone_the_console_shows_utc(client: TestClient, log: Any) -> None:
    decide(client)
    _, event = list(log.read())[-1]
    shown = GamingDay().show(event["ts"])
    assert shown.endswith(" UTC") and f"<td>{shown}</td>" in client.get("/supervisor/history").text


def test_the_table_config_sets_the_zone_of_the_running_service(tmp_path: Path) -> None:
    """bootstrap hands the config's zone and gaming day to the console and the regulator."""
    from dealer_assist.bootstrap import open_table

    path = tmp_path / "table.toml"
    path.write_text('[table]\nid = "T8"\ndatabase = "var/T8.db"\nusers = "var/users.db"\n'
                    'time_zone = "Europe/London"\ngaming_day_starts = 6\n'
                    '[shoe]\nurl = "emulator"\n[web]\nport = 0\n', encoding="utf-8")
    table = open_table(load_table_config(path), start_shoe=False)
    try:
        table.users.add("reg", "regulator", "correct horse")
        table.live.observe({"src": "dealer", "type": "new_shoe"})
        with TestClient(table.app, base_url="http://testserver", follow_redirects=False) as c:
            assert c.app.state.settings.gaming_day.describe() == NEW_YORK.describe().replace(
                "America/New_York", "Europe/London")
            login(c, "reg")
            assert "Gaming day (Europe/London, from 06:00)" in c.get("/regulator").text
    finally:
        table.close()
