"""The table service (bootstrap's shipper) records the floor's decisions in its own log."""

from __future__ import annotations

import json
import time
from pathlib import Path

import psycopg
import pytest

from dealer_assist.bootstrap import open_table
from dealer_assist.config import load_table_config
from dealer_assist.floor.requests import ask
from dealer_assist.shipping.shipper import DSN_ENV
from tests.shipping.test_table_ships import write_config


def test_the_table_service_records_a_floor_decision_and_ships_it_back(
        floor, service, sample, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table_id, dsn = floor.add_table()
    monkeypatch.setenv(DSN_ENV, dsn)
    table = open_table(load_table_config(write_config(tmp_path, table_id)), start_shoe=False)
    try:
        for event in sample:
            table.live.observe(event)
        shipper = table.shipper
        assert shipper is not None
        deadline = time.monotonic() + 30
        while shipper.lag().shipped_seq < table.live.seq:
            assert time.monotonic() < deadline, shipper.lag()
            time.sleep(0.05)
        floor.fold()  # the floor service folds the read models the pit reads
        with psycopg.connect(service) as conn:
            number = ask(conn, table=table_id, shoe_id="SAMPLE-1", game=17, action="accept",
                         reason="checked from the pit", by="sup@floor")
            while conn.execute("SELECT status FROM decision_requests WHERE id = %s",
                               (number,)).fetchone() != ("done",):
                conn.commit()
                floor.fold()  # as the floor service does, woken by the stored batch
                assert time.monotonic() < deadline + 30
                time.sleep(0.05)
        logged = [json.loads(r.body) for r in shipper.reader.raw_records()]
        [decision] = [e for e in logged if e.get("type") == "decision"]
        assert (decision["by"], decision["reason"], decision["game"]) == (
            "sup@floor", "checked from the pit", 17)
    finally:
        table.close()
