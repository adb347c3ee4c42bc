"""benchmarks/floor.py, tiny: 3 tables for 6 s at 20x on the table service's own shippers, its
own cluster, the floor service with 2 pit boards: every figure printed, nothing lost or stored
twice, each event on the boards after its central commit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dealer_assist.floor.cluster import bin_dir

FIGURES = ["tables", "events", "events_per_s", "lag_ms_p50", "lag_ms_p99", "lost",
           "duplicated", "catch_up_s", "board_lag_ms_p50", "board_lag_ms_p99"]


def run_benchmark(*options: str, timeout: float = 240) -> dict[str, object]:
    """The benchmark's last line (its JSON figures), run with `options` in a fresh process."""
    if bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (no initdb): apt-get install postgresql")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, str(root / "benchmarks" / "floor.py"), *options,
                           "--procs", "1", "--warmup", "0", "--json"],
                          capture_output=True, text=True, timeout=timeout, cwd=root)
    assert done.returncode == 0, done.stderr
    figures: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def test_the_floor_benchmark_prints_its_figures_with_the_boards():
    figures = run_benchmark("--tables", "3", "--minutes", "0.1", "--speed", "20",
                            "--browsers", "2")
    assert list(figures) == FIGURES
    assert figures["tables"] == 3 and figures["events"] > 10
    assert figures["lost"] == 0 and figures["duplicated"] == 0 and figures["catch_up_s"] is None
    lag, board = figures["lag_ms_p50"], figures["board_lag_ms_p50"]
    assert isinstance(lag, float) and isinstance(board, float)
    assert 0 <= lag <= figures["lag_ms_p99"]
    assert lag <= board <= figures["board_lag_ms_p99"]


def test_without_browsers_the_board_figures_are_null():
    figures = run_benchmark("--tables", "2", "--minutes", "0.05", "--speed", "20",
                            "--browsers", "0")
    assert list(figures) == FIGURES and figures["lost"] == 0
    assert figures["board_lag_ms_p50"] is None and figures["board_lag_ms_p99"] is None
