"""The read models come out the same however the events are folded: in one batch, or in
batches by folders restarted mid-shoe (each rebuilds its table machine from the central
copy)."""

from __future__ import annotations

import psycopg

from dealer_assist.floor.fold import fold_batch
from dealer_assist.floor.read_models import FloorModels
from dealer_assist.shipping.ingest import Ingest

SNAPSHOT = {
    "table_status": "SELECT last_seq, shoe_id, game, open_flags, info_flags, variant, "
                    "last_result "
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


def test_batches_from_restarted_folders_fold_as_one_batch(floor, sample, table_log):
    whole, dsn_whole = floor.add_table()
    parts, dsn_parts = floor.add_table()
    records = list(table_log(sample).raw_records())
    for table, dsn in ((whole, dsn_whole), (parts, dsn_parts)):
        with psycopg.connect(dsn) as conn:
            Ingest(conn, table).ship(records)
    with psycopg.connect(floor.folder_dsn(), autocommit=True) as conn:
        assert fold_batch(conn, FloorModels(whole), batch=5000) == len(records)
    folded = 0
    while True:  # a new connection and folder for every batch
        with psycopg.connect(floor.folder_dsn(), autocommit=True) as conn:
            batch = fold_batch(conn, FloorModels(parts), batch=70)
        if not batch:
            break
        folded += batch
    assert folded == len(records)
    one, many = models(floor, whole), models(floor, parts)
    assert many == one
    # games 16 and 17 wait for a decision; game 80's LAST_GAME is for information
    assert one["table_status"][0][:5] == (483, "SAMPLE-1", 80, 2, 1)
    assert [f[1:3] for f in one["flags"]] == [(16, "UNNEEDED_DRAW"), (17, "MISSING_DRAW"),
                                              (80, "LAST_GAME")]
