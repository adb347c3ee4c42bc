"""A London casino's log across both clock changes of 2026, with a 06:00 gaming day: the
regulator's days and day pages, and an export of a 25-hour gaming day that still verifies.

Real parts throughout: the table's SQLite log, the table config file, the web app, the CLI.
"""

from __future__ import annotations

import json
import random
import zipfile
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dealer_assist.config import load_paytables
from dealer_assist.config.gaming_day import GamingDay, site_zone
from dealer_assist.devices.deal.dealing import deal_shoe_detailed
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.records import TableRecords
from dealer_assist.signing_keys import load_private_key
from dealer_assist.store.log_range import SqliteLogSource
from dealer_assist.store.sqlite_log import SqliteEventLog
from tests.export.conftest import Export, Verify
from tests.export.test_regulator_web import as_role, make_app

LONDON = GamingDay(site_zone("Europe/London"), 6)
#: Shoe id -> when it starts (UTC), and the gaming day it belongs to. A one-deck shoe lasts
#: a few minutes, so each lies inside one gaming day.
SHOES = {
    "A": ("2026-03-28T06:10", date(2026, 3, 28)),  # 06:10 GMT
    "B": ("2026-03-29T04:50", date(2026, 3, 28)),  # 05:50 BST: the 23-hour day's last hour
    "C": ("2026-03-29T05:05", date(2026, 3, 29)),  # 06:05 BST
    "D": ("2026-10-24T05:10", date(2026, 10, 24)),  # 06:10 BST
    "E": ("2026-10-25T05:40", date(2026, 10, 24)),  # 05:40 GMT: the 25-hour day's last hour
    "F": ("2026-10-25T06:05", date(2026, 10, 25)),  # 06:05 GMT
}


@pytest.fixture(scope="module")
def london_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """The log (T1.events.db) and each shoe's number of games."""
    rng = random.Random(2026)
    events: list[dict[str, Any]] = []
    games: dict[str, int] = {}
    for shoe_id, (start, _day) in SHOES.items():
        dealt = deal_shoe_detailed(rng, HouseRules(decks=1), shoe_id=shoe_id,
                                   start=datetime.fromisoformat(start).replace(tzinfo=UTC))
        events += dealt.events
        games[shoe_id] = len(dealt.games)
    path = tmp_path_factory.mktemp("london") / "T1.events.db"
    log = SqliteEventLog(path, checkpoint_interval=None)
    log.append_many(events)
    log.close()
    return path, games


@pytest.fixture
def records(london_log, keys) -> TableRecords:
    return TableRecords({"T1": SqliteLogSource(london_log[0])}, load_paytables(),
                        signing_key=lambda: load_private_key(keys.private), gaming_day=LONDON)


def shoes_by_day() -> dict[date, list[str]]:
    days: dict[date, list[str]] = {}
    for shoe_id, (_start, day) in SHOES.items():
        days.setdefault(day, []).append(shoe_id)
    return days


def test_the_days_of_a_month_are_gaming_days(records):
    assert records.days("T1", date(2026, 3, 1)) == [(date(2026, 3, 28), 2), (date(2026, 3, 29), 1)]
    assert records.days("T1", date(2026, 10, 1)) == [(date(2026, 10, 24), 2),
                                                     (date(2026, 10, 25), 1)]


def test_a_23_and_a_25_hour_gaming_day_hold_their_shoes_and_games(records, london_log):
    _path, games = london_log
    for day, shoe_ids in shoes_by_day().items():
        view = records.day("T1", day)
        assert [s.settings["shoe"] for s in view.shoes] == shoe_ids, day
        assert sum(len(s.games) for s in view.shoes) == sum(games[s] for s in shoe_ids), day
    # The same log read in UTC calendar days puts B with C and E with F.
    utc = TableRecords(records.logs, records.paytables)
    assert [s.settings["shoe"] for s in utc.day("T1", date(2026, 3, 29)).shoes] == ["B", "C"]
    assert [s.settings["shoe"] for s in utc.day("T1", date(2026, 10, 25)).shoes] == ["E", "F"]


def test_the_regulators_pages_show_gaming_days_and_local_times(records, tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    app = make_app(records, scratch)
    with TestClient(app, follow_redirects=False) as client:
        as_role(client, app, "regulator")
        index = client.get("/regulator", params={"table": "T1", "month": "2026-03"}).text
        assert "Gaming day (Europe/London, from 06:00)" in index
        assert "/regulator/T1/days/2026-03-28" in index and "/regulator/T1/days/2026-03-29" in index
        page = client.get("/regulator/T1/days/2026-03-28")
        assert page.status_code == 200
        text = page.text
        assert "2026-03-28 06:00:00 GMT to 2026-03-29 06:00:00 BST" in text
        assert "2026-03-28 06:10:00 GMT" in text and "2026-03-29 05:50:00 BST" in text
        assert "Shoe C" not in text and "Shoe B" in text
        assert 'name="from" value="2026-03-28"' in text
        export = client.get("/regulator/T1/export.zip",
                            params={"from": "2026-10-24", "to": "2026-10-25"})
        assert export.status_code == 200
        assert 'filename="T1_2026-10-24_2026-10-25.zip"' in export.headers["content-disposition"]


def manifest(path: Path) -> dict[str, Any]:
    with zipfile.ZipFile(path) as zf:
        loaded: dict[str, Any] = json.loads(zf.read("manifest.json"))
        return loaded


def test_an_export_of_a_25_hour_gaming_day_covers_it_and_verifies(
        london_log, tmp_path, export: Export, verify: Verify):
    db, games = london_log
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "T1"\ntime_zone = "Europe/London"\ngaming_day_starts = 6\n',
                      encoding="utf-8")
    out = tmp_path / "day.zip"
    status, _out, err = export(db, out, "2026-10-24", "2026-10-25", "--config", str(config))
    assert status == 0, err
    m = manifest(out)
    assert m["requested"] == {"from": "2026-10-24T05:00:00.000Z", "to": "2026-10-25T06:00:00.000Z"}
    assert [s["shoe"] for s in m["shoes"]] == ["D", "E"]
    assert m["counts"]["games"] == games["D"] + games["E"]
    assert verify(out)[0] == 0
    # A local time without an offset: 05:30 GMT on the 25th is still gaming day 2026-10-24.
    late = tmp_path / "late.zip"
    status, _out, err = export(db, late, "2026-10-25T05:30", "2026-10-25T05:50",
                               "--config", str(config))
    assert status == 0, err
    assert [s["shoe"] for s in manifest(late)["shoes"]] == ["E"]


def test_an_export_with_a_bad_config_says_so(london_log, tmp_path, export: Export):
    config = tmp_path / "table.toml"
    config.write_text('[table]\ntime_zone = "Europe/Lndon"\n', encoding="utf-8")
    status, _out, err = export(london_log[0], tmp_path / "x.zip", "2026-10-24", "2026-10-25",
                               "--config", str(config))
    assert status == 2
    assert "table.time_zone" in err and "Europe/Lndon" in err and "Traceback" not in err
    assert not (tmp_path / "x.zip").exists()
