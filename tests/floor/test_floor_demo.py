"""`dealer-assist floor-demo` (`make floor`): started for a few seconds in a folder of its own,
its private PostgreSQL receives events from its 8 tables, the floor service answers, and
Ctrl-C stops everything, the cluster included. While it runs, no process on the machine has a
password of the demo's on its command line or in its environment, and the floor service is
logged in as a login of floor_service that cannot create a role or write an event."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx2
import psycopg
import pytest

from dealer_assist.commands.floor_demo import SERVICE_LOGIN
from dealer_assist.export.verifier import verify_export
from dealer_assist.floor.cluster import Cluster, bin_dir, free_port
from dealer_assist.signing_keys import load_public_key
from tests.floor.pit_client import login

pytestmark = pytest.mark.slow


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder that `nobody` may enter (the cluster runs as nobody when the tests run as
    root; pytest's tmp_path is private to its user)."""
    made = Path(tempfile.mkdtemp(prefix="floor-demo-"))
    os.chmod(made, 0o755)
    yield made
    shutil.rmtree(made, ignore_errors=True)


class ProcWatch:
    """Reads every process's /proc/PID/cmdline and environ, over and over, in a thread, until
    stopped: what it saw, each text once."""

    def __init__(self) -> None:
        self.seen: set[bytes] = set()
        self.rounds = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.is_set():
            for pid in os.listdir("/proc"):
                if pid.isdigit():
                    for name in ("cmdline", "environ"):
                        with contextlib.suppress(OSError):  # gone, or not ours to read
                            self.seen.add(Path("/proc", pid, name).read_bytes())
            self.rounds += 1
            self._stop.wait(0.05)

    def stop(self) -> set[bytes]:
        self._stop.set()
        self._thread.join(10)
        return self.seen


def passwords_in(passfile: Path) -> list[str]:
    """The passwords of a libpq password file (the last field of each line; the demo's are
    token_urlsafe, with no ':' or '\\' to escape)."""
    assert stat.S_IMODE(passfile.stat().st_mode) == 0o600, passfile
    return [line.rsplit(":", 1)[1] for line in passfile.read_text().splitlines()]


def test_the_demo_fills_the_central_store_from_8_tables_and_stops_cleanly(folder: Path):
    if bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (no initdb): apt-get install postgresql")
    var = folder / "var"
    port = free_port()
    watch = ProcWatch()
    demo = subprocess.Popen(
        [sys.executable, "-m", "dealer_assist.cli", "floor-demo", "--var", str(var), "--port",
         str(port), "--speed", "40"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        cwd=folder, env={**os.environ, "PYTHONUNBUFFERED": "1",
                         "XDG_CACHE_HOME": str(folder / "cache"), "DEALER_ASSIST_SIGNING_KEY": ""})
    said: list[str] = []
    try:
        assert demo.stdout is not None
        for line in demo.stdout:
            said.append(line)
            if "Ctrl-C stops everything" in line:
                break
        text = "".join(said)
        assert "demo-supervisor, password " in text, text
        assert f"http://127.0.0.1:{port}/pit" in text
        cluster = Cluster(var / "floor-pg")
        deadline = time.monotonic() + 60
        counts: dict[str, int] = {}
        while time.monotonic() < deadline:
            with psycopg.connect(cluster.dsn(dbname="floor")) as conn:
                counts = dict(conn.execute(
                    "SELECT table_id, count(*) FROM events GROUP BY table_id").fetchall())
            if len(counts) == 8 and min(counts.values()) >= 5:
                break
            time.sleep(0.5)
        assert sorted(counts) == [f"T{n}" for n in range(1, 9)], (counts, text)
        assert min(counts.values()) >= 5
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as r:
            assert r.status == 200
        # The regulator downloads a floor export of every table, signed with the demo's key.
        password = re.search(r"demo-regulator, password (\S+)\)", text)
        pubkey = re.search(r"--pubkey (\S+)", text)
        assert password and pubkey, text
        with httpx2.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            assert login(client, "demo-regulator", password.group(1)).status_code == 303
            today = datetime.now(UTC).date().isoformat()
            response = client.get("/regulator/export.zip", params={
                "tables": [f"T{n}" for n in range(1, 9)], "from": today, "to": today})
        assert response.status_code == 200, response.text[:500]
        (folder / "floor.zip").write_bytes(response.content)
        result = verify_export(folder / "floor.zip", load_public_key(Path(pubkey.group(1))))
        assert result.ok, result.findings.lines()
        assert len(result.manifest["tables"]) == 8
        # each demo table signs with its own key, which the floor export carries
        keys = {t["table"]: t.get("table_key") for t in result.manifest["tables"]}
        assert all(keys.values()) and len(set(keys.values())) == 8, keys
        the_floor_service_is_its_own_login_with_few_rights(cluster, var / "floor-demo")
    finally:
        demo.send_signal(signal.SIGINT)
        try:
            rest, _ = demo.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            demo.kill()
            rest, _ = demo.communicate()
    assert demo.returncode == 0, "".join(said) + rest
    assert "floor demo stopped" in rest
    assert not (var / "floor-pg" / "data" / "postmaster.pid").exists()
    assert sorted(p.name for p in (var / "floor-demo").glob("*.events.db")) == sorted(
        f"T{n}.events.db" for n in range(1, 9))
    no_password_on_show(watch.stop(), watch.rounds, var, text)


def no_password_on_show(seen: set[bytes], rounds: int, var: Path, said: str) -> None:
    """No password of the demo's (the superuser's, the floor service's login's, the tables'
    roles', the two accounts' it printed) in any command line or environment seen while it
    ran; and the watch did see the floor service, the cluster and a password file named."""
    superuser = (var / "floor-pg" / "password").read_text().strip()
    assert passwords_in(var / "floor-pg" / "pgpass") == [superuser]
    secrets = [superuser, *passwords_in(var / "floor-demo" / "service.pgpass"),
               *passwords_in(var / "floor-demo" / "tables.pgpass"),
               *re.findall(r"password (\S+)\)", said)]
    # the superuser, the floor service's login, 8 tables' roles, 2 accounts: all different
    assert len(set(secrets)) == 1 + 1 + 8 + 2 and all(len(s) >= 12 for s in secrets), secrets
    assert rounds >= 10
    serve = [c for c in seen if b"floor\0serve\0" in c]
    assert serve and all(b"passfile=" in c and b"password" not in c for c in serve), serve
    assert any(b"postgres" in c and b"floor-pg" in c for c in seen)  # the cluster's processes
    shown = [s for s in secrets if any(s.encode() in c for c in seen)]
    assert shown == [], shown


def the_floor_service_is_its_own_login_with_few_rights(cluster: Cluster, demo: Path) -> None:
    """Every connection to the store but this test's is a table's role or the floor service's
    login; that login is no superuser, and cannot create a role or add, change or delete an
    event."""
    with psycopg.connect(cluster.dsn(dbname="floor")) as conn:
        users = {u for (u,) in conn.execute(
            "SELECT usename FROM pg_stat_activity WHERE datname = 'floor' "
            "AND pid <> pg_backend_pid()")}
        assert SERVICE_LOGIN in users and "postgres" not in users, users
        assert users <= {SERVICE_LOGIN, *(f"table_t{n}" for n in range(1, 9))}, users
        rights = conn.execute(
            "SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls, rolreplication, "
            "pg_has_role(rolname, 'floor_service', 'member'), "
            "pg_has_role(rolname, 'floor_table', 'member') FROM pg_roles WHERE rolname = %s",
            (SERVICE_LOGIN,)).fetchone()
    assert rights == (False, False, False, False, False, True, False)
    as_service = cluster.login_dsn(SERVICE_LOGIN, demo / "service.pgpass", "floor")
    with psycopg.connect(as_service) as conn:
        assert conn.execute("SELECT current_user").fetchone() == (SERVICE_LOGIN,)
        for statement in ("CREATE ROLE intruder LOGIN SUPERUSER",
                          "CREATE ROLE intruder",
                          "INSERT INTO events (table_id, seq, ts, type, body, prev_hash, "
                          "hash) SELECT table_id, seq + 100000, ts, type, body, hash, hash "
                          "FROM events LIMIT 1",
                          "UPDATE events SET body = body",
                          "DELETE FROM events",
                          "ALTER ROLE floor_demo_service CREATEROLE"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()

