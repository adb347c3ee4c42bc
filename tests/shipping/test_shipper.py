"""The shipper copies a table's log to the central store by itself: after a restart, across an
outage of the central store, and it stops with an alarm when the local log was cut back."""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from dealer_assist.shipping.ingest import IntegrityAlarm
from dealer_assist.shipping.shipper import Shipper


def central(floor, table: str) -> list[tuple[int, str]]:
    floor.owner.commit()
    return floor.owner.execute("SELECT seq, hash FROM events WHERE table_id = %s ORDER BY seq",
                               (table,)).fetchall()


def local(log) -> list[tuple[int, str]]:
    return [(r.seq, r.hash) for r in log.raw_records()]


def wait_for(check, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_restarted_shipper_sends_only_what_is_missing(floor, sample, table_log):
    table, dsn = floor.add_table()
    log = table_log(sample[:100])
    first = Shipper(str(log.path), table, dsn, batch=30)
    assert first.ship_once() == 100
    assert first.lag().events == 0
    first.stop()
    log.append_many(sample[100:150])
    again = Shipper(str(log.path), table, dsn, batch=30)
    assert again.ship_once() == 50
    assert again.ship_once() == 0
    again.stop()
    assert central(floor, table) == local(log)


def test_lag_counts_events_and_seconds_behind(floor, sample, table_log):
    table, dsn = floor.add_table()
    log = table_log(sample[:10])
    shipper = Shipper(str(log.path), table, dsn)
    shipper.ship_once()
    log.append_many(sample[10:20])
    lag = shipper.lag()
    assert (lag.events, lag.shipped_seq) == (10, 10)
    behind = datetime.fromisoformat(sample[19]["ts"]) - datetime.fromisoformat(sample[9]["ts"])
    assert lag.seconds == pytest.approx(behind.total_seconds()) and lag.seconds > 0
    shipper.stop()


@pytest.mark.slow
def test_an_outage_of_the_central_store_is_caught_up_exactly(cluster, floor, sample, table_log):
    table, dsn = floor.add_table()
    log = table_log(sample[:50])
    shipper = Shipper(str(log.path), table, dsn, batch=40, idle=0.05, backoff=(0.05, 0.5))
    shipper.start()
    try:
        wait_for(lambda: shipper.lag().events == 0)
        floor.owner.close()
        cluster.stop()
        try:
            for start in range(50, 300, 25):  # the table goes on dealing: never blocked
                began = time.monotonic()
                log.append_many(sample[start:start + 25])
                assert time.monotonic() - began < 1.0
            time.sleep(1.0)
            assert shipper.lag().events == 250
        finally:
            cluster.start()
        wait_for(lambda: shipper.lag().events == 0)
    finally:
        shipper.stop()
    floor.reconnect()
    assert central(floor, table) == local(log)


def test_a_log_cut_back_stops_the_shipper_with_an_alarm(floor, sample, table_log, tmp_path):
    table, dsn = floor.add_table()
    Shipper(str(table_log(sample[:30]).path), table, dsn).ship_once()
    shorter = table_log(sample[:20], name="shorter")
    with pytest.raises(IntegrityAlarm, match="cut back"):
        Shipper(str(shorter.path), table, dsn).ship_once()
    regrown = table_log(sample[:20] + sample[40:50], name="regrown")  # same length, other events
    with pytest.raises(IntegrityAlarm, match="differs from the one stored"):
        Shipper(str(regrown.path), table, dsn).ship_once()
    assert len(central(floor, table)) == 30


def test_the_shipper_thread_stops_on_an_alarm_and_reports_it(floor, sample, table_log):
    table, dsn = floor.add_table()
    Shipper(str(table_log(sample[:30]).path), table, dsn).ship_once()
    shipper = Shipper(str(table_log(sample[1:40], name="other").path), table, dsn).start()
    wait_for(lambda: shipper.lag().alarm is not None)
    assert "integrity alarm for table" in (shipper.lag().alarm or "")
    shipper.stop()
