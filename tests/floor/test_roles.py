"""Who may do what in the central store: a table writes only its own rows and reads no one
else's; the floor and the regulator read; the regulator writes nothing. And the commands."""

from __future__ import annotations

import psycopg
import pytest

from dealer_assist.cli import main
from dealer_assist.floor.ingest import Ingest
from dealer_assist.floor.migrations import MIGRATIONS, migrate


@pytest.fixture
def two_tables(floor, sample, table_log):
    """Tables A and B, each with 10 events shipped: [(table, dsn), (table, dsn)]."""
    tables = [floor.add_table(), floor.add_table()]
    recs = list(table_log(sample[:10]).raw_records())
    for table, dsn in tables:
        with psycopg.connect(dsn) as conn:
            Ingest(conn, table).ship(recs)
    return tables


def test_a_table_cannot_write_as_another(floor, two_tables, sample, table_log):
    (a, dsn_a), (b, _) = two_tables
    empty, _ = floor.add_table()  # the chain would let its first event in: the role does not
    recs = list(table_log(sample[:11], name="more").raw_records())
    with psycopg.connect(dsn_a) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            Ingest(conn, empty).ship(recs)
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            Ingest(conn, b).ship(recs)  # B's head is hidden from A; its rows are not A's
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute("INSERT INTO integrity_alarms (table_id, seq, found) "
                         "VALUES (%s, 1, 'forged')", (b,))


def test_a_table_reads_only_its_own_rows_and_never_changes_them(two_tables):
    (a, dsn_a), (b, _) = two_tables
    with psycopg.connect(dsn_a) as conn:
        seen = conn.execute("SELECT DISTINCT table_id FROM events").fetchall()
        assert seen == [(a,)]
        assert conn.execute("SELECT table_id FROM table_status").fetchall() == [(a,)]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT * FROM integrity_alarms")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE events SET body = '{}' WHERE table_id = %s", (a,))
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE table_heads SET seq = 0")


@pytest.mark.parametrize("group", ["floor_regulator", "floor_reader"])
def test_readers_read_everything_and_write_nothing(floor, two_tables, group):
    (a, _), (b, _) = two_tables
    with psycopg.connect(floor.add_reader(group)) as conn:
        seen = conn.execute("SELECT DISTINCT table_id FROM events ORDER BY 1").fetchall()
        assert seen == sorted([(a,), (b,)])
        for statement in ("INSERT INTO integrity_alarms (table_id, seq, found) "
                          f"VALUES ('{a}', 1, 'x')", "DELETE FROM games",
                          "UPDATE table_status SET open_flags = 0"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()


def test_migrate_is_recorded_and_idempotent(floor, capsys):
    assert migrate(floor.owner) == []
    numbers = floor.owner.execute("SELECT number FROM schema_migrations ORDER BY 1").fetchall()
    assert [n for (n,) in numbers] == [m[0] for m in MIGRATIONS]
    assert main(["floor", "migrate", "--dsn", floor.dsn()]) == 0
    assert "up to date" in capsys.readouterr().out


def test_add_table_prints_a_password_that_logs_in(floor, capsys):
    assert main(["floor", "add-table", "T-cli", "--dsn", floor.dsn()]) == 0
    out = capsys.readouterr().out
    password = out.split("password ")[1].split()[0]
    with psycopg.connect(floor.dsn("table_t_cli", password)) as conn:
        assert conn.execute("SELECT floor_current_table()").fetchone() == ("T-cli",)
    assert main(["floor", "add-table", "T-cli", "--dsn", floor.dsn()]) == 2
    assert "already exists" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "says"), [
    (["floor", "add-table", "T 1"], "a table id is 1 to 32 letters"),
    (["floor", "migrate", "--dsn", "host=/nonexistent port=1"], "cannot connect"),
    (["floor", "migrate", "--dsn", ""], "--dsn"),
])
def test_bad_input_gives_a_clear_error(floor, capsys, argv, says):
    if "--dsn" not in argv:
        argv = [*argv, "--dsn", floor.dsn()]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
