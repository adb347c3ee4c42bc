"""The central store's schema, as numbered migrations recorded in `schema_migrations`.

Each migration runs once, in its own transaction, in number order; `migrate` is idempotent.
Add a migration by appending to `MIGRATIONS`; never edit one that has shipped.

Who may do what is part of the schema (row-level security, see docs/floor.md):
  floor_table      the group of the tables' roles: adds its own table's events, alarms and read
                   models, reads only its own rows; never updates or deletes an event
  floor_reader     the pit and floor pages: read everything
  floor_regulator  reads everything, writes nothing
`table_heads` is each table's anchor: a trigger moves it as events are stored, and refuses an
event that is not the next link of the table's chain (a guard under the shipper's own checks).
"""

from __future__ import annotations

import psycopg

GROUPS = ("floor_table", "floor_reader", "floor_regulator")
#: The floor service's own group (migration 5): reads like `floor_reader`, and also the floor's
#: users and decision requests, which no table role and no plain reader may see.
SERVICE = "floor_service"

_GROUPS = "".join(
    f"DO $$ BEGIN CREATE ROLE {name} NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;\n"
    for name in GROUPS
)

_CHAIN = """
CREATE TABLE floor_tables (
    table_id text PRIMARY KEY CHECK (table_id ~ '^[A-Za-z0-9_-]{1,32}$'),
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
    PERFORM pg_notify('floor_integrity', json_build_object(
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

_NOTIFY = """
CREATE FUNCTION floor_table_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- one notification per table and transaction: PostgreSQL folds identical payloads
    PERFORM pg_notify('floor_events', NEW.table_id);
    RETURN NULL;
END $$;
CREATE TRIGGER table_status_notify AFTER INSERT OR UPDATE ON table_status
    FOR EACH ROW EXECUTE FUNCTION floor_table_changed();
CREATE FUNCTION floor_request_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('floor_requests', json_build_object(
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


#: (number, what it does, SQL). Numbers only grow.
MIGRATIONS: list[tuple[int, str, str]] = [
    (1, "roles of the floor", _GROUPS),
    (2, "tables, events with their chain, integrity alarms", _CHAIN),
    (3, "read models: table status, games, flags", _READ_MODELS),
    (4, "row-level security and grants", _security()),
    (5, "floor users and decision requests", _FLOOR_USERS_AND_REQUESTS),
    (6, "notify the floor service of each stored batch and request", _NOTIFY),
    (7, "read models: shoes, decisions, link health, last result", _MORE_READ_MODELS),
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


def migrate(conn: psycopg.Connection) -> list[int]:
    """Apply the migrations the database lacks, each in its own transaction; return their numbers."""
    done = set(applied(conn))
    ran = []
    for number, name, sql in MIGRATIONS:
        if number in done:
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
