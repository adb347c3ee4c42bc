"""A shoe-level void flag (BURN_SHORT) is decided from the pit as at the table's console: the
queue lists it on the game the shoe is void from, the review page shows the shoe's flags and
proposes voiding the shoe, and the floor's request is recorded by the owning table through its
live table, as the console records a `void_shoe`; once it ships back, the shoe's flags and every
later game's flags leave the queue, at the pit as at the table. A `void_shoe` is settled as the
table settles it: a game decided before may still void the shoe, a voided shoe not again.

Real parts: PostgreSQL, the table's SQLite log, its live table and shipper, the floor service."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.floor.web.app import create_floor_app
from tests.floor.conftest import FLOOR_PASSWORD
from tests.floor.pit_client import csrf_of, login
from tests.floor.test_floor_decisions import Table, request_of

SHOE = "BS-1"


def burn_short_shoe() -> list[dict[str, Any]]:
    """A shoe dealt before its burn was complete (BURN_SHORT: void from game 1), with game 5's
    draw missed (MISSING_DRAW) and its last game, 81, informational (LAST_GAME)."""
    return deal_shoe(random.Random(3), shoe_id=SHOE, mistakes=["short_burn", "missed_draw:5"],
                     reveal=True)


@pytest.fixture
def burnt(floor, tmp_path: Path) -> Iterator[Table]:
    table_id, dsn = floor.add_table()
    made = Table(tmp_path, table_id, dsn, burn_short_shoe(), floor)
    made.ship()
    yield made
    made.close()


@pytest.fixture
def sampled(floor, sample, tmp_path: Path) -> Iterator[Table]:
    table_id, dsn = floor.add_table()
    made = Table(tmp_path, table_id, dsn, sample, floor)
    made.ship()
    yield made
    made.close()


@pytest.fixture
def client(service) -> Iterator[TestClient]:
    with TestClient(create_floor_app(service)) as client:
        assert login(client, "sup", FLOOR_PASSWORD).status_code == 303
        yield client


def queue_rows(client: TestClient, table: str) -> list[tuple[str, int, str]]:
    """(severity, game, flags cell) of the table's rows in the pit's queue, in order."""
    html = client.get("/pit/queue/list").text
    rows = re.findall(rf'<tr class="sev-(\w+)" data-table="{table}" data-game="(\d+)".*?'
                      r'<td class="codes">(.*?)</td>', html, re.S)
    return [(sev, int(game), codes) for sev, game, codes in rows]


def decide(client: TestClient, table: str, shoe: str, game: int, action: str,
           reason: str) -> Any:
    csrf = csrf_of(client.get("/pit/requests").text)
    return client.post("/pit/decide", data={"csrf": csrf, "table": table, "shoe": shoe,
                                            "game": str(game), "action": action,
                                            "reason": reason}, follow_redirects=False)


def test_a_void_shoe_flag_is_queued_and_decided_from_the_pit_as_at_the_table(burnt, client):
    table = burnt.live.table_id
    # the void shoe first, on the game it is void from; the last game (LAST_GAME) is not queued
    assert [(sev, game) for sev, game, _ in queue_rows(client, table)] == [
        ("shoe_void", 1), ("review", 5)]
    assert "BURN_SHORT" in queue_rows(client, table)[0][2]
    board = next(t for t in client.get("/api/pit").json()["tables"] if t["table"] == table)
    assert (board["open_flags"], board["info_flags"]) == (2, 1)
    page = client.get(f"/pit/review?table={table}&shoe={SHOE}&game=1").text
    shoe_flags = page.split('class="shoe-flags"')[1].split("</section>")[0]
    assert "BURN_SHORT" in shoe_flags and "decided" not in shoe_flags
    assert 'value="void_shoe" checked' in page  # what the rules propose, as on the console

    response = decide(client, table, SHOE, 1, "void_shoe", "dealt before the burn was done")
    assert response.status_code == 303, response.text[:500]
    number = int(response.headers["location"].split("asked=")[1])
    assert burnt.shipper.take_requests() == 1
    [decision] = burnt.decisions()
    assert {k: v for k, v in decision.items() if k != "ts"} == {
        "src": "supervisor", "type": "decision", "game": 1, "action": "void_shoe",
        "by": "sup@floor", "reason": "dealt before the burn was done", "shoe_id": SHOE}
    # the table applied it as it applies its console's: the shoe void from game 1, nothing
    # left in its own review queue (game 5's MISSING_DRAW is settled with the shoe)
    shoe = burnt.live.machine.shoes[-1]
    assert shoe.void_from == 1 and all(g.voided_by_shoe for g in shoe.games)
    assert burnt.live.review_queue() == []

    burnt.ship()
    assert request_of(client, number)["status"] == "done"
    assert queue_rows(client, table) == []  # at the pit as at the table
    page = client.get(f"/pit/review?table={table}&shoe={SHOE}&game=1").text
    assert 'class="flag sev-shoe_void decided"' in page
    assert 'data-action="void_shoe"' in page and 'class="decide"' not in page
    later = client.get(f"/pit/review?table={table}&shoe={SHOE}&game=5").text
    assert 'data-action="void_shoe"' in later and 'class="decide"' not in later
    again = decide(client, table, SHOE, 3, "void_shoe", "once more")
    assert again.status_code == 400 and "already decided at the table by sup@floor" in again.text


def test_a_game_decided_at_the_table_may_still_void_its_shoe_from_the_pit(sampled, client):
    """As the console allows: after an accept, only `void_shoe` is offered, and recorded."""
    table = sampled.live.table_id
    sampled.live.decide("tablesup", 16, "accept", "checked at the table", shoe_id="SAMPLE-1")
    sampled.ship()
    page = client.get(f"/pit/review?table={table}&shoe=SAMPLE-1&game=16").text
    assert re.findall(r'name="action" value="(\w+)"', page) == ["void_shoe"]
    refused = decide(client, table, "SAMPLE-1", 16, "void", "floor: void")
    assert refused.status_code == 400 and "already decided at the table by tablesup" in refused.text
    response = decide(client, table, "SAMPLE-1", 16, "void_shoe", "the shoe was tampered with")
    assert response.status_code == 303, response.text[:500]
    assert sampled.shipper.take_requests() == 1
    assert [(d["by"], d["action"], d["game"]) for d in sampled.decisions()] == [
        ("tablesup", "accept", 16), ("sup@floor", "void_shoe", 16)]
    sampled.ship()
    # game 17's MISSING_DRAW is settled by the void shoe, as at the table; a void shoe is not
    # voided again, nor is a game it voids decided once more
    assert queue_rows(client, table) == [] and sampled.live.review_queue() == []
    for game, action in ((17, "accept"), (20, "void_shoe"), (16, "void_shoe")):
        again = decide(client, table, "SAMPLE-1", game, action, "again")
        assert again.status_code == 400, (game, action)
        assert "already decided at the table by sup@floor" in again.text, (game, action)
    # a void from an earlier game is still open to a supervisor, as at the table
    earlier = decide(client, table, "SAMPLE-1", 10, "void_shoe", "void it from game 10")
    assert earlier.status_code == 303, earlier.text[:500]
    assert sampled.shipper.take_requests() == 1
