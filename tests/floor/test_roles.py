"""Who may do what in the central store: a table writes only its own rows and reads no one
else's; the floor and the regulator read; the regulator writes nothing; the floor service's
login is no superuser and writes no event. A password goes to the server only as its SCRAM
verifier. And the commands."""

from __future__ import annotations

import psycopg
import psycopg.conninfo
import pytest

from dealer_assist.cli import main
from dealer_assist.floor.migrations import MIGRATIONS, migrate
from dealer_assist.floor.roles import new_password, service_overreach
from dealer_assist.shipping.ingest import Ingest


@pytest.fixture
def two_tables(floor, sample, table_log):
    """Tables A and B, each with 10 events shipped: [(table, dsn), (table, dsn)]."""
    tables = [floor.add_table(), floor.add_table()]
    recs = list(table_log(sample[:10]).raw_records())
    for table, dsn in tables:
        with psycopg.connect(dsn) as conn:
            Ingest(conn, table).ship(recs)
    floor.fold()
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


def test_the_floor_services_login_is_no_superuser_and_writes_no_event(floor, two_tables):
    """The floor service's login (floor add-reader --role service) reads every table, and
    cannot make a role, give itself a right, or add, change or delete an event."""
    (a, _), (b, _) = two_tables
    dsn = floor.add_reader("floor_service")
    with psycopg.connect(dsn) as conn:
        me = conn.execute("SELECT current_user").fetchone()[0]
        assert service_overreach(conn) is None  # what `floor serve` checks at start
        seen = conn.execute("SELECT DISTINCT table_id FROM events ORDER BY 1").fetchall()
        assert seen == sorted([(a,), (b,)])
        for statement in ("CREATE ROLE intruder LOGIN SUPERUSER", "CREATE ROLE intruder",
                          f'ALTER ROLE "{me}" CREATEROLE', f'ALTER ROLE "{me}" BYPASSRLS',
                          "INSERT INTO events (table_id, seq, ts, type, body, prev_hash, hash) "
                          "SELECT table_id, seq + 100, ts, type, body, hash, hash FROM events "
                          "LIMIT 1",
                          "UPDATE events SET body = body", "DELETE FROM events",
                          "INSERT INTO floor_tables (table_id, role) VALUES ('X', 'x')"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()
    row = floor.owner.execute(
        "SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls, rolreplication "
        "FROM pg_roles WHERE rolname = %s", (me,)).fetchone()
    assert row == (False, False, False, False, False)


def test_a_new_login_sends_the_server_only_its_verifier(floor, cluster):
    """The server logs every statement here (log_statement = all): the role's name is in its
    log, its password is not, and PostgreSQL keeps a SCRAM verifier."""
    floor.owner.execute("SET log_statement = 'all'")
    table, dsn = floor.add_table()
    reader = floor.add_reader("floor_regulator")
    floor.owner.execute("RESET log_statement")
    floor.owner.commit()
    log = (cluster.root / "log").read_text(errors="replace")
    for login in (dsn, reader):
        given = psycopg.conninfo.conninfo_to_dict(login)
        assert f'CREATE ROLE "{given["user"]}" LOGIN PASSWORD \'SCRAM-SHA-256$' in log
        assert given["password"] not in log
        with psycopg.connect(login) as conn:
            assert conn.execute("SELECT current_user").fetchone() == (given["user"],)


def test_a_new_password_replaces_the_old(floor):
    _, dsn = floor.add_table()
    given = psycopg.conninfo.conninfo_to_dict(dsn)
    fresh = new_password(floor.owner, given["user"])
    assert fresh != given["password"]
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(dsn)
    with psycopg.connect(floor.dsn(given["user"], fresh)) as conn:
        assert conn.execute("SELECT current_user").fetchone() == (given["user"],)


def test_add_reader_puts_the_password_in_a_password_file_not_on_screen(floor, capsys,
                                                                       monkeypatch, tmp_path):
    """`--passfile PATH`: the new login's password goes to a libpq password file (0600, one
    line added per login), printed nowhere; a DSN without a password then logs in."""
    path = tmp_path / "floor.pgpass"
    for name in ("pitservice_pf", "gcb_pf"):
        assert main(["floor", "add-reader", name, "--role", "service", "--passfile", str(path),
                     "--dsn", floor.dsn()]) == 0
        out = capsys.readouterr().out
        assert out == f"service login {name}: its password added to {path}\n"
    assert path.stat().st_mode & 0o777 == 0o600
    lines = path.read_text().splitlines()
    assert [line.split(":")[:4] for line in lines] == [
        ["*", "*", floor.dbname, "pitservice_pf"], ["*", "*", floor.dbname, "gcb_pf"]]
    given = psycopg.conninfo.conninfo_to_dict(floor.dsn())
    monkeypatch.setenv("PGPASSFILE", str(path))
    monkeypatch.delenv("PGPASSWORD", raising=False)
    with psycopg.connect(host=given["host"], port=given["port"], dbname=floor.dbname,
                         user="gcb_pf") as conn:
        assert conn.execute("SELECT pg_has_role('floor_service', 'member')").fetchone() == (True,)


def test_add_table_refuses_a_password_file_others_may_read_and_makes_no_role(floor, capsys,
                                                                            tmp_path):
    path = tmp_path / "tables.pgpass"
    path.write_text("")
    path.chmod(0o644)
    assert main(["floor", "add-table", "T-pf", "--passfile", str(path), "--dsn",
                 floor.dsn()]) == 2
    err = capsys.readouterr().err
    assert f"may be read by others (mode -rw-r--r--; libpq ignores it): chmod 600 {path}" in err
    assert floor.owner.execute("SELECT 1 FROM pg_roles WHERE rolname = 'table_t_pf'"
                               ).fetchone() is None
    assert path.read_text() == ""
