"""`dealer-assist floor-demo` (`make floor`): started for a few seconds in a folder of its own,
its private PostgreSQL receives events from its 8 tables, the floor service answers, and
Ctrl-C stops everything, the cluster included."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx2
import psycopg
import pytest

from dealer_assist.export.keys import load_public_key
from dealer_assist.export.verifier import verify_export
from dealer_assist.floor.cluster import Cluster, bin_dir, free_port
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


def test_the_demo_fills_the_central_store_from_8_tables_and_stops_cleanly(folder: Path):
    if bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (no initdb): apt-get install postgresql")
    var = folder / "var"
    port = free_port()
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


def test_the_floor_benchmark_prints_its_figures():
    """benchmarks/floor.py, tiny: 3 tables for 6 s at 20x, its own cluster."""
    if bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (no initdb): apt-get install postgresql")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "floor.py"), "--tables", "3", "--minutes",
         "0.1", "--speed", "20", "--procs", "1", "--warmup", "0", "--json"],
        capture_output=True, text=True, timeout=180, cwd=root)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert list(figures) == ["tables", "events", "events_per_s", "lag_ms_p50", "lag_ms_p99",
                             "lost", "duplicated", "catch_up_s"]
    assert figures["tables"] == 3 and figures["events"] > 10
    assert figures["lost"] == 0 and figures["duplicated"] == 0
    assert figures["catch_up_s"] is None and 0 <= figures["lag_ms_p50"] <= figures["lag_ms_p99"]
