"""A table cannot change what the pit or the regulator sees about it (issue 67), except by
shipping events that verify: its role holds no right on any read model, answers only its own
waiting requests and never marks one done; the attacks once tried as a table's role now change
no figure; and a store migrated from before keeps none of what a table's role wrote there."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

from dealer_assist.floor.fold import READ_MODELS
from dealer_assist.floor.migrations import migrate
from dealer_assist.floor.requests import ask
from dealer_assist.floor.web import board, pit_queue
from dealer_assist.shipping.ingest import Ingest
from dealer_assist.shipping.requests import answer
from tests.floor.test_ingest_batches import models
from tests.pg import Floor

#: One statement of each kind on each read model, as a table's role might send it.
WRITES = {
    "table_status": ("INSERT INTO table_status (table_id, last_seq, last_ts) "
                     "VALUES (%(t)s, 1, 'x')", "UPDATE table_status SET open_flags = 0",
                     "DELETE FROM table_status"),
    "games": ("INSERT INTO games (table_id, shoe_id, game, started_seq, started_ts) "
              "VALUES (%(t)s, 'S', 99, 1, 'x')", "UPDATE games SET winner = 'player', "
              "dealer = 'nobody'", "DELETE FROM games"),
    "flags": ("INSERT INTO flags (table_id, seq, code, severity, detail) "
              "VALUES (%(t)s, 1, 'X', 'info', 'x')", "UPDATE flags SET decided_seq = 1",
              "DELETE FROM flags"),
    "shoes": ("INSERT INTO shoes (table_id, shoe_id, variant, started_seq, started_ts) "
              "VALUES (%(t)s, 'S', 'super6', 1, 'x')", "UPDATE shoes SET variant = 'super6'",
              "DELETE FROM shoes"),
    "decisions": ("INSERT INTO decisions (table_id, seq, ts, game, action, by, reason) "
                  "VALUES (%(t)s, 999, 'x', 17, 'accept', 'S-1', 'forged')",
                  "UPDATE decisions SET by = 'someone', reason = 'else'",
                  "DELETE FROM decisions"),
}
NOW = datetime(2026, 12, 1, tzinfo=UTC)


def test_every_read_model_has_its_writes_listed():
    assert sorted(WRITES) == sorted(READ_MODELS)


@pytest.fixture
def shipped(floor, sample, table_log) -> tuple[str, str]:
    """A table with the sample shoe shipped and folded."""
    table, dsn = floor.add_table()
    with psycopg.connect(dsn) as conn:
        Ingest(conn, table).ship(list(table_log(sample, name=table).raw_records()))
    floor.fold()
    return table, dsn


@pytest.mark.parametrize("model", sorted(WRITES))
@pytest.mark.parametrize("kind", [0, 1, 2, 3], ids=["insert", "update", "delete", "truncate"])
def test_a_tables_role_may_not_write_any_read_model(shipped, model, kind):
    table, dsn = shipped
    statement = f"TRUNCATE {model}" if kind == 3 else WRITES[model][kind]
    with psycopg.connect(dsn) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement, {"t": table} if "%(t)s" in statement else None)


def figures(floor: Floor, table: str) -> dict[str, Any]:
    """All the pit and the regulator's pages show of a table, but its name: the read models'
    rows, its row on the board (at a fixed time), its games in the queue, its requests."""
    floor.owner.commit()
    conn = floor.owner
    [row] = [{k: v for k, v in t.items() if k != "table"} for t in board.tables(conn, NOW)
             if t["table"] == table]
    row.pop("shipping_lag_s")  # the events' arrival: another table's arrived at other times
    queue = [{k: v for k, v in q.items() if k != "table"} for q in pit_queue.queue(conn)
             if q["table"] == table]
    requests = conn.execute("SELECT game, action, status, local_seq FROM decision_requests "
                            "WHERE table_id = %s ORDER BY id", (table,)).fetchall()
    return {"models": models(floor, table), "board": row, "queue": queue,
            "requests": requests}


DECISION = {"ts": "2026-11-29T21:00:00.000Z", "src": "supervisor", "type": "decision",
            "game": 16, "action": "accept", "by": "sup@floor", "reason": "seen on camera",
            "shoe_id": "SAMPLE-1"}
MORE = [{"ts": "2026-11-29T21:00:01.000Z", "src": "shoe", "type": "link_status",
         "status": "down"}]


def play_the_table(floor: Floor, service: str, sample, table_log, name: str) -> tuple[str, str,
                                                                                      Any]:
    """A table that ships the sample shoe, takes the floor's request on game 16 (recorded,
    shipped, done) and has another request on game 17 waiting: (table, dsn, its log)."""
    table, dsn = floor.add_table()
    log = table_log([*sample, DECISION], name=name)
    records = list(log.raw_records())
    with psycopg.connect(dsn) as conn:
        Ingest(conn, table).ship(records[:-1])
    floor.fold()
    with psycopg.connect(service) as conn:
        done = ask(conn, table=table, shoe_id="SAMPLE-1", game=16, action="accept",
                   reason="seen on camera", by="sup@floor")
        ask(conn, table=table, shoe_id="SAMPLE-1", game=17, action="void", reason="r",
            by="sup@floor")
    with psycopg.connect(dsn) as conn:
        answer(conn, done, "recorded", "recorded", len(records))
        Ingest(conn, table).ship(records[-1:])
    floor.fold()
    return table, dsn, log


def test_the_attacks_tried_as_a_tables_role_change_no_figure(floor, service, sample, table_log):
    """Issue 67's attacks, as the table's role: decide its flags and zero its count, rewrite
    and forge decisions, change games' winners and dealers, a shoe's variant, flip its floor
    requests. Each is refused, and no figure moves; the events it then ships move the
    figures exactly as they move another table's that shipped the same events."""
    table, dsn, log = play_the_table(floor, service, sample, table_log, "attacked")
    honest, honest_dsn, honest_log = play_the_table(floor, service, sample, table_log, "honest")
    before = figures(floor, table)
    assert before == figures(floor, honest)
    assert before["board"]["open_flags"] == 1 and before["board"]["info_flags"] == 1
    assert [q["game"] for q in before["queue"]] == [17]
    assert [r[2] for r in before["requests"]] == ["done", "waiting"]
    refused = [
        "UPDATE flags SET decided_seq = 1 WHERE table_id = %(t)s",
        "UPDATE table_status SET open_flags = 0 WHERE table_id = %(t)s",
        "UPDATE decisions SET by = 'someone', reason = 'else' WHERE table_id = %(t)s",
        "INSERT INTO decisions (table_id, seq, ts, shoe_id, game, action, by, reason) "
        "VALUES (%(t)s, 480, 'x', 'SAMPLE-1', 17, 'accept', 'S-1', 'forged')",
        "UPDATE games SET winner = 'player', dealer = 'D-9' WHERE table_id = %(t)s",
        "UPDATE shoes SET variant = 'super6' WHERE table_id = %(t)s",
        "DELETE FROM flags WHERE table_id = %(t)s",
        # a waiting request answered `done` by the table itself
        "UPDATE decision_requests SET status = 'done' WHERE table_id = %(t)s",
        "UPDATE decision_requests SET reason = 'forged' WHERE table_id = %(t)s",
    ]
    with psycopg.connect(dsn) as conn:
        for statement in refused:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement, {"t": table})
            conn.rollback()
        # a request the floor holds done is not the table's to flip: it is not there for it
        flipped = conn.execute("UPDATE decision_requests SET status = 'refused', answer = 'no' "
                               "WHERE table_id = %s AND status = 'done'", (table,))
        assert flipped.rowcount == 0
        conn.commit()
    assert figures(floor, table) == before
    for name, dsn_, log_ in ((table, dsn, log), (honest, honest_dsn, honest_log)):
        log_.append_many(MORE)
        with psycopg.connect(dsn_) as conn:
            Ingest(conn, name).ship(list(log_.raw_records())[-1:])
    floor.fold()
    after = figures(floor, table)
    assert after == figures(floor, honest) != before
    assert after["board"]["shoe_link"] == "down" and after["board"]["open_flags"] == 1


def test_an_answer_is_the_tables_the_conclusion_the_floors(floor, service, shipped):
    """A table answers its own waiting request once; `done` comes from the fold, only for a
    decision event folded on the request's game."""
    table, dsn = shipped
    with psycopg.connect(service) as conn:
        number = ask(conn, table=table, shoe_id="SAMPLE-1", game=16, action="accept",
                     reason="r", by="sup")
    with psycopg.connect(dsn) as conn:
        answer(conn, number, "recorded", "recorded at seq 3", 3)  # seq 3 is no decision
    floor.fold()
    status = floor.owner.execute("SELECT status FROM decision_requests WHERE id = %s",
                                 (number,)).fetchone()
    assert status == ("recorded",)
    with psycopg.connect(dsn) as conn:
        answer(conn, number, "refused", "changed my mind")  # answered already: no change
    floor.owner.commit()
    assert floor.owner.execute("SELECT status, local_seq FROM decision_requests WHERE id = %s",
                               (number,)).fetchone() == ("recorded", 3)


@pytest.fixture
def floor_at_11(cluster):
    """A store as migration 11 left it: the tables' roles still wrote their read models."""
    dbname = f"floor_v11_{secrets.token_hex(3)}"
    with psycopg.connect(cluster.dsn(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {dbname}")
    place = Floor(cluster, dbname)
    assert migrate(place.owner, upto=11) == list(range(1, 12))
    yield place
    place.close()


def test_an_upgraded_store_keeps_nothing_a_table_wrote_in_its_read_models(floor_at_11, sample,
                                                                           table_log):
    table, dsn = floor_at_11.add_table()
    with psycopg.connect(dsn) as conn:
        Ingest(conn, table).ship(list(table_log(sample).raw_records()))
        # before migration 12 a table's role could write this: a calm board, a forged game
        conn.execute("INSERT INTO table_status (table_id, last_seq, last_ts, open_flags) "
                     "VALUES (%s, 483, 'x', 0)", (table,))
        conn.execute("INSERT INTO games (table_id, shoe_id, game, started_seq, started_ts, "
                     "winner) VALUES (%s, 'SAMPLE-1', 81, 1, 'x', 'player')", (table,))
        conn.commit()
    assert migrate(floor_at_11.owner, upto=12) == [12]
    with psycopg.connect(dsn) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("UPDATE table_status SET open_flags = 0")
    assert floor_at_11.fold() == 483  # folded again, from the stored events
    owner = floor_at_11.owner
    assert owner.execute("SELECT last_seq, open_flags, info_flags FROM table_status "
                         "WHERE table_id = %s", (table,)).fetchone() == (483, 2, 1)
    assert owner.execute("SELECT count(*), max(game) FROM games WHERE table_id = %s",
                         (table,)).fetchone() == (80, 80)
