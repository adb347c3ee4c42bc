"""The central store's schema, as numbered migrations recorded in `schema_migrations`.

Each migration runs once, in its own transaction, in number order; `migrate` is idempotent.
Add a migration by appending to `MIGRATIONS`; never edit one that has shipped.

Who may do what is part of the schema (row-level security, see docs/floor.md):
  floor_table      the group of the tables' roles: adds its own table's events, alarms, key and
                   signed checkpoints, answers its own waiting decision requests, reads only its
                   own rows; never updates or deletes an event, never writes a read model
                   (migration 12)
  floor_reader     the pit and floor pages: read everything
  floor_regulator  reads everything, writes nothing
  floor_service    the floor service: reads like floor_reader, and the floor's users; stores
                   decision requests; folds the read models from the stored events and marks a
                   recorded request done (floor/fold.py)
`table_heads` is each table's anchor: a trigger moves it as events are stored, and refuses an
event that is not the next link of the table's chain (a guard under the shipper's own checks).
"""

from __future__ import annotations

import psycopg

from dealer_assist.floor.checkpoints import SIGNED_CHECKPOINTS_SQL
from dealer_assist.floor.fold import CENTRAL_FOLD_SQL
from dealer_assist.floor.users import LANGUAGE_SQL, SESSIONS_SQL
from dealer_assist.floor_wire import ALARM_CHANNEL, EVENTS_CHANNEL, REQUESTS_CHANNEL

GROUPS = ("floor_table", "floor_reader", "floor_regulator")
#: The floor service's own group (migration 5): reads like `floor_reader`, and also the floor's
#: users and decision requests, which no table role and no plain reader may see.
SERVICE = "floor_service"

_GROUPS = "".join(
    f"DO $$ BEGIN CREATE ROLE {name} NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;\n"
    for name in GROUPS
)

_CHAIN = f"""
CREATE TABLE floor_tables (
    table_id text PRIMARY KEY CHECK (table_id ~ '^[A-Za-z0-9_-]{{1,32}}$'),
    role name NOT NULL UNIQUE,
    added_at timestamptz NOT NULL DEFAULT now()
);
CREATE FUNCTION floor_current_table() RETURNS text
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
    AS $$ SELECT table_id FROM floor_tables WHERE role = session_user $$;

CREATE TABLE table_heads (
    table_id text PRIMARY KEY REFERENCES floor_tables,
    seq bigint NOT NULL,
    hash text NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE events (
    table_id text NOT NULL REFERENCES floor_tables,
    seq bigint NOT NULL CHECK (seq > 0),
    ts text NOT NULL,
    type text NOT NULL,
    body text NOT NULL,
    prev_hash text NOT NULL,
    hash text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, seq)
);
CREATE FUNCTION events_next_link() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE head table_heads%ROWTYPE;
BEGIN
    SELECT * INTO head FROM table_heads WHERE table_id = NEW.table_id FOR UPDATE;
    IF NEW.seq <> COALESCE(head.seq, 0) + 1
       OR NEW.prev_hash <> COALESCE(head.hash, repeat('0', 64))
       OR NEW.hash <> encode(sha256(convert_to(NEW.prev_hash || NEW.body, 'UTF8')), 'hex') THEN
        RAISE EXCEPTION 'event % of table % is not the next link of its chain',
            NEW.seq, NEW.table_id;
    END IF;
    INSERT INTO table_heads (table_id, seq, hash) VALUES (NEW.table_id, NEW.seq, NEW.hash)
        ON CONFLICT (table_id) DO UPDATE SET seq = NEW.seq, hash = NEW.hash, at = now();
    RETURN NEW;
END $$;
CREATE TRIGGER events_next_link BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION events_next_link();
CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'the central event store is append-only: % refused', TG_OP; END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only();

CREATE TABLE integrity_alarms (
    id bigserial PRIMARY KEY,
    table_id text NOT NULL REFERENCES floor_tables,
    seq bigint NOT NULL,
    found text NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE FUNCTION integrity_alarm_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{ALARM_CHANNEL}', json_build_object(
        'id', NEW.id, 'table', NEW.table_id, 'seq', NEW.seq, 'found', NEW.found)::text);
    RETURN NEW;
END $$;
CREATE TRIGGER integrity_alarm_notify AFTER INSERT ON integrity_alarms
    FOR EACH ROW EXECUTE FUNCTION integrity_alarm_notify();
"""

_READ_MODELS = """
CREATE TABLE table_status (
    table_id text PRIMARY KEY REFERENCES floor_tables,
    last_seq bigint NOT NULL,
    last_ts text NOT NULL,
    shoe_id text,
    shoe_seq bigint,
    game integer,
    open_flags integer NOT NULL DEFAULT 0
);
CREATE TABLE games (
    table_id text NOT NULL REFERENCES floor_tables,
    shoe_id text NOT NULL,
    game integer NOT NULL,
    started_seq bigint NOT NULL,
    started_ts text NOT NULL,
    completed_seq bigint,
    PRIMARY KEY (table_id, shoe_id, game)
);
CREATE TABLE flags (
    table_id text NOT NULL REFERENCES floor_tables,
    seq bigint NOT NULL,
    shoe_id text,
    game integer,
    code text NOT NULL,
    severity text NOT NULL,
    detail text NOT NULL,
    decided_seq bigint,
    PRIMARY KEY (table_id, seq, code, detail)
);
"""

_TABLES = ("table_heads", "events", "integrity_alarms", "table_status", "games", "flags")
_WRITES = {"events": "INSERT", "integrity_alarms": "INSERT", "table_status": "INSERT, UPDATE",
           "games": "INSERT, UPDATE", "flags": "INSERT, UPDATE"}


def _policies(name: str, writes: str | None) -> str:
    """Row-level security of one table: readers read all; a table its own rows only."""
    lines = [f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY;",
             f"GRANT SELECT ON {name} TO floor_reader, floor_regulator;",
             f"CREATE POLICY everyone_reads ON {name} FOR SELECT "
             "TO floor_reader, floor_regulator USING (true);",
             f"CREATE POLICY own_table ON {name} TO floor_table "
             "USING (table_id = floor_current_table()) "
             "WITH CHECK (table_id = floor_current_table());"]
    if writes:
        lines.append(f"GRANT {writes} ON {name} TO floor_table;")
    if name != "integrity_alarms":  # a table reports alarms; it does not read them
        lines.append(f"GRANT SELECT ON {name} TO floor_table;")
    return "\n".join(lines)


def _security() -> str:
    lines = ["GRANT SELECT ON floor_tables TO floor_reader, floor_regulator;",
             "GRANT USAGE ON SEQUENCE integrity_alarms_id_seq TO floor_table;"]
    lines += [_policies(name, _WRITES.get(name)) for name in _TABLES]
    return "\n".join(lines)


_FLOOR_USERS_AND_REQUESTS = """
DO $$ BEGIN CREATE ROLE floor_service NOLOGIN IN ROLE floor_reader;
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

CREATE TABLE floor_users (
    name text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
    role text NOT NULL CHECK (role IN ('supervisor', 'surveillance', 'regulator')),
    password_hash text NOT NULL,
    disabled boolean NOT NULL DEFAULT false,
    failed_logins integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON floor_users FROM PUBLIC;
GRANT SELECT, UPDATE (password_hash, failed_logins) ON floor_users TO floor_service;

CREATE TABLE decision_requests (
    id bigserial PRIMARY KEY,
    table_id text NOT NULL REFERENCES floor_tables,
    shoe_id text NOT NULL,
    game integer NOT NULL CHECK (game > 0),
    action text NOT NULL CHECK (action IN ('accept', 'correct', 'void', 'void_shoe')),
    player text[] NOT NULL DEFAULT '{}',
    banker text[] NOT NULL DEFAULT '{}',
    reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
    by text NOT NULL,
    at timestamptz NOT NULL DEFAULT now(),
    status text NOT NULL DEFAULT 'waiting'
        CHECK (status IN ('waiting', 'recorded', 'done', 'refused', 'already_decided')),
    answer text,
    local_seq bigint,
    answered_at timestamptz
);
CREATE INDEX decision_requests_open ON decision_requests (table_id, id)
    WHERE status IN ('waiting', 'recorded');
ALTER TABLE decision_requests ENABLE ROW LEVEL SECURITY;
CREATE POLICY everyone_reads ON decision_requests FOR SELECT
    TO floor_reader, floor_regulator USING (true);
CREATE POLICY service_asks ON decision_requests FOR INSERT TO floor_service WITH CHECK (true);
CREATE POLICY own_table ON decision_requests TO floor_table
    USING (table_id = floor_current_table()) WITH CHECK (table_id = floor_current_table());
GRANT SELECT ON decision_requests TO floor_reader, floor_regulator, floor_table;
GRANT INSERT ON decision_requests TO floor_service;
GRANT USAGE ON SEQUENCE decision_requests_id_seq TO floor_service;
GRANT UPDATE (status, answer, local_seq, answered_at) ON decision_requests TO floor_table;
"""

_NOTIFY = f"""
CREATE FUNCTION floor_table_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- one notification per table and transaction: PostgreSQL folds identical payloads
    PERFORM pg_notify('{EVENTS_CHANNEL}', NEW.table_id);
    RETURN NULL;
END $$;
CREATE TRIGGER table_status_notify AFTER INSERT OR UPDATE ON table_status
    FOR EACH ROW EXECUTE FUNCTION floor_table_changed();
CREATE FUNCTION floor_request_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{REQUESTS_CHANNEL}', json_build_object(
        'id', NEW.id, 'table', NEW.table_id, 'status', NEW.status)::text);
    RETURN NULL;
END $$;
CREATE TRIGGER decision_requests_notify AFTER INSERT OR UPDATE ON decision_requests
    FOR EACH ROW EXECUTE FUNCTION floor_request_changed();
"""

_MORE_READ_MODELS = """
ALTER TABLE table_status
    ADD COLUMN variant text,
    ADD COLUMN last_result text,
    ADD COLUMN shoe_link text,
    ADD COLUMN camera_link text,
    ADD COLUMN received_at timestamptz;
ALTER TABLE games ADD COLUMN winner text;
CREATE TABLE shoes (
    table_id text NOT NULL REFERENCES floor_tables,
    shoe_id text NOT NULL,
    variant text NOT NULL,
    started_seq bigint NOT NULL,
    started_ts text NOT NULL,
    ended_seq bigint,
    PRIMARY KEY (table_id, shoe_id, started_seq)
);
CREATE TABLE decisions (
    table_id text NOT NULL REFERENCES floor_tables,
    seq bigint NOT NULL,
    ts text NOT NULL,
    shoe_id text,
    game integer NOT NULL,
    action text NOT NULL,
    by text NOT NULL,
    reason text NOT NULL,
    PRIMARY KEY (table_id, seq)
);
""" + "\n".join(_policies(name, "INSERT, UPDATE") for name in ("shoes", "decisions"))

#: The dealer of each game: game n of a shoe is named by the `dealer` field of the shoe's nth
#: `bets_closed` (the table logs it while a dealer is signed in; docs/service.md), NULL for a
#: game dealt with none. Games stored before this migration get theirs from the stored events.
_GAME_DEALER = """
ALTER TABLE games ADD COLUMN dealer text CHECK (length(dealer) BETWEEN 1 AND 64);
WITH closes AS (
    SELECT e.table_id, s.shoe_id, s.started_seq, e.body::json ->> 'dealer' AS dealer,
           row_number() OVER (PARTITION BY e.table_id, s.started_seq ORDER BY e.seq) AS game
    FROM events e
    CROSS JOIN LATERAL (SELECT shoe_id, started_seq FROM shoes
                        WHERE table_id = e.table_id AND started_seq < e.seq
                        ORDER BY started_seq DESC LIMIT 1) s
    WHERE e.type = 'bets_closed'
)
UPDATE games g SET dealer = c.dealer FROM closes c
    WHERE g.table_id = c.table_id AND g.shoe_id = c.shoe_id AND g.game = c.game
      AND g.started_seq > c.started_seq AND length(c.dealer) BETWEEN 1 AND 64;
CREATE INDEX games_dealer ON games (dealer, table_id) WHERE dealer IS NOT NULL;
"""

#: Ingest by the batch (docs/floor.md, "How ingest works"): the chain check moves from a trigger
#: on each row to one on each statement, over the statement's new rows (a transition table):
#: each table's rows, in seq order, must follow its head (seq + 1, prev_hash = the hash before,
#: hash = SHA-256 of prev_hash and body), or the whole statement is refused; the head then
#: moves once. The heads are locked first, so two statements of one table are checked one
#: after the other. And the `own_table` policies call floor_current_table() once per statement
#: (a sub-select, planned as an init plan) instead of once per row.
_CHAIN_BY_STATEMENT = """
DROP TRIGGER events_next_link ON events;
DROP FUNCTION events_next_link();
CREATE FUNCTION events_next_links() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE bad record;
BEGIN
    PERFORM 1 FROM table_heads WHERE table_id IN (SELECT table_id FROM new_events)
        ORDER BY table_id FOR UPDATE;
    SELECT n.table_id, n.seq INTO bad
    FROM (SELECT table_id, seq, prev_hash, hash, body,
                 lag(seq) OVER w AS seq_before, lag(hash) OVER w AS hash_before
          FROM new_events WINDOW w AS (PARTITION BY table_id ORDER BY seq)) n
    LEFT JOIN table_heads h ON h.table_id = n.table_id
    WHERE n.seq <> COALESCE(n.seq_before, h.seq, 0) + 1
       OR n.prev_hash <> COALESCE(n.hash_before, h.hash, repeat('0', 64))
       OR n.hash <> encode(sha256(convert_to(n.prev_hash || n.body, 'UTF8')), 'hex')
    ORDER BY n.table_id, n.seq LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'event % of table % is not the next link of its chain',
            bad.seq, bad.table_id;
    END IF;
    INSERT INTO table_heads (table_id, seq, hash)
        SELECT DISTINCT ON (table_id) table_id, seq, hash FROM new_events
        ORDER BY table_id, seq DESC
        ON CONFLICT (table_id) DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash,
            at = now();
    RETURN NULL;
END $$;
CREATE TRIGGER events_next_links AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION events_next_links();
DO $$
DECLARE p record;
BEGIN
    FOR p IN SELECT tablename FROM pg_policies
             WHERE schemaname = 'public' AND policyname = 'own_table' LOOP
        EXECUTE format('ALTER POLICY own_table ON %I USING (table_id = (SELECT '
                       'floor_current_table())) WITH CHECK (table_id = (SELECT '
                       'floor_current_table()))', p.tablename);
    END LOOP;
END $$;
"""


#: (number, what it does, SQL). Numbers only grow.
MIGRATIONS: list[tuple[int, str, str]] = [
    (1, "roles of the floor", _GROUPS),
    (2, "tables, events with their chain, integrity alarms", _CHAIN),
    (3, "read models: table status, games, flags", _READ_MODELS),
    (4, "row-level security and grants", _security()),
    (5, "floor users and decision requests", _FLOOR_USERS_AND_REQUESTS),
    (6, "notify the floor service of each stored batch and request", _NOTIFY),
    (7, "read models: shoes, decisions, link health, last result", _MORE_READ_MODELS),
    (8, "read models: the dealer of each game", _GAME_DEALER),
    (9, "signed checkpoints of the tables", SIGNED_CHECKPOINTS_SQL),
    (10, "the chain checked once per statement; table policies once per statement",
     _CHAIN_BY_STATEMENT),
    (11, "floor users' page language", LANGUAGE_SQL),
    (12, "the floor service folds the read models; tables write none; decidable flags apart",
     CENTRAL_FOLD_SQL),
    (13, "the floor service's ended sessions", SESSIONS_SQL),
]


def applied(conn: psycopg.Connection) -> list[int]:
    """The numbers of the migrations the database has recorded."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        "number integer PRIMARY KEY, name text NOT NULL, "
        "applied_at timestamptz NOT NULL DEFAULT now())"
    )
    numbers = [row[0] for row in conn.execute("SELECT number FROM schema_migrations ORDER BY 1")]
    conn.commit()
    return numbers


def migrate(conn: psycopg.Connection, upto: int | None = None) -> list[int]:
    """Apply the migrations the database lacks (up to number `upto`, default all), each in its
    own transaction; return their numbers."""
    done = set(applied(conn))
    ran = []
    for number, name, sql in MIGRATIONS:
        if number in done or (upto is not None and number > upto):
            continue
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(36)")
            if conn.execute("SELECT 1 FROM schema_migrations WHERE number = %s",
                            (number,)).fetchone():
                continue  # another migrate got there first
            conn.execute(sql.encode())
            conn.execute("INSERT INTO schema_migrations (number, name) VALUES (%s, %s)",
                         (number, name))
        ran.append(number)
    return ran
