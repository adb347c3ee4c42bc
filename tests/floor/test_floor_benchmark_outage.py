"""benchmarks/floor.py with an outage, tiny: the store stopped for 3 s while 4 tables deal, then
every table's own shipper catches up by itself, with nothing lost and nothing stored twice, and
the floor service's pit boards hear of the events again."""

from __future__ import annotations

from tests.floor.test_floor_benchmark import FIGURES, run_benchmark


def test_the_floor_benchmark_catches_up_after_an_outage():
    figures = run_benchmark("--tables", "4", "--minutes", "0.2", "--speed", "20", "--outage",
                            "3", "--browsers", "2")
    assert list(figures) == FIGURES
    assert figures["tables"] == 4 and figures["events"] > 20
    assert figures["lost"] == 0 and figures["duplicated"] == 0
    assert isinstance(figures["catch_up_s"], float) and 0 <= figures["catch_up_s"] < 30
    assert isinstance(figures["board_lag_ms_p99"], float)
    assert figures["lag_ms_p50"] <= figures["board_lag_ms_p50"] <= figures["board_lag_ms_p99"]
