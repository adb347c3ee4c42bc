"""The floor's games read model names each game's dealer: the `dealer` field of the
`bets_closed` that starts the game (docs/service.md), NULL for a game dealt with no dealer
signed in; migration 8 fills it in for games stored before it."""

from __future__ import annotations

import psycopg
import pytest

from dealer_assist.floor import migrations
from dealer_assist.floor.web import board
from dealer_assist.shipping.ingest import Ingest


def with_dealers(sample: list[dict[str, object]]) -> list[dict[str, object]]:
    """The sample shoe with games 1-30 dealt by D-1, 31-50 by nobody and 51-80 by D-2."""
    events, game = [], 0
    for event in sample:
        if event["type"] == "bets_closed":
            game += 1
            dealer = "D-1" if game <= 30 else None if game <= 50 else "D-2"
            event = {**event, "dealer": dealer} if dealer else event
        events.append(event)
    return events


def dealers(conn: psycopg.Connection, table: str) -> dict[str | None, list[int]]:
    conn.commit()
    found: dict[str | None, list[int]] = {}
    for game, dealer in conn.execute("SELECT game, dealer FROM games WHERE table_id = %s "
                                     "ORDER BY game", (table,)):
        found.setdefault(dealer, []).append(game)
    return found


EXPECTED = {"D-1": list(range(1, 31)), None: list(range(31, 51)), "D-2": list(range(51, 81))}


def test_each_game_names_the_dealer_its_bets_closed_names(floor, sample, table_log):
    table, dsn = floor.add_table()
    records = list(table_log(with_dealers(sample)).raw_records())
    with psycopg.connect(dsn) as conn:
        ingest = Ingest(conn, table)
        for start in range(0, len(records), 90):  # a game's dealer however the batches fall
            ingest.ship(records[start:start + 90])
            floor.fold()
    assert dealers(floor.owner, table) == EXPECTED
    # flags per dealer, as the pit pages count them
    per_dealer = floor.owner.execute(
        "SELECT g.dealer, count(*) FROM flags f JOIN games g USING (table_id, shoe_id, game) "
        "WHERE f.table_id = %s GROUP BY 1 ORDER BY 1", (table,)).fetchall()
    assert per_dealer == [("D-1", 2), ("D-2", 1)]  # games 16, 17 and 80


def test_a_dealer_name_out_of_bounds_is_left_out(floor, sample, table_log):
    table, dsn = floor.add_table()
    events = [{**e, "dealer": "x" * 65} if e["type"] == "bets_closed" else e for e in sample]
    records = list(table_log(events).raw_records())
    with psycopg.connect(dsn) as conn:
        Ingest(conn, table).ship(records)
    floor.fold()
    assert dealers(floor.owner, table) == {None: list(range(1, 81))}


def test_migration_8_fills_in_the_games_stored_before_it(floor, sample, table_log):
    table, dsn = floor.add_table()
    records = list(table_log(with_dealers(sample)).raw_records())
    with psycopg.connect(dsn) as conn:
        Ingest(conn, table).ship(records)
    floor.fold()
    # the store as it was before migration 8: games without their dealer
    floor.owner.execute("ALTER TABLE games DROP COLUMN dealer")
    floor.owner.execute("DELETE FROM schema_migrations WHERE number = 8")
    floor.owner.commit()
    assert migrations.migrate(floor.owner) == [8]
    assert dealers(floor.owner, table) == EXPECTED


@pytest.mark.parametrize("name", ["", "x" * 65])
def test_the_store_refuses_a_dealer_name_out_of_bounds(floor, name):
    table, _ = floor.add_table()
    with pytest.raises(psycopg.errors.CheckViolation):
        floor.owner.execute("INSERT INTO games (table_id, shoe_id, game, started_seq, "
                            "started_ts, dealer) VALUES (%s, 'S', 1, 1, 't', %s)", (table, name))
    floor.owner.rollback()


def cut_short(sample: list[dict[str, object]], interrupted: bool) -> list[dict[str, object]]:
    """The sample with its dealers, cut two cards into game 20 (D-1's), then (with
    `interrupted`) the service's `interrupted` event, then a new shoe: game 20 never goes on."""
    events, game = [], 0
    for event in with_dealers(sample):
        if event["type"] == "bets_closed":
            game += 1
        events.append(event)
        if game == 20 and sum(e["type"] == "card" for e in events[-3:]) == 2 \
                and events[-3]["type"] == "bets_closed":
            break
    last = str(events[-1]["ts"])
    if interrupted:
        events.append({"ts": last[:-4] + "900Z", "src": "system", "type": "interrupted",
                       "reason": "restart"})
    first = dict(sample[0])
    events.append({**first, "ts": "2026-11-29T23:00:00.000Z", "shoe_id": "SAMPLE-2"})
    return events


@pytest.mark.parametrize(("interrupted", "code"), [(True, "INTERRUPTED"), (False, "MISSING_DRAW")])
def test_what_the_system_cut_short_is_never_charged_to_the_dealer(
        floor, sample, table_log, interrupted: bool, code: str) -> None:
    """The pit's figures per dealer and per shift leave out INTERRUPTED (the system's own
    interruption, table-trace.md) but count the same game's MISSING_DRAW when the system was
    never interrupted: the same game, the same dealer."""
    table, dsn = floor.add_table()
    records = list(table_log(cut_short(sample, interrupted)).raw_records())
    with psycopg.connect(dsn) as conn:
        Ingest(conn, table).ship(records)
    floor.fold()
    conn = floor.owner
    conn.commit()
    raised = conn.execute("SELECT code FROM flags WHERE table_id = %s AND game = 20",
                          (table,)).fetchall()
    assert raised == [(code,)]
    [d1] = [row for row in board.dealers(conn) if row["dealer"] == "D-1"]
    [shift] = [row for row in board.shifts(conn) if row["dealer"] == "D-1"]
    charged = 3 if code == "MISSING_DRAW" else 2  # games 16 and 17, and game 20's draw missed
    assert (d1["games"], d1["flags"]) == (20, charged)
    assert (shift["games"], shift["flags"], shift["waiting"]) == (20, charged, charged)
