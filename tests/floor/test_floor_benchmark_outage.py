"""benchmarks/floor.py with an outage, tiny: the store stopped for 3 s while 4 tables deal, then
every table catches up by itself, with nothing lost and nothing stored twice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dealer_assist.floor.cluster import bin_dir


def test_the_floor_benchmark_catches_up_after_an_outage():
    if bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (no initdb): apt-get install postgresql")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "floor.py"), "--tables", "4", "--minutes",
         "0.2", "--speed", "20", "--outage", "3", "--procs", "1", "--warmup", "0", "--json"],
        capture_output=True, text=True, timeout=240, cwd=root)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["tables"] == 4 and figures["events"] > 20
    assert figures["lost"] == 0 and figures["duplicated"] == 0
    assert isinstance(figures["catch_up_s"], float) and 0 <= figures["catch_up_s"] < 30
