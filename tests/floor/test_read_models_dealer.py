"""The floor's games read model names each game's dealer: the `dealer` field of the
`bets_closed` that starts the game (docs/service.md), NULL for a game dealt with no dealer
signed in; migration 8 fills it in for games stored before it."""

from __future__ import annotations

import psycopg
import pytest

from dealer_assist.floor import migrations
from dealer_assist.floor.ingest import Ingest


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
    assert dealers(floor.owner, table) == {None: list(range(1, 81))}


def test_migration_8_fills_in_the_games_stored_before_it(floor, sample, table_log):
    table, dsn = floor.add_table()
    records = list(table_log(with_dealers(sample)).raw_records())
    with psycopg.connect(dsn) as conn:
        Ingest(conn, table).ship(records)
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
