"""`/healthz` and `/metrics`: what operations watch, through the app and a real server."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dealer_assist.accounts.login import Accounts
from dealer_assist.bootstrap import ServerThread, open_table
from dealer_assist.config import load_table_config
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from dealer_assist.web.health import exposition, health_router


def app_with(table: LiveTable, users: UserStore, problem: list[str | None]):
    return create_app(table, Accounts(TableUsers(users)),
                      routers=[health_router(table, lambda: problem[0], lambda: (12, 3.5))])


def test_healthz_is_200_while_the_log_takes_events_and_503_with_the_reason_when_not(
        table: LiveTable, users: UserStore) -> None:
    problem: list[str | None] = [None]
    with TestClient(app_with(table, users, problem)) as client:
        ok = client.get("/healthz")
        assert ok.status_code == 200
        assert ok.json() == {"ready": True, "log": "writable",
                             "links": {"shoe": "unknown", "camera": "off"}}
        problem[0] = "no room left for the event log on the disk of /var/lib/x"
        down = client.get("/healthz")
        assert down.status_code == 503 and down.json()["log"].startswith("no room left")


def test_metrics_are_for_this_machine_only(table: LiveTable, users: UserStore) -> None:
    app = app_with(table, users, [None])
    with TestClient(app, client=("10.0.0.8", 40000)) as outsider:
        assert outsider.get("/metrics").status_code == 404
    table.link_changed("shoe", "up", "frames arriving")
    with TestClient(app, client=("127.0.0.1", 40000)) as local:
        response = local.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    lines = response.text.splitlines()
    assert f"dealer_assist_events_appended_total {table.seq}" in lines
    assert 'dealer_assist_flags_raised_total{code="UNNEEDED_DRAW"} 1' in lines
    assert 'dealer_assist_link_up{device="shoe"} 1' in lines
    assert 'dealer_assist_link_up{device="camera"} 0' in lines
    assert "dealer_assist_log_writable 1" in lines
    assert "dealer_assist_shipping_lag_events 12" in lines
    assert any(line.startswith("dealer_assist_last_event_age_seconds ") for line in lines)


def test_the_exposition_format() -> None:
    text = exposition({"seq": 7, "last_event": "2026-11-29T10:00:00.000Z", "flags": {},
                       "links": {"shoe": "down"}, "snapshot_seq": 5,
                       "snapshot_at": 1_795_946_000.0}, False, None, now=1_795_946_410.0)
    lines = text.splitlines()
    assert "# TYPE dealer_assist_events_appended_total counter" in lines
    assert "dealer_assist_last_event_age_seconds 10" in lines
    assert "dealer_assist_snapshot_seq 5" in lines and "dealer_assist_log_writable 0" in lines
    assert "dealer_assist_snapshot_age_seconds 410" in lines
    assert not any("shipping" in line for line in lines)  # no floor configured
    assert text.endswith("\n")


def test_the_snapshots_refused_at_start_by_reason_and_whether_snapshots_are_sealed() -> None:
    signals = {"seq": 7, "last_event": None, "flags": {}, "links": {}, "snapshot_seq": None,
               "snapshot_at": None}
    lines = exposition(signals, True, None, refused={"seal": 2, "log": 0}).splitlines()
    assert "# TYPE dealer_assist_snapshots_refused_total counter" in lines
    assert 'dealer_assist_snapshots_refused_total{reason="seal"} 2' in lines
    assert 'dealer_assist_snapshots_refused_total{reason="log"} 0' in lines
    assert "dealer_assist_snapshots_sealed 1" in lines
    unsealed = exposition(signals, True, None).splitlines()  # no signing key: none kept
    assert "dealer_assist_snapshots_sealed 0" in unsealed
    assert not any("snapshots_refused" in line for line in unsealed)


def test_the_router_reads_the_refusals_at_each_scrape(table: LiveTable, users: UserStore) -> None:
    refused = {"seal": 0}
    app = create_app(table, Accounts(TableUsers(users)),
                     routers=[health_router(table, lambda: None, None, refused)])
    with TestClient(app, client=("127.0.0.1", 40000)) as local:
        assert 'dealer_assist_snapshots_refused_total{reason="seal"} 0' in local.get("/metrics").text
        refused["seal"] = 1
        assert 'dealer_assist_snapshots_refused_total{reason="seal"} 1' in local.get("/metrics").text


@pytest.mark.slow
def test_the_running_service_answers_both_on_a_real_socket(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[table]\nid = "T4"\ndatabase = "var/T4.db"\nusers = "var/users.db"\n'
                    '[shoe]\nurl = "emulator"\n[web]\nport = 0\n', encoding="utf-8")
    table = open_table(load_table_config(path), start_shoe=False)
    server = ServerThread(table.app).start()
    try:
        with urllib.request.urlopen(server.url + "healthz", timeout=10) as response:
            assert response.status == 200 and b'"ready":true' in response.read()
        with urllib.request.urlopen(server.url + "metrics", timeout=10) as response:
            assert b"dealer_assist_log_writable 1" in response.read()
    finally:
        server.stop()
        table.close()
