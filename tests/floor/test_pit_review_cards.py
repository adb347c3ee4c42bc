"""The floor's review page shows a game's cards as they were revealed at the table (as the
table's own console shows them), and its flags as a person can act on them: those waiting for a
decision, and apart those that need none (informational: LAST_GAME, MULTI_PULL), which keep a
game off the queue.

Why the floor showed every card "not yet opened": the floor demo's tables dealt the events of
a shoe dealt by the rules but never pressed REVEAL where the built-in shoe sends it
(devices/shoe.py `shoe_frames`), so their logs held no `reveal` at all. The page shows what the
log says; the demo's tables now reveal as a dealer does."""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient

from dealer_assist.config import load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.domain.house import HouseRules
from dealer_assist.floor.web.app import create_floor_app
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.sqlite_log import SqliteEventLog
from tests.floor.conftest import FLOOR_PASSWORD
from tests.floor.pit_client import login
from tests.pg import ship

#: A cell of the review page's hand: position, card, and the mark of a card not yet opened.
CELL = re.compile(r'<td data-pos="([PB][123])"><span class="card [a-z]+" title="(\w\w)">'
                  r'[^<]*</span>(<small>[^<]*</small>)?</td>')


@pytest.fixture
def client(service) -> Iterator[TestClient]:
    with TestClient(create_floor_app(service)) as client:
        assert login(client, "sup", FLOOR_PASSWORD).status_code == 303
        yield client


def hand(page: str) -> dict[str, tuple[str, bool]]:
    """{position: (card, opened)} of a review page."""
    return {pos: (card, mark == "") for pos, card, mark in CELL.findall(page)}


def console_hand(tmp_path: Path, events: list[dict[str, Any]], shoe: str,
                 game: int) -> dict[str, tuple[str, bool]]:
    """The same game as the table's own console has it (LiveTable.review, the console's)."""
    log = SqliteEventLog(tmp_path / f"console-{shoe}-{game}.db")
    live = LiveTable(log, table_id="console", house=HouseRules(), paytables=load_paytables())
    try:
        for event in events:
            live.observe(event)
        item = live.review(shoe, game)
    finally:
        live.close()
        log.close()
    assert item is not None
    return {c["pos"]: (c["card"], c["revealed"]) for c in item["cards"]}


def test_a_finished_games_cards_show_as_the_table_revealed_them(floor, client, sample,
                                                               table_log, tmp_path) -> None:
    revealed = deal_shoe(random.Random(1), shoe_id="RV-1", reveal=True)
    for name, events in (("revealed", revealed), ("sample", sample)):
        table, dsn = floor.add_table()
        ship(dsn, table, table_log(events, name=name))
        shoe = "RV-1" if name == "revealed" else "SAMPLE-1"
        for game in (3, 16):
            page = client.get(f"/pit/review?table={table}&shoe={shoe}&game={game}")
            assert page.status_code == 200
            shown = hand(page.text)
            assert len(shown) >= 4, page.text[:2000]
            assert shown == console_hand(tmp_path, events, shoe, game)
            # the dealer pressed REVEAL in one log and never in the other
            opened = name == "revealed"
            assert all(was_opened == opened for _, was_opened in shown.values()), (name, game)
            assert ("not yet opened" in page.text) is not opened


def test_informational_flags_are_apart_and_keep_a_game_off_the_queue(floor, client,
                                                                     table_log) -> None:
    # game 4: cards pulled together (MULTI_PULL, info) and a card drawn when none was needed
    # (UNNEEDED_DRAW, review); the last game (81) carries only LAST_GAME (info)
    events = deal_shoe(random.Random(0), shoe_id="IN-1", reveal=True,
                       mistakes=["cards_pulled_together:4", "unneeded_draw:4"])
    table, dsn = floor.add_table()
    ship(dsn, table, table_log(events))
    queue = client.get("/pit/queue/list").text
    rows = re.findall(rf'data-table="{table}" data-game="(\d+)".*?<td class="codes">(.*?)</td>',
                      queue, re.S)
    assert [int(game) for game, _ in rows] == [4]
    [(_, codes)] = rows
    decide_part, _, info_part = codes.partition('<small class="info-flags"')
    assert "UNNEEDED_DRAW" in decide_part and "MULTI_PULL" not in decide_part
    assert "MULTI_PULL" in info_part and "No decision needed" in info_part
    board = next(t for t in client.get("/api/pit").json()["tables"] if t["table"] == table)
    assert board["open_flags"] == 1
    page = client.get(f"/pit/review?table={table}&shoe=IN-1&game=4").text
    apart = page.split('class="no-decision"')[1].split("</section>")[0]
    assert "MULTI_PULL" in apart and "UNNEEDED_DRAW" not in apart
    assert "UNNEEDED_DRAW" in page.split('class="no-decision"')[0]
    last = client.get(f"/pit/review?table={table}&shoe=IN-1&game=81").text
    assert "LAST_GAME" in last.split('class="no-decision"')[1].split("</section>")[0]
    assert "No flags." not in last  # it has a flag, one that needs no decision


def test_the_floor_demos_tables_reveal_the_cards_as_a_dealer_does(
        floor, client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A demo table (commands/floor_demo.py) deals, ships, and its games show opened cards.

    The deal is seeded: a shoe the demo deals with a short burn is void from its first game (no
    game of it has a winner), which a time-seeded deal drew about one run in six."""
    from dealer_assist.commands.floor_demo import _Table

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the demo's keys
    table, dsn = floor.add_table()
    stop = threading.Event()
    demo = _Table(tmp_path, table, dsn, 3000.0, stop, seed="reveal-4")  # a missed draw
    demo.start()
    try:
        deadline = time.monotonic() + 60
        while demo.live.seq < 120:
            assert time.monotonic() < deadline, "the demo table dealt nothing"
            time.sleep(0.05)
    finally:
        stop.set()
        demo.close()
    ship(dsn, table, SqliteEventLog(tmp_path / f"{table}.events.db"))
    with psycopg.connect(floor.dsn()) as conn:
        rows = conn.execute(
            "SELECT g.shoe_id, g.game FROM games g WHERE g.table_id = %s AND g.winner IN "
            "('player', 'banker', 'tie') AND NOT EXISTS (SELECT 1 FROM flags f WHERE "
            "f.table_id = g.table_id AND f.shoe_id = g.shoe_id AND f.game IN (g.game, "
            "g.game + 1)) ORDER BY g.started_seq LIMIT 3", (table,)).fetchall()
    assert rows, "no finished game free of a dealer's mistake (its own or the next game's)"
    for shoe, game in rows:
        page = client.get(f"/pit/review?table={table}&shoe={shoe}&game={game}").text
        shown = hand(page)
        assert len(shown) >= 4 and all(opened for _, opened in shown.values()), (game, shown)
        assert "not yet opened" not in page
