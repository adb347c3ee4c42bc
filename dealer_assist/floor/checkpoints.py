"""The tables' signed checkpoints in the central store, with each table's public key.

A table signs its checkpoints with its Ed25519 key (store/signed_checkpoints.py); the central
store keeps a copy of those signatures so that a floor export can carry them and each table's
chain can be checked against its own key, without trusting the floor's.

Each table's shipper sends them, verified, after each round of events (shipping/checkpoints.py);
here are the central store's side: the tables that hold them and the trigger that checks, under
anything a table's role might send by hand, that each links to the last one stored and signs
the hash stored at its seq (migration 9; PostgreSQL cannot check an Ed25519 signature, every
verifier does), and reading them back for a floor export. The table's key (`table_keys`) is
registered once, by the floor's owner ahead of time or by the table's shipper on first use, and
never replaced (floor_wire.register_key). See docs/floor.md, "Floor exports".
"""

from __future__ import annotations

from typing import Any

import psycopg

from dealer_assist.floor_wire import registered_key
from dealer_assist.logformat import Checkpoint

#: Migration 9 (floor/migrations.py): the tables' keys and signed checkpoints.
SIGNED_CHECKPOINTS_SQL = """
CREATE TABLE table_keys (
    table_id text PRIMARY KEY REFERENCES floor_tables,
    public_key text NOT NULL CHECK (public_key LIKE '-----BEGIN PUBLIC KEY-----%'),
    fingerprint text NOT NULL CHECK (fingerprint ~ '^SHA256:[0-9a-f]{64}$'),
    registered_by name NOT NULL DEFAULT session_user,
    registered_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE signed_checkpoints (
    table_id text NOT NULL REFERENCES table_keys,
    n bigint NOT NULL CHECK (n > 0),
    seq bigint NOT NULL CHECK (seq >= 0),
    hash text NOT NULL,
    at text NOT NULL,
    prev_seq bigint NOT NULL,
    prev_hash text NOT NULL,
    sig text NOT NULL CHECK (sig ~ '^[0-9a-f]{128}$'),
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, n)
);
CREATE INDEX signed_checkpoints_seq ON signed_checkpoints (table_id, seq);
CREATE FUNCTION signed_checkpoints_next() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE last signed_checkpoints%ROWTYPE; stored text;
BEGIN
    SELECT * INTO last FROM signed_checkpoints WHERE table_id = NEW.table_id
        ORDER BY n DESC LIMIT 1;
    IF NEW.seq = 0 THEN
        stored := repeat('0', 64);
    ELSE
        SELECT hash INTO stored FROM events WHERE table_id = NEW.table_id AND seq = NEW.seq;
    END IF;
    IF NEW.n <> COALESCE(last.n, 0) + 1
       OR NEW.prev_seq <> COALESCE(last.seq, 0)
       OR NEW.prev_hash <> COALESCE(last.hash, repeat('0', 64)) THEN
        RAISE EXCEPTION 'signed checkpoint % of table % does not follow the last one stored',
            NEW.n, NEW.table_id;
    END IF;
    IF stored IS NULL OR NEW.hash <> stored THEN
        RAISE EXCEPTION 'signed checkpoint % of table % is not the hash stored at seq %',
            NEW.n, NEW.table_id, NEW.seq;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER signed_checkpoints_next BEFORE INSERT ON signed_checkpoints
    FOR EACH ROW EXECUTE FUNCTION signed_checkpoints_next();
CREATE TRIGGER signed_checkpoints_append_only BEFORE UPDATE OR DELETE ON signed_checkpoints
    FOR EACH ROW EXECUTE FUNCTION events_append_only();

ALTER TABLE table_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE signed_checkpoints ENABLE ROW LEVEL SECURITY;
CREATE POLICY everyone_reads ON table_keys FOR SELECT
    TO floor_reader, floor_regulator USING (true);
CREATE POLICY everyone_reads ON signed_checkpoints FOR SELECT
    TO floor_reader, floor_regulator USING (true);
CREATE POLICY own_table ON table_keys TO floor_table
    USING (table_id = floor_current_table()) WITH CHECK (table_id = floor_current_table());
CREATE POLICY own_table ON signed_checkpoints TO floor_table
    USING (table_id = floor_current_table()) WITH CHECK (table_id = floor_current_table());
GRANT SELECT ON table_keys, signed_checkpoints TO floor_reader, floor_regulator, floor_table;
GRANT INSERT (table_id, public_key, fingerprint) ON table_keys TO floor_table;
GRANT INSERT (table_id, n, seq, hash, at, prev_seq, prev_hash, sig)
    ON signed_checkpoints TO floor_table;
"""

#: The format of a table's signed checkpoints in a floor export (`tables/<TABLE>.checkpoints.json`).
MEMBER_FORMAT = "dealer-assist-signed-checkpoints/1"


# ---- reading them back for a floor export ----------------------------------------------------

def signed_points(conn: psycopg.Connection, table: str, first: int,
                  last: int) -> list[Checkpoint]:
    """The table's signed checkpoints whose seq lies in first..last, in signing order."""
    rows = conn.execute("SELECT seq, hash, at FROM signed_checkpoints WHERE table_id = %s "
                        "AND seq BETWEEN %s AND %s ORDER BY n", (table, first, last)).fetchall()
    return [Checkpoint(seq, digest, at) for seq, digest, at in rows]


def export_member(conn: psycopg.Connection, table: str, start_seq: int,
                  end_seq: int) -> dict[str, Any] | None:
    """A floor export's record of the table's signed checkpoints over its range
    (`start_seq` is the chain head before the range, `end_seq` its last event): its key, every
    signed checkpoint in start_seq..end_seq, and the first one after it (whose link to the
    last one inside shows none was left out). None when the table has no registered key."""
    key = registered_key(conn, table)
    if key is None:
        return None
    rows = conn.execute(
        "(SELECT n, seq, hash, at, prev_seq, prev_hash, sig FROM signed_checkpoints "
        " WHERE table_id = %s AND seq BETWEEN %s AND %s) "
        "UNION ALL (SELECT n, seq, hash, at, prev_seq, prev_hash, sig FROM signed_checkpoints "
        " WHERE table_id = %s AND seq > %s ORDER BY n LIMIT 1) ORDER BY 1",
        (table, start_seq, end_seq, table, end_seq)).fetchall()
    return {
        "format": MEMBER_FORMAT,
        "table": table,
        "public_key": {"algorithm": "Ed25519", "fingerprint": key["fingerprint"],
                       "pem": key["pem"]},
        "covers": {"start_seq": start_seq, "end_seq": end_seq},
        "checkpoints": [{"seq": seq, "hash": digest, "at": at, "prev_seq": prev_seq,
                         "prev_hash": prev_hash, "sig": sig}
                        for _, seq, digest, at, prev_seq, prev_hash, sig in rows],
    }
