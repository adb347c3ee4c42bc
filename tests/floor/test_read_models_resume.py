"""The read models come out the same however the events arrive: in one batch, or in batches
from shippers restarted mid-shoe (each rebuilds its table machine from the central copy)."""

from __future__ import annotations

import psycopg

from dealer_assist.floor.ingest import Ingest

SNAPSHOT = {
    "table_status": "SELECT last_seq, shoe_id, game, open_flags, variant, last_result "
                    "FROM table_status WHERE table_id = %s",
    "games": "SELECT shoe_id, game, started_seq, completed_seq, winner FROM games "
             "WHERE table_id = %s ORDER BY game",
    "flags": "SELECT seq, game, code, decided_seq FROM flags WHERE table_id = %s ORDER BY seq",
    "shoes": "SELECT shoe_id, started_seq, ended_seq FROM shoes WHERE table_id = %s",
}


def models(floor, table: str) -> dict[str, list[tuple[object, ...]]]:
    floor.owner.commit()
    return {name: [tuple(r) for r in floor.owner.execute(sql, (table,)).fetchall()]
            for name, sql in SNAPSHOT.items()}


def test_batches_from_restarted_shippers_fold_as_one_batch(floor, sample, table_log):
    whole, dsn_whole = floor.add_table()
    parts, dsn_parts = floor.add_table()
    records = list(table_log(sample).raw_records())
    with psycopg.connect(dsn_whole) as conn:
        Ingest(conn, whole).ship(records)
    for start in range(0, len(records), 70):  # a new connection and Ingest for every batch
        with psycopg.connect(dsn_parts) as conn:
            Ingest(conn, parts).ship(records[start:start + 70])
    one, many = models(floor, whole), models(floor, parts)
    assert many == one
    assert one["table_status"][0][:4] == (483, "SAMPLE-1", 80, 3)
    assert [f[1:3] for f in one["flags"]] == [(16, "UNNEEDED_DRAW"), (17, "MISSING_DRAW"),
                                              (80, "LAST_GAME")]
