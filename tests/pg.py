"""A real, throwaway PostgreSQL cluster for the floor's and the shipping's tests, started once.

`initdb` into a temporary folder, `pg_ctl start` listening on a unix socket only (in that
folder, on a free port number), stopped at the end. PostgreSQL refuses to run as root, so as
root (CI on Debian 12) the cluster belongs to `nobody` and runs through `runuser`. Each test
gets its own database, migrated; role names are cluster-wide, so each test's tables get ids
of their own. Skipped, with the reason, when PostgreSQL is not installed.

The fixtures here (`cluster`, `floor`, `sample`, `table_log`) are imported by the conftest of
each folder that needs them (tests/floor/, tests/shipping/); the cluster itself is started once
for the session however many folders use it. `ship` puts a table's log in the central store and
folds it, as a table's shipper and the floor service do.
"""

from __future__ import annotations

import glob
import itertools
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from dealer_assist.floor.migrations import migrate
from dealer_assist.floor.roles import add_reader, add_table

SUPERUSER = "postgres"


def _bin_dir() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(candidates[-1]).parent if candidates else None


class Cluster:
    """The throwaway cluster: `stop()` and `start()` it to play an outage."""

    def __init__(self, bin_dir: Path, root: Path) -> None:
        self.bin_dir, self.root = bin_dir, root
        self.data = root / "data"
        self.password = secrets.token_urlsafe(16)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]

    def _as_owner(self, *argv: str) -> None:
        cmd = [str(self.bin_dir / argv[0]), *argv[1:]]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "nobody", "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        pwfile = self.root / "pw"
        pwfile.write_text(self.password)
        if os.geteuid() == 0:
            for path in (self.root, pwfile):
                shutil.chown(path, "nobody")
        self._as_owner("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=scram-sha-256",
                       f"--pwfile={pwfile}", "--no-sync", "--encoding=UTF8", "--locale=C")
        pwfile.unlink()

    def start(self) -> None:
        options = f"-c listen_addresses='' -c unix_socket_directories={self.root} -p {self.port} -c fsync=off"
        self._as_owner("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-w",
                       "-o", options, "start")

    def stop(self) -> None:
        self._as_owner("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def dsn(self, user: str = SUPERUSER, password: str | None = None,
            dbname: str = "postgres") -> str:
        return (f"host={self.root} port={self.port} dbname={dbname} user={user} "
                f"password={password or self.password}")


#: The session's one cluster once started, and how many folders' `cluster` fixtures hold it.
_shared: list[Cluster] = []
_holders = [0]


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    """The session's cluster, shared by every folder whose conftest imports this fixture: the
    first to ask starts it, the last to finish stops it."""
    if not _shared:
        _shared.append(_start_cluster())
    _holders[0] += 1
    yield _shared[0]
    _holders[0] -= 1
    if not _holders[0]:
        pg = _shared.pop()
        try:
            pg.stop()
        finally:
            shutil.rmtree(pg.root, ignore_errors=True)


def _start_cluster() -> Cluster:
    bin_dir = _bin_dir()
    if bin_dir is None:
        pytest.skip("PostgreSQL is not installed (no initdb): apt-get install postgresql")
    root = Path(tempfile.mkdtemp(prefix="floor-pg-"))
    os.chmod(root, 0o755)
    pg = Cluster(bin_dir, root)
    try:
        pg.init()
        pg.start()
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"could not start PostgreSQL: {exc.stderr.decode(errors='replace')}")
    return pg


_numbers = itertools.count(1)
#: Each test's Floor by its database's name (`ship` folds in the floor its DSN names).
_FLOORS: dict[str, Floor] = {}


class Floor:
    """One test's migrated database in the cluster, with helpers to add tables and readers,
    and to fold the read models as the floor service does (`fold`)."""

    def __init__(self, cluster: Cluster, dbname: str) -> None:
        self.cluster, self.dbname = cluster, dbname
        self.owner = psycopg.connect(cluster.dsn(dbname=dbname))
        self._folder: str | None = None
        _FLOORS[dbname] = self

    def folder_dsn(self) -> str:
        """The DSN of the floor service's login that folds (group floor_service), made once."""
        if self._folder is None:
            self._folder = self.add_reader("floor_service")
        return self._folder

    def fold(self, batch: int = 2000) -> int:
        """Fold every table's pending events as the floor service does (floor/fold.py), in
        transactions of up to `batch` events; the number folded."""
        from dealer_assist.floor.fold import fold_pending

        with psycopg.connect(self.folder_dsn(), autocommit=True) as conn:
            return fold_pending(conn, batch=batch)

    def close(self) -> None:
        self.owner.close()
        _FLOORS.pop(self.dbname, None)

    def reconnect(self) -> None:
        """A new owner's connection (after the cluster was stopped and started)."""
        self.owner.close()
        self.owner = psycopg.connect(self.dsn())

    def dsn(self, user: str = SUPERUSER, password: str | None = None) -> str:
        return self.cluster.dsn(user, password, self.dbname)

    def add_table(self) -> tuple[str, str]:
        """A new table: (table id, the DSN of its role)."""
        table = f"T{next(_numbers)}-{secrets.token_hex(3)}"
        role, password = add_table(self.owner, table)
        return table, self.dsn(role, password)

    def add_reader(self, group: str) -> str:
        name = f"{group}_{secrets.token_hex(4)}"
        return self.dsn(name, add_reader(self.owner, name, group))


@pytest.fixture
def floor(cluster: Cluster) -> Iterator[Floor]:
    dbname = f"floor_{next(_numbers)}_{secrets.token_hex(3)}"
    with psycopg.connect(cluster.dsn(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {dbname}")
    place = Floor(cluster, dbname)
    migrate(place.owner)
    yield place
    place.close()


SAMPLE_SHOE = Path(__file__).resolve().parents[1] / "dealer_assist/commands/sample_shoe.jsonl"


@pytest.fixture(scope="session")
def sample() -> list[dict[str, object]]:
    """The sample shoe's events (483 events, 80 games, 3 flags)."""
    import json

    return [json.loads(line) for line in SAMPLE_SHOE.read_text().splitlines()]


@pytest.fixture
def table_log(tmp_path: Path) -> Iterator[object]:
    """Makes a table's SQLite log holding the events given: `table_log(events, name="t")`."""
    from dealer_assist.store.sqlite_log import SqliteEventLog

    opened: list[SqliteEventLog] = []

    def make(events: list[dict[str, object]], name: str = "table") -> SqliteEventLog:
        log = SqliteEventLog(tmp_path / f"{name}.db")
        if events:
            log.append_many(events)
        opened.append(log)
        return log

    yield make
    for log in opened:
        log.close()


def ship(dsn: str, table: str, log: object, upto: int | None = None) -> None:
    """Ship everything in `log` (a SqliteEventLog), or its events up to seq `upto`, to the
    central store as `table`'s role; then fold them as the floor service does."""
    from dealer_assist.shipping.ingest import Ingest

    records = [r for r in log.raw_records()  # type: ignore[attr-defined]
               if upto is None or r.seq <= upto]
    with psycopg.connect(dsn) as conn:
        ingest = Ingest(conn, table)
        head = conn.execute("SELECT seq FROM table_heads WHERE table_id = %s",
                            (table,)).fetchone()
        conn.commit()
        ingest.ship([r for r in records if r.seq > (head[0] if head else 0)])
    _FLOORS[conninfo_to_dict(dsn)["dbname"]].fold()
