"""The pit board counts what a person can act on: a table whose flags are all decided, or
informational (LAST_GAME: no decision needed), is not red; its informational flags are shown
beside the count, apart; a table with a flag waiting for a decision is red."""

from __future__ import annotations

import re

import psycopg
from fastapi.testclient import TestClient

from dealer_assist.floor.web.app import create_floor_app
from dealer_assist.shipping.ingest import Ingest
from tests.floor.conftest import FLOOR_PASSWORD
from tests.floor.pit_client import login

TS = "2026-11-29T21:00:00.000Z"


def decision(game: int) -> dict[str, object]:
    return {"ts": TS, "src": "supervisor", "type": "decision", "game": game,
            "action": "accept", "by": "S-1", "reason": "seen on camera"}


def flags_cell(page: str, table: str) -> str:
    row = re.search(rf'<tr class="table-row[^"]*" data-table="{re.escape(table)}">(.*?)</tr>',
                    page, re.S)
    assert row, table
    cell = re.search(r'<td class="flags-count[^"]*">.*?</td>', row.group(1), re.S)
    assert cell, row.group(1)
    return cell.group(0)


def test_only_flags_waiting_for_a_decision_make_a_table_red(floor, service, sample,
                                                            table_log):
    calm, dsn_calm = floor.add_table()
    flagged, dsn_flagged = floor.add_table()
    for table, dsn, events in ((calm, dsn_calm, [*sample, decision(16), decision(17)]),
                               (flagged, dsn_flagged, sample)):
        with psycopg.connect(dsn) as conn:
            Ingest(conn, table).ship(list(table_log(events, name=table).raw_records()))
    with TestClient(create_floor_app(service)) as client:  # its folder folds at start
        login(client, "sur", FLOOR_PASSWORD)
        rows = {t["table"]: t for t in client.get("/api/pit").json()["tables"]}
        page = client.get("/pit/board").text
    assert (rows[calm]["open_flags"], rows[calm]["info_flags"]) == (0, 1)
    assert (rows[flagged]["open_flags"], rows[flagged]["info_flags"]) == (2, 1)
    calm_cell, flagged_cell = flags_cell(page, calm), flags_cell(page, flagged)
    assert 'class="flags-count"' in calm_cell and ">0 <small" in calm_cell
    assert 'class="info-flags">+1 info</small>' in calm_cell
    assert 'class="flags-count open"' in flagged_cell and ">2 <small" in flagged_cell
